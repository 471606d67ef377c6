package network_test

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

func produceResponse(offset int64) *protocol.ProduceResponse {
	return &protocol.ProduceResponse{Topics: []protocol.ProduceResponseTopic{{
		Name: "t", Partitions: []protocol.ProduceResponsePartition{{Index: 0, BaseOffset: offset, LogAppendTimeMs: -1, LogStartOffset: 0}},
	}}}
}

func TestInFlightLimitAndNewestSendRule(t *testing.T) {
	cfg := baseConfig()
	cfg.MaxInFlightPerConnection = 3
	h := newHarness(t, cfg, testNodes()...)
	conn := h.connect(1, nil)
	h.sel.HoldSends(true)

	h.send(1, produceRequest(), true, 0, nil)
	assert.False(t, h.c.IsReady(1, h.now()), "the newest request is not written yet")
	err := h.c.Send(h.c.NewClientRequest(1, produceRequest(), h.now(), true, 0, nil), h.now())
	assert.ErrorIs(t, err, network.ErrNotReady)
	assert.Equal(t, 1, h.c.InFlightRequestCount(1))

	require.True(t, h.sel.CompleteSend(conn))
	require.Empty(t, h.poll())
	assert.True(t, h.c.IsReady(1, h.now()))

	h.send(1, produceRequest(), true, 0, nil)
	require.True(t, h.sel.CompleteSend(conn))
	h.poll()
	h.send(1, produceRequest(), true, 0, nil)
	require.True(t, h.sel.CompleteSend(conn))
	h.poll()
	assert.Equal(t, 3, h.c.InFlightRequestCount(1))
	assert.False(t, h.c.IsReady(1, h.now()), "max in flight reached although every send completed")

	sent := h.sel.SentKey(1, protocol.KeyProduce)
	require.Len(t, sent, 3)
	h.sel.RespondTo(sent[0], produceResponse(0))
	responses := h.poll()
	require.Len(t, responses, 1)
	assert.True(t, h.c.IsReady(1, h.now()))
	assert.Equal(t, 2, h.c.InFlightRequestCount(1))
	assert.True(t, h.c.HasInFlightRequests())
}

func TestResponsesMatchOldestRequest(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	h.connect(1, nil)
	reqs := make([]*network.ClientRequest, 3)
	for i := range reqs {
		reqs[i] = h.send(1, produceRequest(), true, 0, i)
		h.poll() // the send completes
	}
	sent := h.sel.SentKey(1, protocol.KeyProduce)
	require.Len(t, sent, 3)
	for i, s := range sent {
		assert.Equal(t, reqs[i].CorrelationID, s.Header.CorrelationID)
		assert.Equal(t, int16(11), s.Header.APIVersion, "newest version both speak")
		assert.Equal(t, int16(11), reqs[i].Version)
		h.sel.RespondTo(s, produceResponse(int64(100+i)))
	}
	responses := h.poll()
	require.Len(t, responses, 3)
	for i, resp := range responses {
		require.NoError(t, resp.Err)
		assert.Same(t, reqs[i], resp.Request)
		assert.Equal(t, i, resp.Request.Attachment)
		assert.False(t, resp.Disconnected)
		body, ok := resp.Body.(*protocol.ProduceResponse)
		require.True(t, ok)
		assert.Equal(t, int64(100+i), body.Topics[0].Partitions[0].BaseOffset)
		assert.Equal(t, h.now(), resp.ReceivedAt)
	}
	assert.False(t, h.c.HasInFlightRequests())
}

func TestCorrelationMismatchClosesConnection(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	conn := h.connect(1, nil)
	h.send(1, produceRequest(), true, 0, nil)
	h.poll()
	h.send(1, produceRequest(), true, 0, nil)
	h.poll()
	sent := h.sel.SentKey(1, protocol.KeyProduce)
	require.Len(t, sent, 2)
	h.sel.RespondTo(sent[1], produceResponse(1)) // answers the newer first
	h.sel.RespondTo(sent[0], produceResponse(0)) // never seen: the connection is gone

	responses := h.poll()
	require.Len(t, responses, 2)
	for _, resp := range responses {
		assert.True(t, resp.Disconnected)
		assert.Nil(t, resp.Body)
		assert.ErrorIs(t, resp.Err, network.ErrCorrelationMismatch)
		assert.ErrorIs(t, resp.Err, network.ErrDisconnected)
	}
	assert.Contains(t, responses[0].Err.Error(), "broker 1 (127.0.0.1:9091)")
	assert.Contains(t, responses[0].Err.Error(), "expected a response to Produce v11 with correlation id")
	assert.True(t, h.sel.IsClosed(conn))
	assert.Equal(t, network.Disconnected, h.c.ConnectionState(1))
}

