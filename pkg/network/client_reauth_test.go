package network_test

import (
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

// reauthConfig re-authenticates at exactly 90% of a session.
func reauthConfig(mech network.SASLMechanism) network.Config {
	cfg := baseConfig()
	cfg.SASL = mech
	cfg.ReauthJitter = func() float64 { return 0.9 }
	return cfg
}

// authenticate answers the SASL exchange of node 1 under way (PLAIN: one
// round) with a session of lifetime ms.
func authenticatePlain(t *testing.T, h *harness, lifetimeMs int64) {
	t.Helper()
	hs, _ := h.sel.LastSent(1)
	require.Equal(t, protocol.KeySaslHandshake, hs.Header.APIKey)
	h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{Mechanisms: []string{"PLAIN"}})
	require.Empty(t, h.poll())
	auth, _ := h.sel.LastSent(1)
	require.Equal(t, protocol.KeySaslAuthenticate, auth.Header.APIKey)
	h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{AuthBytes: []byte{}, SessionLifetimeMs: lifetimeMs})
}

// keys lists the API keys of the requests sent to node 1.
func keys(h *harness) []protocol.APIKey {
	var out []protocol.APIKey
	for _, s := range h.sel.Sent(1) {
		out = append(out, s.Header.APIKey)
	}
	return out
}

// A connection with a session lifetime re-authenticates at 90% of it
// (the injected jitter), on the same connection, only once its in-flight
// requests have completed, and sends nothing else meanwhile.
func TestReauthentication(t *testing.T) {
	h, conn := saslHarnessCfg(t, reauthConfig(network.PlainMechanism{Username: "u", Password: "p"}))
	authenticatePlain(t, h, 10_000)
	require.Empty(t, h.poll())
	require.True(t, h.c.IsReady(1, h.now()))
	assert.LessOrEqual(t, last(h.sel.PollTimeouts()), 9*time.Second, "Poll wakes up for the re-authentication")

	produce := h.send(1, produceRequest(), true, 0, nil)
	require.Empty(t, h.poll()) // the send completes
	h.advance(9*time.Second - time.Millisecond)
	assert.True(t, h.c.IsReady(1, h.now()), "not due yet")
	h.advance(time.Millisecond)
	assert.False(t, h.c.IsReady(1, h.now()), "due: no new request")
	assert.False(t, h.c.Ready(1, h.now()))
	require.Empty(t, h.poll())
	assert.Equal(t, network.Ready, h.c.ConnectionState(1), "waits for the in-flight request")
	before := keys(h)

	sent, _ := h.sel.LastSent(1)
	require.Equal(t, produce.CorrelationID, sent.Header.CorrelationID)
	h.sel.RespondTo(sent, &protocol.ProduceResponse{})
	responses := h.poll()
	require.Len(t, responses, 1)
	assert.Same(t, produce, responses[0].Request)
	assert.Equal(t, network.Authenticating, h.c.ConnectionState(1))
	assert.Equal(t, append(before, protocol.KeySaslHandshake), keys(h), "the handshake follows the last response")
	assert.ErrorIs(t, h.c.Send(h.c.NewClientRequest(1, produceRequest(), h.now(), true, 0, nil), h.now()), network.ErrNotReady)

	authenticatePlain(t, h, 10_000)
	require.Empty(t, h.poll())
	assert.Equal(t, network.Ready, h.c.ConnectionState(1))
	assert.True(t, h.c.IsReady(1, h.now()))
	assert.EqualValues(t, 1, h.c.Reauthentications())
	assert.False(t, h.sel.IsClosed(conn), "the same connection")
	assert.Len(t, connectsTo(h.sel, 1), 1)
	auths := h.sel.SentKey(1, protocol.KeySaslAuthenticate)
	require.Len(t, auths, 2)
	assert.Equal(t, auths[0].Body, auths[1].Body, "PLAIN sends its credentials again")

	// The next session is timed from the re-authentication.
	h.advance(9*time.Second - time.Millisecond)
	assert.True(t, h.c.IsReady(1, h.now()))
	h.advance(time.Millisecond)
	require.Empty(t, h.poll())
	assert.Equal(t, network.Authenticating, h.c.ConnectionState(1), "nothing in flight: at once")
}

