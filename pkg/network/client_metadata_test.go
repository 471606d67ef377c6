package network_test

import (
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

func bootstrapNodes(n int) []network.Node {
	nodes := make([]network.Node, n)
	for i := range nodes {
		nodes[i] = network.Node{ID: int32(-1 - i), Host: "127.0.0.1", Port: int32(19092 + i)}
	}
	return nodes
}

// While bootstrapping, the Client connects to every bootstrap address at
// once, so one that hangs does not hold up the others for its connection
// setup timeout; the first that is ready gets the Metadata request.
func TestBootstrapFallbackAcrossBrokers(t *testing.T) {
	h := newHarness(t, baseConfig(), bootstrapNodes(3)...)
	h.md.AddTopic("t")
	updated := h.md.Updated()
	require.True(t, h.md.Fetch().IsBootstrap())

	require.Empty(t, h.poll())
	calls := h.sel.Connects()
	require.Len(t, calls, 3, "every bootstrap address at once")
	// The first two are dead.
	for _, call := range calls[:2] {
		h.sel.FailConnect(call.Conn, syscall.ECONNREFUSED)
	}
	require.Empty(t, h.poll())
	assert.ErrorIs(t, h.md.LastError(), syscall.ECONNREFUSED)
	select {
	case <-updated:
	default:
		t.Fatal("a failed fetch closes the Updated channel")
	}
	updated = h.md.Updated()
	// No busy loop: no reconnect within the backoff.
	require.Empty(t, h.poll())
	require.Len(t, h.sel.Connects(), 3)

	alive := calls[2].Node.ID
	h.sel.CompleteConnect(calls[2].Conn)
	require.Empty(t, h.poll()) // sends ApiVersions
	av, ok := h.sel.LastSent(alive)
	require.True(t, ok)
	h.sel.RespondTo(av, networktest.DefaultApiVersions())
	require.Empty(t, h.poll()) // ready
	h.advance(h.md.TimeToNextUpdate(h.now()))
	require.Empty(t, h.poll()) // metadata request
	md, ok := h.sel.LastSent(alive)
	require.True(t, ok)
	require.Equal(t, protocol.KeyMetadata, md.Header.APIKey)
	assert.Equal(t, int16(12), md.Header.APIVersion)
	req := md.Body.(*protocol.MetadataRequest)
	require.Len(t, req.Topics, 1)
	assert.Equal(t, "t", *req.Topics[0].Name)
	assert.False(t, h.c.Reached())

	h.sel.RespondTo(md, metadataResponse(testNodes(), map[string][]int32{"t": {1, 2, 3}}))
	require.Empty(t, h.poll(), "the metadata response is consumed internally")
	select {
	case <-updated:
	default:
		t.Fatal("an update closes the Updated channel")
	}
	assert.True(t, h.c.Reached())
	cluster := h.md.Fetch()
	assert.False(t, cluster.IsBootstrap())
	assert.Equal(t, testNodes(), cluster.Nodes())
	assert.Equal(t, 3, cluster.PartitionCount("t"))
	assert.NoError(t, h.md.LastError())
	assert.Equal(t, 1, h.md.UpdateVersion())

	// The bootstrap brokers left the metadata: forgotten, connection closed.
	assert.True(t, h.sel.IsClosed(calls[2].Conn))
	for _, n := range bootstrapNodes(3) {
		assert.Equal(t, network.Disconnected, h.c.ConnectionState(n.ID))
		assert.False(t, h.c.ConnectionFailed(n.ID), "no state left")
	}
	assert.Len(t, h.sel.Connects(), 3, "no connection to a bootstrap address after the metadata")
}

func TestMetadataRefreshThroughClient(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	h.connect(2, nil)
	require.True(t, h.c.IsReady(2, h.now()))

	h.md.RequestUpdate()
	assert.True(t, h.c.IsReady(2, h.now()), "no fetch within the refresh backoff of the last one")
	h.advance(network.DefaultRefreshBackoff / 2)
	h.md.AddTopic("t")
	assert.False(t, h.c.IsReady(2, h.now()), "a new topic's fetch is due at once and goes first")
	// The least loaded ready node gets the request.
	require.Empty(t, h.poll())
	sent := h.sel.SentKey(2, protocol.KeyMetadata)
	require.Len(t, sent, 1)
	assert.True(t, h.c.IsReady(2, h.now()), "fetch in flight: other requests may go")

	// Poll waits no longer than the fetch's request timeout.
	h.c.Poll(time.Hour, h.now())
	polls := h.sel.PollTimeouts()
	assert.Equal(t, network.DefaultRequestTimeout, polls[len(polls)-1])

	h.sel.RespondTo(sent[0], metadataResponse(testNodes(), map[string][]int32{"t": {2}}))
	require.Empty(t, h.poll())
	leader, ok := h.md.Fetch().LeaderFor("t", 0)
	require.True(t, ok)
	assert.Equal(t, int32(2), leader)

	// The metadata ages out after MaxAge.
	assert.Equal(t, network.DefaultMetadataMaxAge, h.md.TimeToNextUpdate(h.now()))
	h.advance(network.DefaultMetadataMaxAge)
	h.poll()
	assert.Len(t, h.sel.SentKey(2, protocol.KeyMetadata), 2)
}

func TestMetadataFetchFailures(t *testing.T) {
	tests := []struct {
		name string
		fail func(h *harness, sent networktest.SentRequest)
		is   error
	}{
		{
			name: "disconnect",
			fail: func(h *harness, sent networktest.SentRequest) { h.sel.Disconnect(sent.Conn, io.EOF) },
			is:   network.ErrDisconnected,
		},
		{
			name: "timeout",
			fail: func(h *harness, sent networktest.SentRequest) { h.advance(network.DefaultRequestTimeout) },
			is:   network.ErrRequestTimedOut,
		},
		{
			name: "malformed response",
			fail: func(h *harness, sent networktest.SentRequest) {
				payload := networktest.EncodeResponse(sent.Header.CorrelationID, protocol.KeyMetadata, sent.Header.APIVersion,
					metadataResponse(testNodes(), map[string][]int32{"t": {1}}))
				h.sel.Receive(sent.Conn, payload[:len(payload)-5])
			},
			is: protocol.ErrShortBuffer,
		},
		{
			name: "no brokers",
			fail: func(h *harness, sent networktest.SentRequest) { h.sel.RespondTo(sent, &protocol.MetadataResponse{}) },
			is:   network.ErrNoBrokersInMetadata,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, baseConfig(), testNodes()...)
			h.connect(1, nil)
			version := h.md.UpdateVersion()
			h.md.RequestUpdate()
			h.advance(network.DefaultRefreshBackoff)
			require.Empty(t, h.poll())
			sent := h.sel.SentKey(1, protocol.KeyMetadata)
			require.Len(t, sent, 1)
			tt.fail(h, sent[0])
			require.Empty(t, h.poll(), "internal requests are never returned")
			assert.ErrorIs(t, h.md.LastError(), tt.is)
			assert.Equal(t, version, h.md.UpdateVersion())
			assert.Equal(t, network.DefaultRefreshBackoff, h.md.TimeToNextUpdate(h.now()), "retried after the backoff")
		})
	}
}

