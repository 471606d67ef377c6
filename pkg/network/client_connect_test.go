package network_test

import (
	"errors"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

func TestConnectionStateMachine(t *testing.T) {
	cfg := baseConfig()
	cfg.SoftwareName, cfg.SoftwareVersion = "kproduce", "1.2.3"
	cfg.ClientID = "my-client"
	h := newHarness(t, cfg, testNodes()...)

	assert.Equal(t, network.Disconnected, h.c.ConnectionState(1))
	assert.False(t, h.c.ConnectionFailed(1), "never connected is not failed")
	assert.Equal(t, time.Duration(0), h.c.ConnectionDelay(1, h.now()))

	require.False(t, h.c.Ready(1, h.now()))
	connects := connectsTo(h.sel, 1)
	require.Len(t, connects, 1)
	assert.Equal(t, testNodes()[0], connects[0].Node)
	assert.Equal(t, network.DefaultConnectionSetupTimeout, connects[0].Timeout)
	assert.Equal(t, network.Connecting, h.c.ConnectionState(1))
	assert.Equal(t, network.DefaultConnectionSetupTimeout, h.c.ConnectionDelay(1, h.now()))

	// Ready again while connecting starts nothing new.
	require.False(t, h.c.Ready(1, h.now()))
	assert.Len(t, h.sel.Connects(), 1)

	h.sel.CompleteConnect(connects[0].Conn)
	require.Empty(t, h.poll())
	assert.Equal(t, network.CheckingAPIVersions, h.c.ConnectionState(1))
	sent := h.sel.Sent(1)
	require.Len(t, sent, 1)
	require.NoError(t, sent[0].Err)
	assert.Equal(t, protocol.KeyApiVersions, sent[0].Header.APIKey)
	assert.Equal(t, int16(3), sent[0].Header.APIVersion)
	require.NotNil(t, sent[0].Header.ClientID)
	assert.Equal(t, "my-client", *sent[0].Header.ClientID)
	assert.Equal(t, &protocol.ApiVersionsRequest{ClientSoftwareName: "kproduce", ClientSoftwareVersion: "1.2.3"}, sent[0].Body)
	assert.False(t, h.c.IsReady(1, h.now()))
	assert.Equal(t, 1, h.c.InFlightRequestCount(1))

	h.sel.RespondTo(sent[0], networktest.DefaultApiVersions())
	require.Empty(t, h.poll(), "internal responses are never returned")
	assert.Equal(t, network.Ready, h.c.ConnectionState(1))
	assert.True(t, h.c.IsReady(1, h.now()))
	assert.True(t, h.c.Ready(1, h.now()))
	assert.Equal(t, 0, h.c.InFlightRequestCount(1))
	assert.False(t, h.c.HasInFlightRequests())
	assert.Len(t, h.sel.Connects(), 1)
}

func TestApiVersionsFallback(t *testing.T) {
	tests := []struct {
		name     string
		fallback *protocol.ApiVersionsResponse // v0-format error answer to v3
		retryAt  int16
	}{
		{
			name: "broker announces its ApiVersions range",
			fallback: &protocol.ApiVersionsResponse{ErrorCode: 35, ApiKeys: []protocol.ApiVersionsResponseKey{
				{ApiKey: int16(protocol.KeyApiVersions), MinVersion: 0, MaxVersion: 2},
			}},
			retryAt: 2,
		},
		{
			name:     "old broker without ranges: retry at v0",
			fallback: &protocol.ApiVersionsResponse{ErrorCode: 35},
			retryAt:  0,
		},
		{
			name: "broker claims our version: never loop",
			fallback: &protocol.ApiVersionsResponse{ErrorCode: 35, ApiKeys: []protocol.ApiVersionsResponseKey{
				{ApiKey: int16(protocol.KeyApiVersions), MinVersion: 0, MaxVersion: 9},
			}},
			retryAt: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, baseConfig(), testNodes()...)
			require.False(t, h.c.Ready(1, h.now()))
			conn, _ := h.sel.LastConn(1)
			h.sel.CompleteConnect(conn)
			h.poll()
			first, _ := h.sel.LastSent(1)
			require.Equal(t, int16(3), first.Header.APIVersion)
			// The broker answers in the v0 layout whatever the request version.
			h.sel.Respond(conn, first.Header.CorrelationID, protocol.KeyApiVersions, 0, tt.fallback)
			require.Empty(t, h.poll())

			retry, _ := h.sel.LastSent(1)
			require.Equal(t, protocol.KeyApiVersions, retry.Header.APIKey)
			assert.Equal(t, tt.retryAt, retry.Header.APIVersion)
			assert.NotEqual(t, first.Header.CorrelationID, retry.Header.CorrelationID)
			assert.Equal(t, network.CheckingAPIVersions, h.c.ConnectionState(1))

			// An old broker: Produce up to v7, Metadata up to v8.
			versions := versionsWith(protocol.KeyProduce, 0, 7)
			versions = mergeVersions(versions, versionsWith(protocol.KeyMetadata, 0, 8))
			h.sel.RespondTo(retry, versions)
			require.Empty(t, h.poll())
			require.True(t, h.c.IsReady(1, h.now()))

			h.send(1, produceRequest(), true, 0, nil)
			produce, _ := h.sel.LastSent(1)
			require.NoError(t, produce.Err)
			assert.Equal(t, int16(7), produce.Header.APIVersion)
		})
	}
}