func TestUnexpectedOrShortResponseClosesConnection(t *testing.T) {
	tests := []struct {
		name    string
		payload []byte
	}{
		{"response with nothing in flight", binary.BigEndian.AppendUint32(nil, 7)},
		{"payload shorter than a header", []byte{0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, baseConfig(), testNodes()...)
			conn := h.connect(1, nil)
			h.sel.Receive(conn, tt.payload)
			require.Empty(t, h.poll())
			assert.True(t, h.sel.IsClosed(conn))
			assert.Equal(t, network.Disconnected, h.c.ConnectionState(1))
		})
	}
}

func TestMalformedResponseBody(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	conn := h.connect(1, nil)
	req := h.send(1, produceRequest(), true, 0, nil)
	h.poll()
	var payload []byte
	payload = binary.BigEndian.AppendUint32(payload, uint32(req.CorrelationID))
	payload = append(payload, 0) // a flexible header's empty tag section, then nothing
	h.sel.Receive(conn, payload)
	responses := h.poll()
	require.Len(t, responses, 1)
	assert.Nil(t, responses[0].Body)
	assert.False(t, responses[0].Disconnected)
	require.Error(t, responses[0].Err)
	assert.ErrorIs(t, responses[0].Err, protocol.ErrShortBuffer)
	assert.Contains(t, responses[0].Err.Error(), "broker 1 (127.0.0.1:9091)")
	assert.Equal(t, network.Ready, h.c.ConnectionState(1), "the framing is intact: the connection stays")
}

func TestRequestTimeoutClosesConnection(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	conn := h.connect(1, nil)
	slow := h.send(1, produceRequest(), true, time.Second, "slow")
	h.poll()
	other := h.send(1, produceRequest(), true, 5*time.Second, "other")
	h.poll()

	h.advance(500 * time.Millisecond)
	require.Empty(t, h.c.Poll(time.Minute, h.now()))
	polls := h.sel.PollTimeouts()
	assert.Equal(t, 500*time.Millisecond, polls[len(polls)-1], "Poll waits until the first request deadline")

	h.advance(500 * time.Millisecond)
	responses := h.poll()
	require.Len(t, responses, 2)
	assert.Same(t, slow, responses[0].Request)
	assert.Same(t, other, responses[1].Request)
	for _, resp := range responses {
		assert.True(t, resp.TimedOut)
		assert.True(t, resp.Disconnected)
		assert.Nil(t, resp.Body)
		assert.ErrorIs(t, resp.Err, network.ErrRequestTimedOut)
	}
	assert.Contains(t, responses[0].Err.Error(), "broker 1 (127.0.0.1:9091): request timed out: no response to Produce v11")
	assert.Contains(t, responses[0].Err.Error(), "within 1s")
	assert.True(t, h.sel.IsClosed(conn))
	assert.Equal(t, network.Disconnected, h.c.ConnectionState(1))
	assert.False(t, h.c.HasInFlightRequests())
}

func TestAcksZeroCompletesAtSend(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	conn := h.connect(1, nil)
	h.sel.HoldSends(true)
	body := produceRequest()
	body.Acks = 0
	req := h.send(1, body, false, 0, "fire and forget")
	require.Empty(t, h.poll(), "not written yet")
	assert.Equal(t, 1, h.c.InFlightRequestCount(1))

	require.True(t, h.sel.CompleteSend(conn))
	responses := h.poll()
	require.Len(t, responses, 1)
	assert.Same(t, req, responses[0].Request)
	assert.Nil(t, responses[0].Body)
	assert.NoError(t, responses[0].Err)
	assert.False(t, responses[0].Disconnected)
	assert.Equal(t, 0, h.c.InFlightRequestCount(1))
}

func TestAcksZeroBetweenAnsweredRequests(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	h.connect(1, nil)
	first := h.send(1, produceRequest(), true, 0, "acks=1")
	h.poll()
	body := produceRequest()
	body.Acks = 0
	h.send(1, body, false, 0, "acks=0")
	responses := h.poll()
	require.Len(t, responses, 1)
	assert.Equal(t, "acks=0", responses[0].Request.Attachment)

	// The broker answers only the acks=1 request; it still matches.
	sent := h.sel.SentKey(1, protocol.KeyProduce)
	h.sel.RespondTo(sent[0], produceResponse(9))
	responses = h.poll()
	require.Len(t, responses, 1)
	assert.Same(t, first, responses[0].Request)
	require.NoError(t, responses[0].Err)
}

