package network_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// testPKI is a CA with a server certificate for 127.0.0.1 and localhost
// and a client certificate.
type testPKI struct {
	pki            *networktest.PKI
	server, client networktest.Cert
}

func newTestPKI(t *testing.T, now time.Time) *testPKI {
	t.Helper()
	pki, err := networktest.NewPKI("kproduce test CA", now)
	require.NoError(t, err)
	server, err := pki.Server(now, "127.0.0.1", "localhost")
	require.NoError(t, err)
	client, err := pki.Client(now, "kproduce-client")
	require.NoError(t, err)
	return &testPKI{pki: pki, server: server, client: client}
}

// tlsServer accepts TLS connections with cfg and echoes frames.
func tlsServer(t *testing.T, cfg *tls.Config) *fakeServer {
	t.Helper()
	return newFakeServer(t, func(c net.Conn) { echoFrames(tls.Server(c, cfg)) })
}

// connectTLS connects to srv with cfg and returns the first event.
func connectTLS(t *testing.T, srv *fakeServer, cfg *tls.Config) network.Event {
	t.Helper()
	sel := network.NewSocketSelector(network.SocketConfig{TLS: cfg})
	t.Cleanup(sel.CloseAll)
	sel.Connect(1, srv.node(), 5*time.Second)
	return waitEvents(t, sel, 1)[0]
}

func TestSocketSelectorMutualTLS(t *testing.T) {
	p := newTestPKI(t, time.Now())
	other := newTestPKI(t, time.Now())
	serverCfg := func(maxVersion uint16) *tls.Config {
		return &tls.Config{Certificates: []tls.Certificate{p.server.TLS}, ClientCAs: p.pki.Pool(),
			ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12, MaxVersion: maxVersion}
	}
	t.Run("client certificate accepted", func(t *testing.T) {
		srv := tlsServer(t, serverCfg(0))
		sel := network.NewSocketSelector(network.SocketConfig{TLS: &tls.Config{RootCAs: p.pki.Pool(), Certificates: []tls.Certificate{p.client.TLS}}})
		defer sel.CloseAll()
		sel.Connect(1, srv.node(), 5*time.Second)
		require.Equal(t, network.EventConnected, waitEvents(t, sel, 1)[0].Kind)
		sel.Send(1, frame("DDDDping"))
		events := waitEvents(t, sel, 2)
		assert.ElementsMatch(t, []network.EventKind{network.EventSendCompleted, network.EventReceived}, []network.EventKind{events[0].Kind, events[1].Kind})
	})
	tests := []struct {
		name       string
		maxVersion uint16
		certs      []tls.Certificate
		text       string
	}{
		// TLS 1.3 completes the client's handshake before the server checks
		// the client: the refusal comes as an alert on the first read.
		{"no client certificate, TLS 1.3", tls.VersionTLS13, nil, "certificate required"},
		{"no client certificate, TLS 1.2", tls.VersionTLS12, nil, "handshake failure"},
		{"client certificate of another CA", 0, []tls.Certificate{other.client.TLS}, "unknown certificate authority"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := tlsServer(t, serverCfg(tt.maxVersion))
			sel := network.NewSocketSelector(network.SocketConfig{TLS: &tls.Config{RootCAs: p.pki.Pool(), Certificates: tt.certs}})
			defer sel.CloseAll()
			sel.Connect(1, srv.node(), 5*time.Second)
			events := waitDisconnected(t, sel)
			err := events[len(events)-1].Err
			assert.ErrorIs(t, err, network.ErrTLSHandshake)
			assert.Contains(t, err.Error(), tt.text)
			assert.Contains(t, err.Error(), "give one it trusts with --tls-cert and --tls-key, or --tls-keystore")
		})
	}
}