// A broker without a usable Metadata version (older than Kafka 0.11) fails
// for good at its ApiVersions answer, naming both version ranges: every
// use of the cluster needs Metadata, so no retry can help.
func TestMetadataUnsupportedVersionIsFinal(t *testing.T) {
	for _, tt := range []struct {
		name     string
		versions *protocol.ApiVersionsResponse
		want     string
	}{
		{"too old", versionsWith(protocol.KeyMetadata, 0, 2),
			"Metadata: the broker supports v0-v2, kproduce speaks v4-v12 (the broker is too old); upgrade the broker (kproduce needs Kafka 0.11 or newer)"},
		{"missing", versionsWith(protocol.KeyMetadata, 0, -1),
			"the broker does not support Metadata (kproduce speaks v4-v12); upgrade the broker"},
		{"too new", versionsWith(protocol.KeyMetadata, 13, 20),
			"Metadata: the broker supports v13-v20, kproduce speaks v4-v12 (the broker is too new)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, baseConfig(), testNodes()...)
			require.False(t, h.c.Ready(1, h.now()))
			conn, _ := h.sel.LastConn(1)
			h.sel.CompleteConnect(conn)
			h.poll()
			sent, _ := h.sel.LastSent(1)
			h.sel.RespondTo(sent, tt.versions)
			require.Empty(t, h.poll())
			assert.True(t, h.sel.IsClosed(conn))
			assert.Equal(t, network.AuthenticationFailed, h.c.ConnectionState(1))
			err := h.c.AuthenticationError(1)
			assert.ErrorIs(t, err, network.ErrUnsupportedVersion)
			assert.Contains(t, err.Error(), tt.want)
			if tt.name == "too new" {
				assert.NotContains(t, err.Error(), "upgrade")
			}
			assert.Empty(t, h.sel.SentKey(1, protocol.KeyMetadata))
			h.advance(time.Minute)
			assert.False(t, h.c.Ready(1, h.now()))
			assert.Equal(t, 1, h.sel.ConnectCount(1), "never reconnected")
		})
	}
}