// saslHarnessCfg is saslHarness with a whole config.
func saslHarnessCfg(t *testing.T, cfg network.Config) (*harness, network.ConnID) {
	t.Helper()
	h := newHarness(t, cfg, testNodes()...)
	require.False(t, h.c.Ready(1, h.now()))
	conn, _ := h.sel.LastConn(1)
	h.sel.CompleteConnect(conn)
	h.poll()
	sent, _ := h.sel.LastSent(1)
	h.sel.RespondTo(sent, networktest.DefaultApiVersions())
	require.Empty(t, h.poll())
	require.Equal(t, network.Authenticating, h.c.ConnectionState(1))
	return h, conn
}

func last[T any](s []T) T { return s[len(s)-1] }

// Without a session lifetime there is no re-authentication.
func TestNoReauthenticationWithoutLifetime(t *testing.T) {
	h, _ := saslHarnessCfg(t, reauthConfig(network.PlainMechanism{Username: "u", Password: "p"}))
	authenticatePlain(t, h, 0)
	require.Empty(t, h.poll())
	h.advance(1000 * time.Hour)
	require.Empty(t, h.poll())
	assert.True(t, h.c.IsReady(1, h.now()))
	assert.Len(t, h.sel.SentKey(1, protocol.KeySaslHandshake), 1)
}

// Every re-authentication runs a new session of the mechanism: SCRAM's
// rounds start over.
func TestReauthenticationMultiRound(t *testing.T) {
	var nodes []network.Node
	h, _ := saslHarnessCfg(t, reauthConfig(challengeMechanism{nodes: &nodes}))
	for round := range 3 {
		hs, _ := h.sel.LastSent(1)
		require.Equal(t, protocol.KeySaslHandshake, hs.Header.APIKey, "round %d", round)
		h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{})
		require.Empty(t, h.poll())
		auth, _ := h.sel.LastSent(1)
		h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{AuthBytes: []byte("server-first")})
		require.Empty(t, h.poll())
		auth, _ = h.sel.LastSent(1)
		h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{AuthBytes: []byte("server-final"), SessionLifetimeMs: 1000})
		require.Empty(t, h.poll())
		require.Equal(t, network.Ready, h.c.ConnectionState(1))
		h.advance(900 * time.Millisecond)
		require.Empty(t, h.poll())
	}
	assert.Len(t, nodes, 3, "one session per authentication")
	assert.EqualValues(t, 2, h.c.Reauthentications())
}

// A broker that closes the connection during a re-authentication (the
// session ended first) causes an ordinary disconnection: the node is
// retried, and its in-flight requests are failed as disconnected.
func TestReauthenticationClosedIsRetriable(t *testing.T) {
	h, conn := saslHarnessCfg(t, reauthConfig(network.PlainMechanism{Username: "u", Password: "p"}))
	authenticatePlain(t, h, 1000)
	require.Empty(t, h.poll())
	h.advance(900 * time.Millisecond)
	require.Empty(t, h.poll())
	require.Equal(t, network.Authenticating, h.c.ConnectionState(1))
	h.sel.Disconnect(conn, io.EOF)
	require.Empty(t, h.poll())
	assert.Equal(t, network.Disconnected, h.c.ConnectionState(1))
	assert.NoError(t, h.c.AuthenticationError(1))
	err := h.c.LastConnectionError(1)
	require.ErrorIs(t, err, network.ErrDisconnected)
	assert.NotErrorIs(t, err, network.ErrAuthentication)
	assert.Contains(t, err.Error(), "during re-authentication")
	h.advance(time.Second)
	assert.False(t, h.c.Ready(1, h.now()))
	assert.Len(t, connectsTo(h.sel, 1), 2, "reconnects")
}

// A broker that closes the connection because a request came after the
// session ended causes an ordinary disconnection too.
func TestSessionEndedDisconnectIsRetriable(t *testing.T) {
	h, conn := saslHarnessCfg(t, reauthConfig(network.PlainMechanism{Username: "u", Password: "p"}))
	authenticatePlain(t, h, 1000)
	require.Empty(t, h.poll())
	req := h.send(1, produceRequest(), true, 0, nil)
	h.sel.Disconnect(conn, io.EOF)
	responses := h.poll()
	require.Len(t, responses, 1)
	assert.Same(t, req, responses[0].Request)
	assert.True(t, responses[0].Disconnected)
	assert.Equal(t, network.Disconnected, h.c.ConnectionState(1))
	assert.NoError(t, h.c.AuthenticationError(1))
}

