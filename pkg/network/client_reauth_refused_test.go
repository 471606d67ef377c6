package network_test

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// Every broker refuses the re-authentication of its connection (the
// password changed): as in the Java client, each connection is closed,
// its requests in flight failed, and each broker failed for good with
// its refusal, which AuthenticationError tells; no notice repeats it,
// once per broker. A broker lost otherwise is still told.
func TestReauthenticationRefusedByEveryBrokerToldOnce(t *testing.T) {
	ns := &notices{}
	cfg := reauthConfig(network.PlainMechanism{Username: "u", Password: "p"})
	cfg.Notify = ns.add
	h := newHarness(t, cfg, testNodes()...)
	conns := map[int32]network.ConnID{}
	for _, node := range []int32{1, 2, 3} {
		conns[node] = handshake(t, h, node)
		auth, _ := h.sel.LastSent(node)
		h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{AuthBytes: []byte{}, SessionLifetimeMs: 10_000})
		require.Empty(t, h.poll())
		require.True(t, h.c.IsReady(node, h.now()))
	}
	produce := h.send(3, produceRequest(), true, 0, nil)

	h.advance(9 * time.Second)
	require.Empty(t, h.poll())
	msg := "Authentication failed: the password of u changed"
	refuse := func(node int32) {
		hs, _ := h.sel.LastSent(node)
		require.Equal(t, protocol.KeySaslHandshake, hs.Header.APIKey, "node %d re-authenticates", node)
		h.sel.RespondTo(hs, &protocol.SaslHandshakeResponse{})
		require.Empty(t, h.poll())
		auth, _ := h.sel.LastSent(node)
		h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{ErrorCode: protocol.ErrSaslAuthenticationFailed.Code, ErrorMessage: &msg})
		require.Empty(t, h.poll())
	}
	refuse(1)
	refuse(2)
	sent, _ := h.sel.LastSent(3)
	h.sel.RespondTo(sent, &protocol.ProduceResponse{})
	got := h.poll()
	require.Len(t, got, 1)
	assert.Same(t, produce, got[0].Request)
	refuse(3)

	for node, conn := range conns {
		assert.True(t, h.sel.IsClosed(conn), "node %d", node)
		assert.Equal(t, network.AuthenticationFailed, h.c.ConnectionState(node))
		err := h.c.AuthenticationError(node)
		require.ErrorIs(t, err, network.ErrAuthentication)
		assert.ErrorIs(t, err, protocol.ErrSaslAuthenticationFailed)
		assert.Contains(t, err.Error(), "127.0.0.1:909")
		assert.Contains(t, err.Error(), "authentication failed: SASL PLAIN: ")
		assert.Contains(t, err.Error(), msg)
	}
	assert.ErrorIs(t, h.md.LastError(), network.ErrAuthentication, "the metadata reports it too")
	assert.Empty(t, ns.got, "AuthenticationError alone tells the refusal")
	h.advance(time.Hour)
	h.poll()
	assert.Len(t, h.sel.Connects(), 3, "no broker is retried")
}

// A broker lost while the Client needs it is still told after another
// refused to authenticate it: only authentication failures go untold.
func TestNoticesAfterAuthenticationFailure(t *testing.T) {
	ns := &notices{}
	cfg := reauthConfig(network.PlainMechanism{Username: "u", Password: "p"})
	cfg.Notify = ns.add
	h := newHarness(t, cfg, testNodes()...)
	conn1 := handshake(t, h, 1)
	auth, _ := h.sel.LastSent(1)
	msg := "Authentication failed"
	h.sel.RespondTo(auth, &protocol.SaslAuthenticateResponse{ErrorCode: protocol.ErrSaslAuthenticationFailed.Code, ErrorMessage: &msg})
	require.Empty(t, h.poll())
	assert.True(t, h.sel.IsClosed(conn1))

	conn2 := handshake(t, h, 2)
	completeAuth(t, h, 2)
	h.send(2, produceRequest(), true, 0, nil)
	h.sel.Disconnect(conn2, io.EOF)
	require.Len(t, h.poll(), 1)
	require.Len(t, ns.got, 1)
	assert.Equal(t, network.NoticeBrokerDown, ns.got[0].Kind)
	assert.Equal(t, int32(2), ns.got[0].Node.ID)
	assert.False(t, ns.got[0].Final)
}
