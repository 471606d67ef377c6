package network_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// starter is a SASLSessionStarter whose credentials for the nodes the test
// blocks are pending until it finishes them (as GSSAPI while the KDC is
// asked for a broker's service ticket); its sessions send "cred". Each
// pending node has a background exchange of its own, a goroutine that
// runs until its context is cancelled (CancelSession, or finish).
type starter struct {
	mu      sync.Mutex
	blocked map[int32]bool
	failed  map[int32]error
	waiting map[int32]network.Waker
	starts  map[int32]int // StartSession calls per node
	running map[int32]*exchange
}

// exchange is the background work for one node: cancel stops it, and
// ended is closed once its goroutine returned.
type exchange struct {
	cancel context.CancelFunc
	ended  chan struct{}
}

func newStarter(blocked ...int32) *starter {
	s := &starter{blocked: map[int32]bool{}, failed: map[int32]error{}, waiting: map[int32]network.Waker{}, starts: map[int32]int{},
		running: map[int32]*exchange{}}
	for _, n := range blocked {
		s.blocked[n] = true
	}
	return s
}

func (s *starter) Name() string { return "TEST-STARTED" }

func (s *starter) NewSession(network.Node) (network.SASLSession, error) {
	return nil, errors.New("the Client must call StartSession")
}

func (s *starter) StartSession(n network.Node, w network.Waker) (network.SASLSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starts[n.ID]++
	if err := s.failed[n.ID]; err != nil {
		return nil, err
	}
	if s.blocked[n.ID] {
		s.waiting[n.ID] = w
		if s.running[n.ID] == nil {
			ctx, cancel := context.WithCancel(context.Background())
			ex := &exchange{cancel: cancel, ended: make(chan struct{})}
			s.running[n.ID] = ex
			go func() {
				defer close(ex.ended)
				<-ctx.Done()
			}()
		}
		return nil, fmt.Errorf("%w: asking the KDC for node %d's ticket", network.ErrSASLPending, n.ID)
	}
	return &plainish{}, nil
}

func (s *starter) CancelSession(n network.Node, w network.Waker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.waiting[n.ID] != w {
		return
	}
	delete(s.waiting, n.ID)
	if ex := s.running[n.ID]; ex != nil {
		ex.cancel()
		delete(s.running, n.ID)
	}
}

// exchangeOf is node's background exchange under way, nil when none.
func (s *starter) exchangeOf(node int32) *exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running[node]
}

// finish ends node's wait, with err (nil: the credentials are there), and
// wakes the Client that waits.
func (s *starter) finish(node int32, err error) {
	s.mu.Lock()
	delete(s.blocked, node)
	s.failed[node] = err
	w := s.waiting[node]
	if ex := s.running[node]; ex != nil {
		ex.cancel()
		delete(s.running, node)
	}
	s.mu.Unlock()
	if w != nil {
		w.Wakeup()
	}
}

// handshake drives node from its connection to the end of the
// SaslHandshake.
func handshake(t *testing.T, h *harness, node int32) network.ConnID {
	t.Helper()
	require.False(t, h.c.Ready(node, h.now()))
	conn, ok := h.sel.LastConn(node)
	require.True(t, ok)
	h.sel.CompleteConnect(conn)
	require.Empty(t, h.poll())
	sent, _ := h.sel.LastSent(node)
	h.sel.RespondTo(sent, networktest.DefaultApiVersions())
	require.Empty(t, h.poll())
	hs, _ := h.sel.LastSent(node)
	require.Equal(t, protocol.KeySaslHandshake, hs.Header.APIKey)
	h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{})
	require.Empty(t, h.poll())
	return conn
}

// completeAuth answers node's SaslAuthenticate.
func completeAuth(t *testing.T, h *harness, node int32) {
	t.Helper()
	auth, _ := h.sel.LastSent(node)
	require.Equal(t, protocol.KeySaslAuthenticate, auth.Header.APIKey)
	h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{AuthBytes: []byte{}})
	require.Empty(t, h.poll())
	require.Equal(t, network.Ready, h.c.ConnectionState(node))
}

// produceWhileWaiting sends a produce to the ready node and answers it:
// it completes while the connection to waiting still waits for its
// credentials. msgAndArgs tell what is checked.
func produceWhileWaiting(t *testing.T, h *harness, ready, waiting int32, msgAndArgs ...any) {
	t.Helper()
	req := h.send(ready, produceRequest(), true, 0, nil)
	sent, _ := h.sel.LastSent(ready)
	h.sel.RespondTo(sent, &protocol.ProduceResponse{})
	got := h.poll()
	require.Len(t, got, 1, msgAndArgs...)
	assert.Same(t, req, got[0].Request)
	assert.NoError(t, got[0].Err)
	assert.Equal(t, network.Authenticating, h.c.ConnectionState(waiting))
}

