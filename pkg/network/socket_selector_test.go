package network_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// fakeServer accepts connections on loopback and runs handle on each.
type fakeServer struct{ *networktest.Server }

func newFakeServer(t *testing.T, handle func(net.Conn)) *fakeServer {
	t.Helper()
	srv, err := networktest.NewServer(handle)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return &fakeServer{srv}
}

func (s *fakeServer) node() network.Node {
	return network.Node{ID: 1, Host: "127.0.0.1", Port: s.Port()}
}

// echoFrames answers each frame with a frame holding its first 4 bytes of
// payload (the correlation id position) and "pong".
func echoFrames(c net.Conn) {
	defer c.Close()
	for {
		var size [4]byte
		if _, err := io.ReadFull(c, size[:]); err != nil {
			return
		}
		body := make([]byte, binary.BigEndian.Uint32(size[:]))
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		out := binary.BigEndian.AppendUint32(nil, 8)
		out = append(out, body[:4]...)
		out = append(out, "pong"...)
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

// waitEvents polls sel until n events arrived or a generous deadline.
func waitEvents(t *testing.T, sel *network.SocketSelector, n int) []network.Event {
	t.Helper()
	var events []network.Event
	deadline := time.Now().Add(10 * time.Second)
	for len(events) < n && time.Now().Before(deadline) {
		events = sel.Poll(time.Second, events)
	}
	require.Len(t, events, n, "events: %+v", events)
	return events
}

func frame(payload string) [][]byte {
	size := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	return [][]byte{size, []byte(payload[:2]), []byte(payload[2:])}
}

// assertNoLeak checks every goroutine of sel exited; the servers are
// closed first so that only the selector's goroutines can remain.
func assertNoLeak(t *testing.T, sel *network.SocketSelector, before int, servers ...*fakeServer) {
	t.Helper()
	sel.CloseAll()
	for _, s := range servers {
		s.Close()
	}
	assert.Equal(t, 0, sel.Goroutines())
	for i := 0; i < 10000 && runtime.NumGoroutine() > before; i++ {
		runtime.Gosched() // let exited goroutines be reaped; no sleeping
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before)
}

func TestSocketSelectorRoundTrip(t *testing.T) {
	srv := newFakeServer(t, echoFrames)
	before := runtime.NumGoroutine()
	sel := network.NewSocketSelector(network.SocketConfig{SendBufferBytes: 1 << 16, ReceiveBufferBytes: 1 << 16})

	sel.Connect(7, srv.node(), 5*time.Second)
	events := waitEvents(t, sel, 1)
	require.Equal(t, network.Event{Kind: network.EventConnected, Conn: 7}, events[0])

	sel.Send(7, frame("AAAAping"))
	sel.Send(7, frame("BBBBping"))
	events = waitEvents(t, sel, 4)
	var received [][]byte
	sends := 0
	for _, ev := range events {
		require.Equal(t, network.ConnID(7), ev.Conn)
		switch ev.Kind {
		case network.EventSendCompleted:
			sends++
		case network.EventReceived:
			received = append(received, ev.Payload)
		default:
			t.Fatalf("unexpected event %v", ev)
		}
	}
	assert.Equal(t, 2, sends)
	assert.Equal(t, [][]byte{[]byte("AAAApong"), []byte("BBBBpong")}, received)

	sel.Close(7)
	sel.Send(7, frame("CCCCping")) // closed: ignored
	assert.Empty(t, sel.Poll(0, nil))
	assertNoLeak(t, sel, before, srv)
}

func TestSocketSelectorWakeup(t *testing.T) {
	sel := network.NewSocketSelector(network.SocketConfig{})
	defer sel.CloseAll()
	done := make(chan []network.Event)
	go func() { done <- sel.Poll(time.Hour, nil) }()
	sel.Wakeup()
	assert.Empty(t, <-done, "Wakeup ends a blocked Poll")
	// A wakeup before Poll makes the next Poll return at once.
	sel.Wakeup()
	assert.Empty(t, sel.Poll(time.Hour, nil))
}

func TestSocketSelectorConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing listens there now
	sel := network.NewSocketSelector(network.SocketConfig{})
	before := runtime.NumGoroutine()
	sel.Connect(1, network.Node{ID: 1, Host: "127.0.0.1", Port: int32(port)}, 5*time.Second)
	events := waitEvents(t, sel, 1)
	assert.Equal(t, network.EventDisconnected, events[0].Kind)
	assert.ErrorIs(t, events[0].Err, syscall.ECONNREFUSED)
	sel.Close(1)
	assertNoLeak(t, sel, before)
}

func TestSocketSelectorPeerCloses(t *testing.T) {
	srv := newFakeServer(t, func(c net.Conn) {
		b := make([]byte, 12)
		_, _ = io.ReadFull(c, b) // read the request, then hang up
		c.Close()
	})
	sel := network.NewSocketSelector(network.SocketConfig{})
	defer sel.CloseAll()
	sel.Connect(1, srv.node(), 5*time.Second)
	waitEvents(t, sel, 1)
	sel.Send(1, frame("AAAAping"))
	events := waitDisconnected(t, sel)
	last := events[len(events)-1]
	assert.ErrorIs(t, last.Err, io.EOF)
	assert.Contains(t, last.Err.Error(), "connection closed by the broker")
	// The send completion is dropped when the hang-up is seen first:
	// nothing follows EventDisconnected.
	assert.LessOrEqual(t, len(events), 2)
	for i := 0; i < 500 && sel.Goroutines() > 0; i++ {
		events = sel.Poll(10*time.Millisecond, events) // until the connection's goroutines are gone
	}
	require.Equal(t, 0, sel.Goroutines())
	events = sel.Poll(0, events)
	assert.Equal(t, last, events[len(events)-1], "nothing follows EventDisconnected")
	sel.Close(1)
}

// waitDisconnected polls sel until an EventDisconnected arrives.
func waitDisconnected(t *testing.T, sel *network.SocketSelector) []network.Event {
	t.Helper()
	var events []network.Event
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		events = sel.Poll(time.Second, events)
		if n := len(events); n > 0 && events[n-1].Kind == network.EventDisconnected {
			return events
		}
	}
	t.Fatalf("no disconnection: %+v", events)
	return nil
}