// A re-authentication the broker refuses is an authentication failure.
func TestReauthenticationRefused(t *testing.T) {
	h, conn := saslHarnessCfg(t, reauthConfig(network.PlainMechanism{Username: "u", Password: "p"}))
	authenticatePlain(t, h, 1000)
	require.Empty(t, h.poll())
	h.advance(900 * time.Millisecond)
	require.Empty(t, h.poll())
	hs, _ := h.sel.LastSent(1)
	h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{})
	require.Empty(t, h.poll())
	auth, _ := h.sel.LastSent(1)
	msg := "password changed"
	h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{ErrorCode: protocol.ErrSaslAuthenticationFailed.Code, ErrorMessage: &msg})
	require.Empty(t, h.poll())
	assertAuthFailed(t, h, conn, []error{protocol.ErrSaslAuthenticationFailed}, []string{msg})
}

// preparer is a SASLPreparer mechanism whose credentials the test makes
// ready or failed; its sessions send "cred".
type preparer struct {
	mu       sync.Mutex
	err      error
	wakers   map[network.Waker]int // Prepare calls per waker
	released []network.Waker
}

func newPreparer() *preparer {
	return &preparer{err: fmt.Errorf("%w: fetching a token: connection refused", network.ErrSASLPending), wakers: map[network.Waker]int{}}
}

func (p *preparer) Name() string { return "TEST-PREPARED" }

func (p *preparer) NewSession(network.Node) (network.SASLSession, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return nil, p.err
	}
	return &plainish{}, nil
}

func (p *preparer) Prepare(w network.Waker) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.wakers[w]++
	return p.err
}

func (p *preparer) Release(w network.Waker) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.released = append(p.released, w)
}

// set changes the credentials' state and wakes the clients.
func (p *preparer) set(err error) {
	p.mu.Lock()
	p.err = err
	var ws []network.Waker
	for w := range p.wakers {
		ws = append(ws, w)
	}
	p.mu.Unlock()
	for _, w := range ws {
		w.Wakeup()
	}
}

type plainish struct{ sent bool }

func (s *plainish) Step([]byte) ([]byte, bool, error) {
	if s.sent {
		return nil, true, nil
	}
	s.sent = true
	return []byte("cred"), true, nil
}

// The Client connects only once a SASLPreparer's credentials are ready,
// is woken when they become so, and releases them on Close.
func TestSASLPreparerGatesConnections(t *testing.T) {
	p := newPreparer()
	h := newHarness(t, reauthConfig(p), testNodes()...)
	assert.False(t, h.c.Ready(1, h.now()))
	h.poll()
	assert.Empty(t, h.sel.Connects(), "no connection without credentials")
	wakeups := h.sel.Wakeups()
	p.set(nil)
	assert.Equal(t, wakeups+1, h.sel.Wakeups(), "the Client was woken")
	assert.False(t, h.c.Ready(1, h.now()))
	require.Len(t, connectsTo(h.sel, 1), 1)
	h.c.Close()
	assert.Equal(t, []network.Waker{h.c}, p.released)
}

// Re-authentication waits for the credentials too.
func TestReauthenticationWaitsForCredentials(t *testing.T) {
	p := newPreparer()
	p.err = nil
	h := newHarness(t, reauthConfig(p), testNodes()...)
	require.False(t, h.c.Ready(1, h.now()))
	conn, _ := h.sel.LastConn(1)
	h.sel.CompleteConnect(conn)
	h.poll()
	sent, _ := h.sel.LastSent(1)
	h.sel.RespondTo(sent, networktest.DefaultApiVersions())
	h.poll()
	hs, _ := h.sel.LastSent(1)
	h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{})
	h.poll()
	auth, _ := h.sel.LastSent(1)
	h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{SessionLifetimeMs: 1000})
	h.poll()
	require.Equal(t, network.Ready, h.c.ConnectionState(1))

	p.set(fmt.Errorf("%w: refreshing the token", network.ErrSASLPending))
	h.advance(900 * time.Millisecond)
	h.poll()
	assert.Equal(t, network.Ready, h.c.ConnectionState(1))
	assert.False(t, h.c.IsReady(1, h.now()))
	assert.Len(t, h.sel.SentKey(1, protocol.KeySaslHandshake), 1, "waits")
	p.set(nil)
	h.poll()
	assert.Equal(t, network.Authenticating, h.c.ConnectionState(1))
	assert.Len(t, h.sel.SentKey(1, protocol.KeySaslHandshake), 2)
}