// mergeVersions takes the Metadata range of b into a.
func mergeVersions(a, b *protocol.ApiVersionsResponse) *protocol.ApiVersionsResponse {
	if r, ok := b.Find(protocol.KeyMetadata); ok {
		for i := range a.ApiKeys {
			if a.ApiKeys[i].ApiKey == int16(protocol.KeyMetadata) {
				a.ApiKeys[i].MinVersion, a.ApiKeys[i].MaxVersion = r.Min, r.Max
			}
		}
	}
	return a
}

// An ApiVersions answer with an error other than UNSUPPORTED_VERSION, or
// one that cannot be read, would be the same on a new connection: the
// node fails for good instead of reconnecting in a loop.
func TestApiVersionsErrorIsFinal(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	require.False(t, h.c.Ready(1, h.now()))
	conn, _ := h.sel.LastConn(1)
	h.sel.CompleteConnect(conn)
	h.poll()
	sent, _ := h.sel.LastSent(1)
	h.sel.RespondTo(sent, &protocol.ApiVersionsResponse{ErrorCode: int16(protocol.ErrInvalidRequest.Code)})
	require.Empty(t, h.poll())
	assert.True(t, h.sel.IsClosed(conn))
	assert.Equal(t, network.AuthenticationFailed, h.c.ConnectionState(1))
	err := h.c.AuthenticationError(1)
	assert.ErrorIs(t, err, protocol.ErrInvalidRequest)
	assert.ErrorIs(t, err, network.ErrUnsupportedVersion)
	assert.Contains(t, err.Error(), "broker 1 (127.0.0.1:9091): unsupported api version: ApiVersions v3: INVALID_REQUEST")
	h.advance(time.Minute)
	assert.False(t, h.c.Ready(1, h.now()))
	assert.Equal(t, 1, h.sel.ConnectCount(1), "never reconnected")
}

func TestApiVersionsMalformedResponseIsFinal(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	require.False(t, h.c.Ready(1, h.now()))
	conn, _ := h.sel.LastConn(1)
	h.sel.CompleteConnect(conn)
	h.poll()
	sent, _ := h.sel.LastSent(1)
	payload := networktest.EncodeResponse(sent.Header.CorrelationID, protocol.KeyApiVersions, 3, networktest.DefaultApiVersions())
	h.sel.Receive(conn, payload[:len(payload)-3]) // truncated
	require.Empty(t, h.poll())
	assert.True(t, h.sel.IsClosed(conn))
	assert.Equal(t, network.AuthenticationFailed, h.c.ConnectionState(1))
	err := h.c.AuthenticationError(1)
	assert.ErrorIs(t, err, protocol.ErrShortBuffer)
	assert.Contains(t, err.Error(), "broker 1 (127.0.0.1:9091): the broker's ApiVersions answer cannot be read (is this a Kafka broker?)")
	h.advance(time.Minute)
	assert.False(t, h.c.Ready(1, h.now()))
	assert.Equal(t, 1, h.sel.ConnectCount(1), "never reconnected")
}