func TestSocketSelectorBadFrames(t *testing.T) {
	tests := []struct {
		name  string
		reply []byte
		is    error
		text  string
	}{
		{"negative size", []byte{0xff, 0xff, 0xff, 0xff}, protocol.ErrFrameSize, "negative size"},
		{"size above the limit", []byte{0x7f, 0xff, 0xff, 0xff}, protocol.ErrFrameSize, "exceeds the limit of 1024 bytes"},
		{"ssh server", []byte("SSH-2.0-OpenSSH_9.6\r\n"), protocol.ErrNotKafka, "an SSH server"},
		{"truncated response", []byte{0, 0, 0, 100, 1, 2, 3}, io.ErrUnexpectedEOF, "in the middle of a response"},
		{"truncated size", []byte{0, 0}, io.ErrUnexpectedEOF, "in the middle of a response size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, func(c net.Conn) {
				_, _ = c.Write(tt.reply)
				c.Close()
			})
			sel := network.NewSocketSelector(network.SocketConfig{MaxFrameSize: 1024})
			defer sel.CloseAll()
			sel.Connect(1, srv.node(), 5*time.Second)
			events := waitEvents(t, sel, 2)
			assert.Equal(t, network.EventDisconnected, events[1].Kind)
			assert.ErrorIs(t, events[1].Err, tt.is)
			assert.Contains(t, events[1].Err.Error(), tt.text)
		})
	}
}

func TestSocketSelectorHTTPPeer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	addr := srv.Listener.Addr().(*net.TCPAddr)
	sel := network.NewSocketSelector(network.SocketConfig{})
	defer sel.CloseAll()
	sel.Connect(1, network.Node{ID: 1, Host: "127.0.0.1", Port: int32(addr.Port)}, 5*time.Second)
	waitEvents(t, sel, 1)
	// Go's HTTP server answers once it has a whole line: correlation id 10
	// puts a newline in the frame.
	sel.Send(1, apiVersionsFrame(10))
	events := waitEvents(t, sel, 2)
	require.Equal(t, network.EventDisconnected, events[1].Kind)
	assert.ErrorIs(t, events[1].Err, network.ErrNotKafka)
	assert.Contains(t, events[1].Err.Error(), "an HTTP server")
}

// apiVersionsFrame is a real ApiVersions v3 request frame.
func apiVersionsFrame(correlationID int32) [][]byte {
	w := protocol.NewWriter(nil)
	id := "kproduce"
	protocol.AppendRequestFrame(w, &protocol.RequestHeader{APIKey: protocol.KeyApiVersions, APIVersion: 3, CorrelationID: correlationID, ClientID: &id},
		&protocol.ApiVersionsRequest{ClientSoftwareName: "kproduce", ClientSoftwareVersion: "1"})
	return w.Buffers(nil)
}

