package network_test

import (
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// smallProduce is a Produce request with one small batch for partition p.
func smallProduce(p int32) *protocol.ProduceRequest {
	return &protocol.ProduceRequest{Acks: -1, TimeoutMs: 5000, Topics: []protocol.ProduceRequestTopic{{
		Name: "t", Partitions: []protocol.ProduceRequestPartition{{Index: p, Records: recordBatch(partitionRecords(p), time.Now().UnixMilli())}},
	}}}
}

func TestIntegrationBrokerClosesConnection(t *testing.T) {
	cluster := startCluster(t)
	cluster.ControlKey(int16(protocol.KeyProduce), func(kmsg.Request) (kmsg.Response, error, bool) {
		return nil, errors.New("closing on purpose"), true
	})
	rc := newRealClient(t, cluster.ListenAddrs(), network.Config{}, network.SocketConfig{})
	md := rc.waitTopic("t", 6)
	leader, _ := md.LeaderFor("t", 0)

	resp := rc.sendAndWait(leader, smallProduce(0), 0)
	assert.True(t, resp.Disconnected)
	assert.False(t, resp.TimedOut)
	assert.Nil(t, resp.Body)
	assert.ErrorIs(t, resp.Err, network.ErrDisconnected)
	assert.Contains(t, resp.Err.Error(), "broker "+strconv.Itoa(int(leader)))

	// The control handled one request: after reconnecting, the next works.
	resp = rc.sendAndWait(leader, smallProduce(0), 0)
	require.NoError(t, resp.Err)
	assert.Equal(t, int16(0), resp.Body.(*protocol.ProduceResponse).Topics[0].Partitions[0].ErrorCode)
}

func TestIntegrationBrokerNeverAnswers(t *testing.T) {
	cluster := startCluster(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	cluster.ControlKey(int16(protocol.KeyProduce), func(kmsg.Request) (kmsg.Response, error, bool) {
		cluster.SleepControl(func() { <-release })
		return nil, nil, true // handled, no answer
	})
	rc := newRealClient(t, cluster.ListenAddrs(), network.Config{}, network.SocketConfig{})
	md := rc.waitTopic("t", 6)
	leader, _ := md.LeaderFor("t", 0)

	start := time.Now()
	resp := rc.sendAndWait(leader, smallProduce(0), 300*time.Millisecond)
	assert.Less(t, time.Since(start), testDeadline)
	assert.True(t, resp.TimedOut)
	assert.True(t, resp.Disconnected)
	assert.ErrorIs(t, resp.Err, network.ErrRequestTimedOut)
	assert.Contains(t, resp.Err.Error(), "no response to Produce")
	assert.Equal(t, network.Disconnected, rc.c.ConnectionState(leader), "the connection was closed")
}

// countingSelector counts and times Connect calls.
type countingSelector struct {
	network.Selector
	mu       sync.Mutex
	connects []time.Time
}

func (s *countingSelector) Connect(conn network.ConnID, node network.Node, timeout time.Duration) {
	s.mu.Lock()
	s.connects = append(s.connects, time.Now())
	s.mu.Unlock()
	s.Selector.Connect(conn, node, timeout)
}

func TestIntegrationNothingListens(t *testing.T) {
	addr := networktest.ClosedAddr(t)
	bootstrap, err := network.BootstrapNodes([]string{addr})
	require.NoError(t, err)
	md := network.NewMetadata(network.MetadataConfig{RefreshBackoff: 10 * time.Millisecond, RefreshBackoffMax: 80 * time.Millisecond,
		Jitter: fixedJitter(1)}, bootstrap)
	sel := &countingSelector{Selector: network.NewSocketSelector(network.SocketConfig{})}
	cfg := network.Config{ReconnectBackoff: 10 * time.Millisecond, ReconnectBackoffMax: 80 * time.Millisecond, Jitter: fixedJitter(1)}
	c := network.NewClient(cfg, md, sel, network.SystemClock{})
	defer c.Close()

	const polls = 24
	for range polls {
		require.Empty(t, c.Poll(time.Second, time.Now()))
	}
	sel.mu.Lock()
	connects := sel.connects
	sel.mu.Unlock()
	require.GreaterOrEqual(t, len(connects), 3)
	// A busy loop would connect at every Poll; here each attempt needs one
	// Poll to fail and another to wait out the backoff.
	assert.LessOrEqual(t, len(connects), polls/2, "no busy loop")
	for i := 1; i < len(connects); i++ {
		backoff := min(10*time.Millisecond<<(i-1), 80*time.Millisecond)
		assert.GreaterOrEqual(t, connects[i].Sub(connects[i-1]), backoff, "attempt %d comes after its backoff", i)
	}
	err = md.LastError()
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	assert.Contains(t, err.Error(), "bootstrap broker "+addr)
	assert.ErrorIs(t, err, network.ErrDisconnected)
}

// clientAgainst runs a client whose only bootstrap broker is addr until
// the metadata reports a failure, and returns it.
func clientAgainst(t *testing.T, addr string, cfg network.Config, sock network.SocketConfig) error {
	t.Helper()
	rc := newRealClient(t, []string{addr}, cfg, sock)
	rc.pollUntil("a failure", func() bool { return rc.md.LastError() != nil })
	return rc.md.LastError()
}

func TestIntegrationHTTPServer(t *testing.T) {
	t.Run("server that rejects garbage at once", func(t *testing.T) {
		// Like nginx: anything that is not an HTTP method gets a 400.
		srv := newFakeServer(t, func(c net.Conn) {
			defer c.Close()
			var b [1]byte
			if _, err := c.Read(b[:]); err == nil {
				_, _ = io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			}
		})
		err := clientAgainst(t, srv.Addr(), network.Config{}, network.SocketConfig{})
		assert.ErrorIs(t, err, network.ErrNotKafka)
		assert.Contains(t, err.Error(), "it answered like an HTTP server")
		assert.Contains(t, err.Error(), "bootstrap broker "+srv.Addr())
	})
	t.Run("net/http server, which waits for a line", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		defer srv.Close()
		err := clientAgainst(t, srv.Listener.Addr().String(), network.Config{RequestTimeout: 300 * time.Millisecond}, network.SocketConfig{})
		assert.ErrorIs(t, err, network.ErrRequestTimedOut)
		assert.Contains(t, err.Error(), "no response to ApiVersions v3")
		assert.Contains(t, err.Error(), "is this the address of a Kafka listener?")
	})
}

func TestIntegrationTLSMismatch(t *testing.T) {
	t.Run("plaintext client, TLS listener", func(t *testing.T) {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		srv.Config.ErrorLog = log.New(io.Discard, "", 0)
		srv.StartTLS()
		defer srv.Close()
		// The first hang-up may be a restarting broker: retried; the
		// second in a row is final.
		err := finalFailure(t, srv.Listener.Addr().String(), network.Config{}, network.SocketConfig{})
		assert.ErrorIs(t, err, network.ErrClosedBeforeResponse)
		assert.NotErrorIs(t, err, network.ErrDisconnected)
		assert.Contains(t, err.Error(), "not retrying after 2 connections in a row were closed before any response")
		assert.Contains(t, err.Error(), "(is the listener TLS? try --tls)")
	})
	t.Run("TLS client, plaintext kfake", func(t *testing.T) {
		cluster := startCluster(t)
		_, clientTLS := selfSignedTLS(t)
		cfg := network.Config{ConnectionSetupTimeout: 300 * time.Millisecond, ConnectionSetupTimeoutMax: 300 * time.Millisecond}
		err := finalFailure(t, cluster.ListenAddrs()[0], cfg, network.SocketConfig{TLS: clientTLS})
		assert.ErrorIs(t, err, network.ErrTLSHandshake)
		assert.Contains(t, err.Error(), "sent no TLS reply within 150ms (is its listener plaintext? try without --tls)")
	})
}

// finalFailure runs a client whose only bootstrap broker is addr until the
// broker failed for good, checks it is not retried, and returns the error.
func finalFailure(t *testing.T, addr string, cfg network.Config, sock network.SocketConfig) error {
	t.Helper()
	cfg.ReconnectBackoff, cfg.ReconnectBackoffMax = time.Millisecond, time.Millisecond
	rc := newRealClient(t, []string{addr}, cfg, sock)
	rc.pollUntil("a final failure", func() bool { return rc.c.AuthenticationError(-1) != nil })
	err := rc.c.AuthenticationError(-1)
	assert.Equal(t, network.AuthenticationFailed, rc.c.ConnectionState(-1))
	for range 5 {
		require.Empty(t, rc.c.Poll(5*time.Millisecond, time.Now()))
		assert.False(t, rc.c.Ready(-1, time.Now()), "never retried")
	}
	assert.Equal(t, network.AuthenticationFailed, rc.c.ConnectionState(-1))
	assert.ErrorIs(t, rc.md.LastError(), err, "the metadata reports it too")
	assert.Contains(t, err.Error(), "bootstrap broker "+addr)
	return err
}