// While a connection waits for its credentials (broker 2's service
// ticket), the Client serves its other connections: a produce to the
// authenticated broker 1 completes. Once the credentials are there, the
// mechanism wakes the Client and the waiting connection authenticates.
func TestSASLSessionWaitsWhileOthersProduce(t *testing.T) {
	s := newStarter(2)
	h := newHarness(t, reauthConfig(s), testNodes()...)
	handshake(t, h, 1)
	completeAuth(t, h, 1)

	handshake(t, h, 2)
	assert.Equal(t, network.Authenticating, h.c.ConnectionState(2))
	assert.Empty(t, h.sel.SentKey(2, protocol.KeySaslAuthenticate), "nothing sent before the credentials")
	require.Empty(t, h.c.Poll(time.Hour, h.now()))
	assert.Equal(t, 10*time.Second, last(h.sel.PollTimeouts()), "Poll waits no longer than the wait's deadline")

	produceWhileWaiting(t, h, 1, 2)

	wakeups := h.sel.Wakeups()
	s.finish(2, nil)
	assert.Equal(t, wakeups+1, h.sel.Wakeups(), "the mechanism woke the Client")
	require.Empty(t, h.poll())
	completeAuth(t, h, 2)
}

// A connection still waiting for its credentials at the connection setup
// timeout fails to authenticate, saying what it waited for.
func TestSASLSessionWaitDeadline(t *testing.T) {
	s := newStarter(1)
	h := newHarness(t, reauthConfig(s), testNodes()...)
	conn := handshake(t, h, 1)
	h.advance(10*time.Second - time.Millisecond)
	require.Empty(t, h.poll())
	assert.False(t, h.sel.IsClosed(conn))
	assert.Equal(t, network.Authenticating, h.c.ConnectionState(1))
	h.advance(time.Millisecond)
	require.Empty(t, h.poll())
	assertAuthFailed(t, h, conn, []error{network.ErrConnectionSetupTimeout, network.ErrSASLPending},
		[]string{"SASL TEST-STARTED: connection setup timed out: gave up after 10s (the connection setup timeout): " +
			"SASL credentials not ready: asking the KDC for node 1's ticket"})
}

// A failure of the credentials fails the authentication with the
// mechanism's reason.
func TestSASLSessionStartFails(t *testing.T) {
	s := newStarter(1)
	h := newHarness(t, reauthConfig(s), testNodes()...)
	conn := handshake(t, h, 1)
	s.finish(1, errors.New("kerberos client@EXAMPLE.COM for kafka/127.0.0.1@EXAMPLE.COM: cannot reach the KDC"))
	require.Empty(t, h.poll())
	assertAuthFailed(t, h, conn, nil, []string{"SASL TEST-STARTED: kerberos client@EXAMPLE.COM for kafka/127.0.0.1@EXAMPLE.COM: cannot reach the KDC"})
}

// awaitEnded waits until ex's goroutine returned.
func awaitEnded(t *testing.T, ex *exchange) {
	t.Helper()
	select {
	case <-ex.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the background exchange goes on")
	}
}

// Closing the Client stops the background exchange its connections wait
// for: the exchange's goroutine ends.
func TestSASLSessionWaitEndsOnClose(t *testing.T) {
	s := newStarter(1, 2)
	h := newHarness(t, reauthConfig(s), testNodes()...)
	handshake(t, h, 1)
	handshake(t, h, 2)
	ex1, ex2 := s.exchangeOf(1), s.exchangeOf(2)
	require.NotNil(t, ex1)
	require.NotNil(t, ex2)
	h.c.Close()
	awaitEnded(t, ex1)
	awaitEnded(t, ex2)
}

// A waiting connection that ends (the broker closed it; its deadline
// passed) stops its background exchange; the other connections' go on.
func TestSASLSessionWaitEndsWithItsConnection(t *testing.T) {
	s := newStarter(1, 2, 3)
	h := newHarness(t, reauthConfig(s), testNodes()...)
	conn1 := handshake(t, h, 1)
	h.advance(time.Second)
	handshake(t, h, 2)
	handshake(t, h, 3)
	ex1, ex2, ex3 := s.exchangeOf(1), s.exchangeOf(2), s.exchangeOf(3)

	h.sel.Disconnect(conn1, io.EOF)
	require.Empty(t, h.poll())
	awaitEnded(t, ex1)
	assert.Same(t, ex2, s.exchangeOf(2), "node 2's exchange goes on")

	h.advance(10 * time.Second) // node 2 and 3's deadline
	s.finish(3, nil)
	require.Empty(t, h.poll())
	assert.Equal(t, network.AuthenticationFailed, h.c.ConnectionState(2))
	awaitEnded(t, ex2)
	awaitEnded(t, ex3)
	completeAuth(t, h, 3)
}
