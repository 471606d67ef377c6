package network_test

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// hugeMetadata is a Metadata v12 response to correlationID whose broker,
// topic or partition array claims a billion entries with nothing after.
func hugeMetadata(correlationID int32, what string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(correlationID))
	b = append(b, 0)          // header tagged fields
	b = append(b, 0, 0, 0, 0) // throttle_time_ms
	billion := uint64(1_000_000_000 + 1)
	if what == "brokers" {
		return binary.AppendUvarint(b, billion)
	}
	b = append(b, 1)          // no brokers
	b = append(b, 0)          // cluster id null
	b = append(b, 0, 0, 0, 0) // controller id
	if what == "topics" {
		return binary.AppendUvarint(b, billion)
	}
	b = append(b, 2)                   // one topic
	b = append(b, 0, 0)                // error code
	b = append(b, 2, 't')              // name "t"
	b = append(b, make([]byte, 16)...) // topic id
	b = append(b, 0)                   // not internal
	return binary.AppendUvarint(b, billion)
}

// A Metadata response that cannot be decoded is a final failure of its
// broker, told at once: the bootstrap ends in the Poll that received it,
// with the decode error, not at the bootstrap timeout blaming the address.
func TestMetadataUndecodableIsFinal(t *testing.T) {
	for _, what := range []string{"brokers", "topics", "partitions"} {
		t.Run(what, func(t *testing.T) {
			cfg := baseConfig()
			cfg.BootstrapTimeout = time.Minute
			h := newHarness(t, cfg, bootstrapNodes(1)...)
			h.md.AddTopic("t")
			h.poll()
			calls := h.sel.Connects()
			require.Len(t, calls, 1)
			node := calls[0].Node.ID
			h.sel.CompleteConnect(calls[0].Conn)
			h.poll()
			av, ok := h.sel.LastSent(node)
			require.True(t, ok)
			h.sel.RespondTo(av, networktest.DefaultApiVersions())
			h.poll()
			h.advance(h.md.TimeToNextUpdate(h.now()))
			h.poll()
			md, ok := h.sel.LastSent(node)
			require.True(t, ok)
			require.Equal(t, protocol.KeyMetadata, md.Header.APIKey)
			h.sel.Receive(calls[0].Conn, hugeMetadata(md.Header.CorrelationID, what))
			h.poll()

			assert.True(t, h.sel.IsClosed(calls[0].Conn), "the connection is closed")
			assert.Equal(t, network.AuthenticationFailed, h.c.ConnectionState(node), "the broker is not used again")
			require.Error(t, h.md.LastError())
			assert.ErrorIs(t, h.md.LastError(), network.ErrMalformedResponse)
			assert.Contains(t, h.md.LastError().Error(), "Metadata v12")
			t.Log(h.md.LastError())
			var boot *network.BootstrapError
			require.ErrorAs(t, h.c.BootstrapError(), &boot, "the bootstrap ends in the same Poll, a minute before its timeout")
			assert.ErrorIs(t, boot, network.ErrMalformedResponse)
			assert.NotContains(t, boot.Error(), "Kafka listener?")
			before := len(h.sel.Connects())
			h.advance(h.md.TimeToNextUpdate(h.now()) + 10*baseConfig().ReconnectBackoff)
			h.poll()
			for _, c := range h.sel.Connects()[before:] {
				assert.NotEqual(t, node, c.Node.ID, "no reconnect to the broker that sent it")
			}
		})
	}
}

// A response frame too short to hold a correlation id is called what it
// is, not a correlation id mismatch; the connection closes and the request
// in flight fails with that cause.
func TestShortResponseFrame(t *testing.T) {
	for n, want := range map[int]string{0: "the broker sent an empty frame (size 0)", 3: "a frame of 3 bytes, too short for a response header"} {
		h := newHarness(t, baseConfig(), testNodes()...)
		conn := h.connect(1, nil)
		req := h.send(1, produceRequest(), true, time.Minute, nil)
		h.sel.Receive(conn, make([]byte, n))
		responses := h.poll()
		require.Len(t, responses, 1)
		assert.Same(t, req, responses[0].Request)
		err := responses[0].Err
		require.Error(t, err)
		assert.ErrorIs(t, err, network.ErrMalformedResponse)
		assert.NotErrorIs(t, err, network.ErrCorrelationMismatch)
		assert.Contains(t, err.Error(), want)
		assert.NotContains(t, err.Error(), "correlation id mismatch")
		assert.True(t, h.sel.IsClosed(conn))
	}
}