// Credentials that fail for good end the bootstrap at once, as an
// authentication failure of every node.
func TestSASLPreparerFinalError(t *testing.T) {
	p := newPreparer()
	p.err = errors.New("token endpoint https://idp/token: HTTP 401: invalid_client")
	h := newHarness(t, reauthConfig(p), network.Node{ID: -1, Host: "127.0.0.1", Port: 9092})
	h.poll()
	err := h.c.BootstrapError()
	require.Error(t, err)
	assert.ErrorIs(t, err, network.ErrAuthentication)
	assert.Equal(t, "authentication failed: SASL TEST-PREPARED: token endpoint https://idp/token: HTTP 401: invalid_client", err.Error())
	assert.Empty(t, h.sel.Connects())
	assert.ErrorIs(t, h.c.AuthenticationError(-1), network.ErrAuthentication)
}

// When the bootstrap timeout passes while the credentials are still
// awaited, the error says what was awaited.
func TestSASLPreparerBootstrapTimeout(t *testing.T) {
	p := newPreparer()
	cfg := reauthConfig(p)
	cfg.BootstrapTimeout = 2 * time.Second
	h := newHarness(t, cfg, network.Node{ID: -1, Host: "127.0.0.1", Port: 9092})
	h.poll()
	h.advance(2 * time.Second)
	h.poll()
	err := h.c.BootstrapError()
	require.Error(t, err)
	assert.ErrorIs(t, err, network.ErrSASLPending)
	assert.Equal(t, "cannot reach the cluster: no broker tried within 2s (--bootstrap-timeout): SASL TEST-PREPARED:"+
		" SASL credentials not ready: fetching a token: connection refused", err.Error())
}

// explaining is a PLAIN session that explains failures.
type explaining struct{ network.PlainMechanism }

func (m explaining) NewSession(n network.Node) (network.SASLSession, error) {
	s, err := m.PlainMechanism.NewSession(n)
	return explainingSession{s}, err
}

type explainingSession struct{ network.SASLSession }

func (explainingSession) ExplainFailure(err error) error {
	return fmt.Errorf("%w (the token: sub=app, exp in 5s)", err)
}

func TestSASLFailureExplained(t *testing.T) {
	h, conn := saslHarnessCfg(t, reauthConfig(explaining{network.PlainMechanism{Username: "u", Password: "p"}}))
	hs, _ := h.sel.LastSent(1)
	h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{})
	h.poll()
	auth, _ := h.sel.LastSent(1)
	msg := `{"status":"invalid_token"}`
	h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{ErrorCode: protocol.ErrSaslAuthenticationFailed.Code, ErrorMessage: &msg})
	h.poll()
	assertAuthFailed(t, h, conn, []error{protocol.ErrSaslAuthenticationFailed}, []string{msg + " (the token: sub=app, exp in 5s)"})
}

// Credentials that expire between Prepare and the session: the connection
// is closed and retried, not failed for good.
func TestSASLSessionPending(t *testing.T) {
	p := newPreparer()
	p.err = nil
	h := newHarness(t, reauthConfig(p), testNodes()...)
	require.False(t, h.c.Ready(1, h.now()))
	conn, _ := h.sel.LastConn(1)
	h.sel.CompleteConnect(conn)
	h.poll()
	sent, _ := h.sel.LastSent(1)
	h.sel.RespondTo(sent, networktest.DefaultApiVersions())
	h.poll()
	p.mu.Lock()
	p.err = fmt.Errorf("%w: the token expired", network.ErrSASLPending)
	p.mu.Unlock()
	hs, _ := h.sel.LastSent(1)
	h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{})
	h.poll()
	assert.True(t, h.sel.IsClosed(conn))
	assert.Equal(t, network.Disconnected, h.c.ConnectionState(1))
	assert.NoError(t, h.c.AuthenticationError(1))
}

// Short sessions re-authenticate with a second to spare, or half the
// session when it is shorter than two; long ones at the jitter's share.
func TestReauthenticationMargin(t *testing.T) {
	for _, tt := range []struct {
		lifetime, want time.Duration
	}{
		{100 * time.Second, 90 * time.Second},
		{10 * time.Second, 9 * time.Second},
		{5 * time.Second, 4 * time.Second},
		{2 * time.Second, time.Second},
		{700 * time.Millisecond, 350 * time.Millisecond},
	} {
		h, _ := saslHarnessCfg(t, reauthConfig(network.PlainMechanism{Username: "u", Password: "p"}))
		authenticatePlain(t, h, tt.lifetime.Milliseconds())
		require.Empty(t, h.poll())
		h.advance(tt.want - time.Millisecond)
		assert.True(t, h.c.IsReady(1, h.now()), "%v: not due before %v", tt.lifetime, tt.want)
		h.advance(time.Millisecond)
		assert.False(t, h.c.IsReady(1, h.now()), "%v: due at %v", tt.lifetime, tt.want)
	}
}
