package network_test

import (
	"crypto/tls"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// lockedNotices collects notices from the goroutine that polls.
type lockedNotices struct {
	mu  sync.Mutex
	got []network.Notice
}

func (l *lockedNotices) add(n network.Notice) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, n)
}

func (l *lockedNotices) list() []network.Notice {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]network.Notice(nil), l.got...)
}

// bootstrapFailure polls a Client with a bootstrap timeout over real
// sockets until it gives up, and returns its error and notices.
func bootstrapFailure(t *testing.T, addrs []string, cfg network.Config, sock network.SocketConfig) (*network.BootstrapError, []network.Notice) {
	t.Helper()
	ns := &lockedNotices{}
	cfg.Notify = ns.add
	if cfg.BootstrapTimeout == 0 {
		cfg.BootstrapTimeout = 3 * time.Second
	}
	rc := newRealClient(t, addrs, cfg, sock)
	rc.md.AddTopic("t")
	rc.pollUntil("the bootstrap to fail", func() bool { return rc.c.BootstrapError() != nil })
	var berr *network.BootstrapError
	require.ErrorAs(t, rc.c.BootstrapError(), &berr)
	assert.ErrorIs(t, rc.md.LastError(), network.ErrBootstrap, "metadata waiters get it")
	return berr, ns.list()
}

// TestIntegrationBootstrapFailures: every way of never reaching a cluster
// ends with one error naming each address and its cause, and each
// address's first failure is told at once. Failures no retry can fix end
// before the bootstrap timeout.
func TestIntegrationBootstrapFailures(t *testing.T) {
	t.Parallel()
	p := newTestPKI(t, time.Now())
	serverTLS := &tls.Config{Certificates: []tls.Certificate{p.server.TLS}, MinVersion: tls.VersionTLS12}
	httpPeer, err := networktest.NewServer(func(c net.Conn) {
		defer c.Close()
		var b [1]byte
		if _, err := c.Read(b[:]); err == nil {
			_, _ = io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
		}
	})
	require.NoError(t, err)
	t.Cleanup(httpPeer.Close)
	tests := []struct {
		name    string
		addrs   func(t *testing.T) []string
		cfg     network.Config
		sock    network.SocketConfig
		final   bool // ends before the bootstrap timeout
		is      error
		text    []string
		re      string
		noticed string
	}{
		{name: "connection refused", addrs: func(t *testing.T) []string { return []string{networktest.ClosedAddr(t)} },
			text:    []string{"no bootstrap broker answered within 3s", "connection refused (is a broker listening there? check the host and port)"},
			noticed: "connection refused"},
		{name: "unknown host", addrs: func(*testing.T) []string { return []string{"kafak.invalid:9092"} },
			re:      `bootstrap broker kafak.invalid:9092: .*\((no such host|cannot resolve) "kafak.invalid": check the name`,
			noticed: "kafak.invalid"},
		{name: "plaintext to a TLS listener", final: true, is: network.ErrClosedBeforeResponse,
			addrs: func(t *testing.T) []string { return startCluster(t, kfake.TLS(serverTLS)).ListenAddrs()[:1] },
			text:  []string{"is the listener TLS? try --tls"}, noticed: "is the listener TLS? try --tls"},
		{name: "TLS to a plaintext listener", final: true, is: network.ErrTLSHandshake,
			addrs: func(t *testing.T) []string { return startCluster(t).ListenAddrs()[:1] },
			sock:  network.SocketConfig{TLS: &tls.Config{RootCAs: p.pki.Pool()}},
			// The handshake gets no answer: it ends at the connection setup
			// timeout, well before the bootstrap timeout, on a busy machine too.
			cfg:  network.Config{ConnectionSetupTimeout: 2 * time.Second, BootstrapTimeout: 10 * time.Second},
			text: []string{"try without --tls"}, noticed: "try without --tls"},
		{name: "SASL required", final: true, is: network.ErrClosedBeforeResponse,
			addrs: func(t *testing.T) []string {
				return startCluster(t, kfake.EnableSASL(), kfake.Superuser("PLAIN", "u", "p")).ListenAddrs()[:1]
			},
			text: []string{"the broker answered ApiVersions, then closed the connection", "does the listener require SASL?"}, noticed: "require SASL"},
		{name: "not Kafka", final: true, is: network.ErrNotKafka,
			addrs: func(*testing.T) []string { return []string{httpPeer.Addr()} },
			text:  []string{"HTTP server"}, noticed: "HTTP server"},
		{name: "Metadata below v4", final: true, is: network.ErrUnsupportedVersion,
			addrs: func(t *testing.T) []string {
				return startCluster(t, kfake.MaxVersions(kversion.V0_10_2())).ListenAddrs()[:1]
			},
			text: []string{"Metadata: the broker supports v0-v2, kproduce speaks v4-v12", "upgrade the broker"}, noticed: "upgrade the broker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			addrs := tt.addrs(t)
			start := time.Now()
			berr, notices := bootstrapFailure(t, addrs, tt.cfg, tt.sock)
			took := time.Since(start)
			t.Logf("%v: %v", took.Round(time.Millisecond), berr)
			if tt.final {
				assert.Zero(t, berr.Timeout, "failed for good before the timeout")
				assert.Less(t, took, max(tt.cfg.BootstrapTimeout, 3*time.Second))
				assert.ErrorIs(t, berr, tt.is)
			} else {
				assert.Equal(t, 3*time.Second, berr.Timeout)
			}
			require.Len(t, berr.Addresses, len(addrs))
			assert.Equal(t, addrs[0], berr.Addresses[0].Addr)
			assert.Equal(t, tt.final, berr.Addresses[0].Final)
			assert.Contains(t, berr.Error(), addrs[0])
			for _, s := range tt.text {
				assert.Contains(t, berr.Error(), s)
			}
			if tt.re != "" {
				assert.Regexp(t, tt.re, berr.Error())
			}
			require.NotEmpty(t, notices)
			assert.Equal(t, network.NoticeBootstrapFailure, notices[0].Kind)
			assert.Contains(t, notices[0].String(), tt.noticed)
			assert.Less(t, notices[0].At.Sub(start), took, "told before the end")
		})
	}
}

// TestIntegrationBootstrapOneGoodAddress: a dead address next to a live
// one does not hold up the bootstrap: both are tried at once.
func TestIntegrationBootstrapOneGoodAddress(t *testing.T) {
	t.Parallel()
	// A listener that accepts and never answers, as a dropped connection.
	silent, err := networktest.NewServer(func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	require.NoError(t, err)
	t.Cleanup(silent.Close)
	cluster := startCluster(t)
	rc := newRealClient(t, []string{silent.Addr(), cluster.ListenAddrs()[0]}, network.Config{BootstrapTimeout: 5 * time.Second}, network.SocketConfig{})
	start := time.Now()
	rc.waitTopic("t", 6)
	assert.Less(t, time.Since(start), 3*time.Second, "not held up by the silent address")
	assert.True(t, rc.c.Reached())
	assert.NoError(t, rc.c.BootstrapError())
}