func TestReconnectBackoff(t *testing.T) {
	tests := []struct {
		name   string
		jitter float64
		want   []time.Duration
	}{
		{"no jitter", 1, []time.Duration{50, 100, 200, 400, 800, 1000, 1000}},
		{"jitter up is capped", 1.2, []time.Duration{60, 120, 240, 480, 960, 1000, 1000}},
		{"jitter down", 0.8, []time.Duration{40, 80, 160, 320, 640, 800, 800}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.Jitter = fixedJitter(tt.jitter)
			h := newHarness(t, cfg, testNodes()...)
			refused := syscall.ECONNREFUSED
			for i, want := range tt.want {
				want *= time.Millisecond
				require.False(t, h.c.Ready(1, h.now()))
				require.Equal(t, i+1, h.sel.ConnectCount(1), "attempt %d", i)
				conn, _ := h.sel.LastConn(1)
				h.sel.FailConnect(conn, refused)
				require.Empty(t, h.poll())
				require.True(t, h.c.ConnectionFailed(1))
				require.Equal(t, want, h.c.ConnectionDelay(1, h.now()), "attempt %d", i)

				// No busy loop: nothing happens until the backoff has passed.
				h.advance(want - time.Nanosecond)
				require.False(t, h.c.Ready(1, h.now()))
				require.Equal(t, i+1, h.sel.ConnectCount(1))
				require.Equal(t, time.Nanosecond, h.c.ConnectionDelay(1, h.now()))
				h.advance(time.Nanosecond)
			}
		})
	}
}

func TestReconnectBackoffResetsWhenReady(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	for range 3 {
		require.False(t, h.c.Ready(1, h.now()))
		conn, _ := h.sel.LastConn(1)
		h.sel.FailConnect(conn, syscall.ECONNREFUSED)
		h.poll()
		h.advance(h.c.ConnectionDelay(1, h.now()))
	}
	conn := h.connect(1, nil)
	h.sel.Disconnect(conn, io.EOF)
	h.poll()
	assert.Equal(t, network.DefaultReconnectBackoff, h.c.ConnectionDelay(1, h.now()))
}

func TestConnectionSetupTimeout(t *testing.T) {
	cfg := baseConfig()
	cfg.ConnectionSetupTimeout = 10 * time.Second
	cfg.ConnectionSetupTimeoutMax = 30 * time.Second
	h := newHarness(t, cfg, testNodes()...)
	for i, want := range []time.Duration{10, 20, 30, 30} {
		want *= time.Second
		require.False(t, h.c.Ready(1, h.now()))
		calls := connectsTo(h.sel, 1)
		require.Len(t, calls, i+1)
		last := calls[len(calls)-1]
		require.Equal(t, want, last.Timeout, "attempt %d", i)

		h.advance(want / 2)
		require.Empty(t, h.poll())
		polls := h.sel.PollTimeouts()
		assert.LessOrEqual(t, polls[len(polls)-1], want/2, "poll waits no longer than the setup deadline")
		require.False(t, h.sel.IsClosed(last.Conn))

		h.advance(want / 2)
		require.Empty(t, h.poll())
		require.True(t, h.sel.IsClosed(last.Conn), "attempt %d", i)
		require.Equal(t, network.Disconnected, h.c.ConnectionState(1))
		h.advance(h.c.ConnectionDelay(1, h.now()))
	}
}

// connectsTo returns the Connect calls for node.
func connectsTo(sel *networktest.MockSelector, node int32) []networktest.ConnectCall {
	var out []networktest.ConnectCall
	for _, c := range sel.Connects() {
		if c.Node.ID == node {
			out = append(out, c)
		}
	}
	return out
}

