package main

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// badReply is a broken answer a hostile peer gives to one request.
type badReply struct {
	name string
	// reply writes the broken answer to the request with header h; false
	// closes the connection.
	reply func(c *peerConn, h *protocol.RequestHeader, req protocol.Request) bool
	// cause matches what the reason of a failed record says about it.
	cause string
}

// badReplies are the broken answers every stage is tested with.
func badReplies() []badReply {
	return []badReply{
		{"random frame", func(c *peerConn, _ *protocol.RequestHeader, _ protocol.Request) bool {
			rng := rand.New(rand.NewPCG(1, 2))
			payload := make([]byte, 64)
			for i := range payload {
				payload[i] = byte(rng.UintN(256))
			}
			return c.writeRaw(frameOf(int32(len(payload)), payload))
		}, `correlation id`},
		{"truncated frame", func(c *peerConn, h *protocol.RequestHeader, _ protocol.Request) bool {
			// The right correlation id and a few bytes of the 100 announced.
			payload := binary.BigEndian.AppendUint32(nil, uint32(h.CorrelationID))
			c.writeRaw(frameOf(100, append(payload, 1, 2, 3, 4, 5, 6)))
			return false
		}, `in the middle of a response`},
		{"frame size -1", func(c *peerConn, _ *protocol.RequestHeader, _ protocol.Request) bool {
			c.writeRaw(frameOf(-1, nil))
			return false
		}, `invalid frame size: negative size -1`},
		{"frame size 2^31-1", func(c *peerConn, _ *protocol.RequestHeader, _ protocol.Request) bool {
			c.writeRaw(frameOf(math.MaxInt32, []byte("a lie")))
			return true // and keep the connection open: the client must not wait for 2 GiB
		}, `invalid frame size: size 2147483647 exceeds the limit`},
		{"wrong correlation id", func(c *peerConn, h *protocol.RequestHeader, req protocol.Request) bool {
			return c.respondAs(h, h.CorrelationID+1000, req.NewResponse())
		}, `correlation id`},
	}
}

// misbehavingPeer answers like a one-broker cluster (ApiVersions,
// Metadata naming itself leader of 6 partitions, InitProducerId) except
// that requests of key get bad instead; a Produce that gets through is
// answered with an error, so nothing is ever delivered.
func misbehavingPeer(t *testing.T, key protocol.APIKey, bad badReply) *fakePeer {
	t.Helper()
	return newClusterPeer(t, peerAnswers{intercept: func(c *peerConn, h *protocol.RequestHeader, req protocol.Request) (bool, bool) {
		if h.APIKey == key {
			return bad.reply(c, h, req), true
		}
		return false, false
	}})
}

// TestPeersBrokenFrames: a peer that answers ApiVersions, Metadata or
// Produce with a broken frame (random bytes, cut short, a size of -1 or
// of 2 GiB, another request's correlation id). kproduce must not panic,
// hang or allocate what the size prefix claims: each record fails once,
// with its position, by the delivery timeout, and the reason names the
// broker's address and what was wrong.
func TestPeersBrokenFrames(t *testing.T) {
	t.Parallel()
	for _, key := range []protocol.APIKey{protocol.KeyApiVersions, protocol.KeyMetadata, protocol.KeyProduce} {
		for _, bad := range badReplies() {
			t.Run(key.String()+"/"+bad.name, func(t *testing.T) {
				t.Parallel()
				p := misbehavingPeer(t, key, bad)
				reason := regexp.MustCompile(regexp.QuoteMeta(p.addr()) + `.*` + bad.cause)
				peerRun(t, p.addr(), peerDeliveryTimeout+peerMargin, reason, false)
				assert.NotZero(t, p.count(key), "the peer got the request it misbehaves on")
			})
		}
	}
}

// TestPeersLeaderNotInBrokers: the metadata names, as the leader of every
// partition, a broker id that is not in its broker list. Nothing can be
// sent; the records must fail at the delivery timeout with a reason that
// says the leader is unknown, not hang and not panic.
func TestPeersLeaderNotInBrokers(t *testing.T) {
	t.Parallel()
	p := newClusterPeer(t, peerAnswers{metadata: func(p *fakePeer, r *protocol.MetadataRequest) *protocol.MetadataResponse {
		return peerMetadata(p, r, 6, 7) // broker 7 does not exist
	}})
	failures := peerRun(t, p.addr(), peerDeliveryTimeout+peerMargin,
		regexp.MustCompile(`t/\d: delivery timeout expired: .*(no leader known for t/\d|leader of t/\d, broker 7, is not)`), false)
	assert.Len(t, failures, 3)
	assert.Zero(t, p.count(protocol.KeyProduce), "no produce request to a broker that does not exist")
}