func TestDepartedNodeIsForgotten(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	conn3 := h.connect(3, nil)
	h.send(3, produceRequest(), true, 0, nil)
	h.poll()
	h.md.Update(metadataResponse(testNodes()[:2], nil), h.now())
	h.poll()
	assert.False(t, h.sel.IsClosed(conn3), "kept while a request is in flight")
	sent := h.sel.SentKey(3, protocol.KeyProduce)
	h.sel.RespondTo(sent[0], produceResponse(0))
	require.Len(t, h.poll(), 1)
	assert.True(t, h.sel.IsClosed(conn3))
	assert.Equal(t, network.Disconnected, h.c.ConnectionState(3))
	assert.False(t, h.c.Ready(3, h.now()), "an unknown node does not connect")
	assert.Len(t, connectsTo(h.sel, 3), 1)
}

func TestLeastLoadedNode(t *testing.T) {
	h := newHarness(t, baseConfig(), testNodes()...)
	// Nothing connected: the node that can connect and tried least
	// recently (never) comes first in scan order.
	id, ok := h.c.LeastLoadedNode(h.now())
	require.True(t, ok)
	assert.Equal(t, int32(1), id)

	// Node 1 backs off after a failure: skipped.
	require.False(t, h.c.Ready(1, h.now()))
	conn, _ := h.sel.LastConn(1)
	h.sel.FailConnect(conn, syscall.ECONNREFUSED)
	h.poll()
	id, _ = h.c.LeastLoadedNode(h.now())
	assert.Equal(t, int32(2), id)

	// A connection being set up beats one that could start.
	require.False(t, h.c.Ready(3, h.now()))
	id, _ = h.c.LeastLoadedNode(h.now())
	assert.Equal(t, int32(3), id)

	// A ready node beats both; the one with fewer requests in flight wins.
	h.connect(2, nil)
	c3, _ := h.sel.LastConn(3)
	h.sel.CompleteConnect(c3)
	h.poll()
	av, _ := h.sel.LastSent(3)
	h.sel.RespondTo(av, networktest.DefaultApiVersions())
	h.poll()
	require.Equal(t, network.Ready, h.c.ConnectionState(3))
	h.send(2, produceRequest(), true, 0, nil)
	h.poll()
	h.send(2, produceRequest(), true, 0, nil)
	h.send(3, produceRequest(), true, 0, nil)
	h.poll()
	id, _ = h.c.LeastLoadedNode(h.now())
	assert.Equal(t, int32(3), id)

	// All backing off: none.
	h2 := newHarness(t, baseConfig(), testNodes()...)
	for _, n := range testNodes() {
		require.False(t, h2.c.Ready(n.ID, h2.now()))
		conn, _ := h2.sel.LastConn(n.ID)
		h2.sel.FailConnect(conn, syscall.ECONNREFUSED)
	}
	h2.poll()
	_, ok = h2.c.LeastLoadedNode(h2.now())
	assert.False(t, ok)
	h2.advance(network.DefaultReconnectBackoff)
	_, ok = h2.c.LeastLoadedNode(h2.now())
	assert.True(t, ok)
}

func TestLeastLoadedNodeRandomStart(t *testing.T) {
	cfg := baseConfig()
	cfg.Rand = func(n int) int { return n - 1 }
	h := newHarness(t, cfg, testNodes()...)
	id, ok := h.c.LeastLoadedNode(h.now())
	require.True(t, ok)
	assert.Equal(t, int32(3), id, "ties keep the first node scanned")
}