func TestSocketSelectorTLSToPlaintextTimesOut(t *testing.T) {
	// A plaintext peer that never answers the TLS hello.
	srv := newFakeServer(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	sel := network.NewSocketSelector(network.SocketConfig{TLS: &tls.Config{MinVersion: tls.VersionTLS12}})
	before := runtime.NumGoroutine()
	start := time.Now()
	sel.Connect(1, srv.node(), 300*time.Millisecond)
	events := waitEvents(t, sel, 1)
	require.Equal(t, network.EventDisconnected, events[0].Kind)
	assert.Less(t, time.Since(start), 5*time.Second, "bounded by the setup timeout")
	// The handshake gets half the setup time, so the selector reports it
	// before the Client's setup timeout would retry.
	assert.ErrorIs(t, events[0].Err, network.ErrTLSHandshake)
	assert.Contains(t, events[0].Err.Error(), "sent no TLS reply within 150ms (is its listener plaintext? try without --tls)")
	sel.Close(1)
	assertNoLeak(t, sel, before, srv)
}

func TestSocketSelectorCloseDuringHandshake(t *testing.T) {
	srv := newFakeServer(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	sel := network.NewSocketSelector(network.SocketConfig{TLS: &tls.Config{MinVersion: tls.VersionTLS12}})
	before := runtime.NumGoroutine()
	sel.Connect(1, srv.node(), time.Hour)
	sel.Close(1) // must not wait for the hour
	assert.Empty(t, sel.Poll(0, nil))
	assertNoLeak(t, sel, before, srv)
}

// selfSignedTLS returns a server config with a fresh certificate for
// 127.0.0.1 and a client config trusting it.
func selfSignedTLS(t *testing.T) (server, client *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "kproduce test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	server = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, MinVersion: tls.VersionTLS12}
	client = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return server, client
}

func TestSocketSelectorTLS(t *testing.T) {
	serverCfg, clientCfg := selfSignedTLS(t)
	srv := newFakeServer(t, func(c net.Conn) { echoFrames(tls.Server(c, serverCfg)) })
	sel := network.NewSocketSelector(network.SocketConfig{TLS: clientCfg})
	defer sel.CloseAll()
	sel.Connect(1, srv.node(), 5*time.Second)
	events := waitEvents(t, sel, 1)
	require.Equal(t, network.EventConnected, events[0].Kind, "%v", events[0].Err)
	big := strings.Repeat("x", 100_000) // several TLS records
	sel.Send(1, frame("DDDDping"+big))
	events = waitEvents(t, sel, 2)
	// The reader and the writer race: the response may be reported first.
	if events[0].Kind == network.EventReceived {
		events[0], events[1] = events[1], events[0]
	}
	assert.Equal(t, network.EventSendCompleted, events[0].Kind)
	assert.Equal(t, []byte("DDDDpong"), events[1].Payload)
}

func TestSocketSelectorTLSUntrustedCertificate(t *testing.T) {
	serverCfg, _ := selfSignedTLS(t)
	srv := newFakeServer(t, func(c net.Conn) { echoFrames(tls.Server(c, serverCfg)) })
	// An empty pool: the server's certificate is signed by no known CA.
	sel := network.NewSocketSelector(network.SocketConfig{TLS: &tls.Config{RootCAs: x509.NewCertPool(), MinVersion: tls.VersionTLS12}})
	defer sel.CloseAll()
	sel.Connect(1, srv.node(), 5*time.Second)
	events := waitEvents(t, sel, 1)
	require.Equal(t, network.EventDisconnected, events[0].Kind)
	var unknown x509.UnknownAuthorityError
	assert.ErrorAs(t, events[0].Err, &unknown)
	assert.Contains(t, events[0].Err.Error(), "tls handshake")
}

func TestSocketSelectorPlaintextToTLSListener(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	addr := srv.Listener.Addr().(*net.TCPAddr)
	sel := network.NewSocketSelector(network.SocketConfig{})
	defer sel.CloseAll()
	sel.Connect(1, network.Node{ID: 1, Host: "127.0.0.1", Port: int32(addr.Port)}, 5*time.Second)
	waitEvents(t, sel, 1)
	sel.Send(1, apiVersionsFrame(1))
	events := waitEvents(t, sel, 2)
	require.Equal(t, network.EventDisconnected, events[1].Kind)
	// Go's TLS server hangs up without a TLS alert; the Client turns this
	// into a hint (see TestClientAgainstTLSListener).
	assert.ErrorIs(t, events[1].Err, io.EOF)
}