func TestSocketSelectorTLSVerification(t *testing.T) {
	now := time.Now()
	p := newTestPKI(t, now)
	expired, err := p.pki.Server(now.Add(-90*24*time.Hour), "127.0.0.1")
	require.NoError(t, err)
	localhostOnly, err := p.pki.Server(now, "localhost")
	require.NoError(t, err)
	tests := []struct {
		name   string
		cert   tls.Certificate
		client *tls.Config
		as     any
		text   string
	}{
		{"unknown CA", p.server.TLS, &tls.Config{RootCAs: newTestPKI(t, now).pki.Pool()},
			&x509.UnknownAuthorityError{}, "give the CA that signed it with --tls-ca"},
		{"host name not in the certificate", localhostOnly.TLS, &tls.Config{RootCAs: p.pki.Pool()},
			&x509.HostnameError{}, "set --tls-server-name"},
		{"expired certificate", expired.TLS, &tls.Config{RootCAs: p.pki.Pool()},
			&x509.CertificateInvalidError{}, "check its dates and the clocks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := tlsServer(t, &tls.Config{Certificates: []tls.Certificate{tt.cert}})
			ev := connectTLS(t, srv, tt.client)
			require.Equal(t, network.EventDisconnected, ev.Kind)
			assert.ErrorIs(t, ev.Err, network.ErrTLSHandshake)
			assert.ErrorAs(t, ev.Err, tt.as)
			assert.Contains(t, ev.Err.Error(), tt.text)
		})
	}
	t.Run("server name given", func(t *testing.T) {
		srv := tlsServer(t, &tls.Config{Certificates: []tls.Certificate{localhostOnly.TLS}})
		ev := connectTLS(t, srv, &tls.Config{RootCAs: p.pki.Pool(), ServerName: "localhost"})
		assert.Equal(t, network.EventConnected, ev.Kind, "%v", ev.Err)
	})
}

func TestSocketSelectorTLSToNonTLSPeer(t *testing.T) {
	p := newTestPKI(t, time.Now())
	client := &tls.Config{RootCAs: p.pki.Pool()}
	t.Run("peer hangs up on the hello, like a plaintext Kafka broker", func(t *testing.T) {
		srv := newFakeServer(t, func(c net.Conn) {
			var b [4]byte
			_, _ = io.ReadFull(c, b[:])
			c.Close()
		})
		ev := connectTLS(t, srv, client)
		require.Equal(t, network.EventDisconnected, ev.Kind)
		assert.ErrorIs(t, ev.Err, network.ErrClosedBeforeResponse)
		assert.NotErrorIs(t, ev.Err, network.ErrTLSHandshake, "once is not final")
		assert.Contains(t, ev.Err.Error(), "during the TLS handshake (is the broker's listener plaintext? try without --tls)")
	})
	t.Run("peer answers in another protocol", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		defer srv.Close()
		addr := srv.Listener.Addr().(*net.TCPAddr)
		sel := network.NewSocketSelector(network.SocketConfig{TLS: client})
		defer sel.CloseAll()
		sel.Connect(1, network.Node{ID: 1, Host: "127.0.0.1", Port: int32(addr.Port)}, 5*time.Second)
		ev := waitEvents(t, sel, 1)[0]
		require.Equal(t, network.EventDisconnected, ev.Kind)
		assert.ErrorIs(t, ev.Err, network.ErrTLSHandshake)
		assert.ErrorAs(t, ev.Err, &tls.RecordHeaderError{})
		assert.Contains(t, ev.Err.Error(), "the peer does not speak TLS")
	})
}

func TestSocketSelectorPlaintextToTLSListenerIsEarlyClose(t *testing.T) {
	p := newTestPKI(t, time.Now())
	srv := tlsServer(t, &tls.Config{Certificates: []tls.Certificate{p.server.TLS}})
	sel := network.NewSocketSelector(network.SocketConfig{})
	defer sel.CloseAll()
	sel.Connect(1, srv.node(), 5*time.Second)
	require.Equal(t, network.EventConnected, waitEvents(t, sel, 1)[0].Kind)
	sel.Send(1, apiVersionsFrame(1))
	events := waitDisconnected(t, sel)
	last := events[len(events)-1]
	assert.ErrorIs(t, last.Err, network.ErrClosedBeforeResponse)
	assert.Contains(t, last.Err.Error(), "(is the listener TLS? try --tls)")
}