func TestVersionSelection(t *testing.T) {
	tests := []struct {
		name     string
		versions *protocol.ApiVersionsResponse
		want     int16
		err      string
	}{
		{name: "newer broker", versions: versionsWith(protocol.KeyProduce, 0, 13), want: 11},
		{name: "older broker", versions: versionsWith(protocol.KeyProduce, 0, 8), want: 8},
		{name: "broker at our floor", versions: versionsWith(protocol.KeyProduce, 3, 3), want: 3},
		{
			name:     "broker too old",
			versions: versionsWith(protocol.KeyProduce, 0, 2),
			err:      "broker 1 (127.0.0.1:9091): unsupported api version: Produce: the broker supports v0-v2, kproduce speaks v3-v11 (the broker is too old)",
		},
		{
			name:     "broker too new",
			versions: versionsWith(protocol.KeyProduce, 12, 14),
			err:      "broker 1 (127.0.0.1:9091): unsupported api version: Produce: the broker supports v12-v14, kproduce speaks v3-v11 (the broker is too new)",
		},
		{
			name:     "broker without the api",
			versions: versionsWith(protocol.KeyProduce, 0, -1),
			err:      "broker 1 (127.0.0.1:9091): unsupported api version: the broker does not support Produce (kproduce speaks v3-v11)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, baseConfig(), testNodes()...)
			h.connect(1, tt.versions)
			req := h.send(1, produceRequest(), true, 0, nil)
			if tt.err == "" {
				require.Empty(t, h.poll())
				sent := h.sel.SentKey(1, protocol.KeyProduce)
				require.Len(t, sent, 1)
				assert.Equal(t, tt.want, sent[0].Header.APIVersion)
				return
			}
			polls := len(h.sel.PollTimeouts())
			responses := h.c.Poll(time.Hour, h.now())
			assert.Len(t, h.sel.PollTimeouts(), polls, "returned at once, without waiting for I/O")
			require.Len(t, responses, 1)
			assert.Same(t, req, responses[0].Request)
			assert.ErrorIs(t, responses[0].Err, network.ErrUnsupportedVersion)
			assert.EqualError(t, responses[0].Err, tt.err)
			assert.Empty(t, h.sel.SentKey(1, protocol.KeyProduce), "nothing goes on the wire")
			assert.Equal(t, 0, h.c.InFlightRequestCount(1))
			assert.True(t, h.c.IsReady(1, h.now()))
		})
	}
}

func TestThrottle(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	h.connect(1, nil)
	h.send(1, produceRequest(), true, 0, nil)
	h.poll()
	sent, _ := h.sel.LastSent(1)
	resp := produceResponse(0)
	resp.ThrottleTimeMs = 300
	h.sel.RespondTo(sent, resp)
	require.Len(t, h.poll(), 1)
	assert.False(t, h.c.IsReady(1, h.now()))
	assert.Equal(t, 300*time.Millisecond, h.c.ConnectionDelay(1, h.now()))
	h.advance(299 * time.Millisecond)
	assert.False(t, h.c.IsReady(1, h.now()))
	h.advance(time.Millisecond)
	assert.True(t, h.c.IsReady(1, h.now()))
}

func TestResponseBeforeSendCompletion(t *testing.T) {
	// A connection's reader and writer race: the response to a request may
	// be reported before its send completion.
	h := newHarness(t, baseConfig(), testNodes()...)
	conn := h.connect(1, nil)
	h.sel.HoldSends(true)
	first := h.send(1, produceRequest(), true, 0, "first")
	sent, _ := h.sel.LastSent(1)
	h.sel.RespondTo(sent, produceResponse(1))
	responses := h.poll()
	require.Len(t, responses, 1)
	assert.Same(t, first, responses[0].Request)
	require.NoError(t, responses[0].Err)

	h.send(1, produceRequest(), true, 0, "second")
	assert.False(t, h.c.IsReady(1, h.now()))
	// The late completion belongs to the first request, not to the second.
	require.True(t, h.sel.CompleteSend(conn))
	require.Empty(t, h.poll())
	assert.False(t, h.c.IsReady(1, h.now()), "the second request is still being written")
	require.True(t, h.sel.CompleteSend(conn))
	require.Empty(t, h.poll())
	assert.True(t, h.c.IsReady(1, h.now()))
}