func TestDisconnectFailsInFlightRequests(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	conn := h.connect(1, nil)
	r1 := h.send(1, produceRequest(), true, 0, "a")
	h.poll() // sends complete
	r2 := h.send(1, produceRequest(), true, 0, "b")
	h.sel.Disconnect(conn, io.EOF)
	responses := h.poll()
	require.Len(t, responses, 2)
	for i, want := range []*network.ClientRequest{r1, r2} {
		resp := responses[i]
		assert.Same(t, want, resp.Request)
		assert.True(t, resp.Disconnected)
		assert.False(t, resp.TimedOut)
		assert.Nil(t, resp.Body)
		assert.ErrorIs(t, resp.Err, network.ErrDisconnected)
		assert.ErrorIs(t, resp.Err, io.EOF)
		assert.Equal(t, "broker 1 (127.0.0.1:9091): disconnected: EOF", resp.Err.Error())
	}
	assert.Equal(t, "a", responses[0].Request.Attachment)
	assert.Equal(t, network.Disconnected, h.c.ConnectionState(1))
	assert.True(t, h.sel.IsClosed(conn))
	assert.Equal(t, 0, h.c.InFlightRequestCount(1))
	// The disconnect may mean stale metadata: an update is requested.
	assert.LessOrEqual(t, h.md.TimeToNextUpdate(h.now()), network.DefaultRefreshBackoff)
}

func TestConnectFailureErrorNamesBroker(t *testing.T) {
	h := newHarness(t, baseConfig(), network.Node{ID: -1, Host: "::1", Port: 9092})
	h.poll() // a metadata fetch is due: connects to the bootstrap broker
	conn, ok := h.sel.LastConn(-1)
	require.True(t, ok)
	h.sel.FailConnect(conn, syscall.ECONNREFUSED)
	h.poll()
	err := h.md.LastError()
	require.Error(t, err)
	assert.ErrorIs(t, err, network.ErrDisconnected)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	assert.Equal(t, "bootstrap broker [::1]:9092: disconnected: cannot connect: connection refused"+
		" (is a broker listening there? check the host and port)", err.Error())
}

func TestUnknownNodeIsNeverReady(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	assert.False(t, h.c.Ready(42, h.now()))
	assert.Empty(t, h.sel.Connects())
	req := h.c.NewClientRequest(42, produceRequest(), h.now(), true, 0, nil)
	err := h.c.Send(req, h.now())
	assert.ErrorIs(t, err, network.ErrNotReady)
}

func TestCloseClient(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	h.connect(1, nil)
	h.send(1, produceRequest(), true, 0, nil)
	h.c.Close()
	assert.True(t, h.sel.ClosedAll())
	assert.Nil(t, h.poll())
	assert.False(t, h.c.Ready(1, h.now()))
	err := h.c.Send(h.c.NewClientRequest(1, produceRequest(), h.now(), true, 0, nil), h.now())
	assert.True(t, errors.Is(err, network.ErrClientClosed))
	h.c.Close() // idempotent
}

func TestWakeup(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	h.c.Wakeup()
	assert.Equal(t, 1, h.sel.Wakeups())
	h.md.RequestUpdate() // from another goroutine, this must wake Poll
	assert.Equal(t, 2, h.sel.Wakeups())
	h.md.AddTopic("t")
	assert.Equal(t, 3, h.sel.Wakeups())
	h.md.AddTopic("t") // known topic: nothing to do
	assert.Equal(t, 3, h.sel.Wakeups())
}

// TestSetupRequestTimesOutAtSetupTimeout: a peer that accepts the
// connection but never answers ApiVersions (an HTTP server waiting for a
// request line) is given up on after the connection setup timeout, not
// the much longer request timeout.
func TestSetupRequestTimesOutAtSetupTimeout(t *testing.T) {
	cfg := baseConfig()
	cfg.ConnectionSetupTimeout = 2 * time.Second
	cfg.RequestTimeout = 30 * time.Second
	h := newHarness(t, cfg, testNodes()...)
	require.False(t, h.c.Ready(1, h.now()))
	conn, ok := h.sel.LastConn(1)
	require.True(t, ok)
	h.sel.CompleteConnect(conn)
	require.Empty(t, h.poll())
	sent, ok := h.sel.LastSent(1)
	require.True(t, ok)
	require.Equal(t, protocol.KeyApiVersions, sent.Header.APIKey)
	h.advance(2*time.Second - time.Millisecond)
	h.poll()
	require.False(t, h.sel.IsClosed(conn), "still within the setup timeout")
	h.advance(time.Millisecond)
	h.poll()
	assert.True(t, h.sel.IsClosed(conn), "ApiVersions unanswered after the setup timeout")
	assert.NotEqual(t, network.Ready, h.c.ConnectionState(1))
}
