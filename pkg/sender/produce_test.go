package sender

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// TestProduceRequestPerLeader: after the linger, one Produce request per
// leader carries every partition it leads, with the configured acks and
// timeout; each record's callback gets base offset + index, in order.
func TestProduceRequestPerLeader(t *testing.T) {
	for _, acks := range []Acks{AllAcks, LeaderAck} {
		t.Run(fmt.Sprintf("acks=%d", acks), func(t *testing.T) {
			f := newFixture(t, fixtureOptions{brokers: 2, topics: map[string]int32{"a": 3, "b": 2},
				config: func(c *config) { c.Acks, c.Idempotence = acks, acks == AllAcks }})
			f.logEnd[tp("a", 0)] = 100 // the broker already holds records
			sent := map[accumulator.TopicPartition][]Position{
				tp("a", 0): f.sendN("a", 0, 3), tp("a", 1): f.sendN("a", 1, 2), tp("a", 2): f.sendN("a", 2, 1),
				tp("b", 0): f.sendN("b", 0, 1), tp("b", 1): f.sendN("b", 1, 2),
			}
			f.advance(testLinger - 1)
			f.requireNoProduce("the linger has not passed")

			f.advance(1)
			f.step()
			reqs := f.newProduce()
			require.Len(t, reqs, 2, "one request per leader, in the same turn")
			want := map[int32][]accumulator.TopicPartition{ // partition p is led by node p%2+1
				1: {tp("a", 0), tp("a", 2), tp("b", 0)},
				2: {tp("a", 1), tp("b", 1)},
			}
			for _, req := range reqs {
				body := req.Body.(*protocol.ProduceRequest)
				assert.Equal(t, int16(acks), body.Acks)
				assert.Equal(t, int32(testRequestTimeout.Milliseconds()), body.TimeoutMs)
				assert.Nil(t, body.TransactionalID)
				var got []accumulator.TopicPartition
				for _, b := range f.batches(req) {
					got = append(got, b.tp)
					assert.Equal(t, values(sent[b.tp]...), b.values, "records of %v", b.tp)
					assert.Equal(t, acks == AllAcks, b.batch.ProducerID >= 0, "producer id only with idempotence")
				}
				assert.ElementsMatch(t, want[req.Node], got, "partitions sent to node %d", req.Node)
			}
			for _, req := range slices.Backward(reqs) {
				require.True(t, f.s.inFlight.requests > 0)
				f.respondAll(req, success)
			}
			f.step()
			for p, positions := range sent {
				base := f.logEnd[p] - int64(len(positions))
				for i, pos := range positions {
					o := f.outcome(pos)
					require.NoError(t, o.err)
					assert.Equal(t, p, o.tp)
					assert.Equal(t, base+int64(i), o.offset, "offset of record %d of %v", i, p)
					assert.Equal(t, value(pos), o.value)
					assert.Equal(t, f.now().Add(-testLinger).UnixMilli(), o.timestamp, "CreateTime")
				}
				assert.Equal(t, positions, positionsOf(f.callbackOrder(), positions), "callback order of %v", p)
			}
			assert.Equal(t, int64(102), f.outcome(sent[tp("a", 0)][2]).offset, "the broker's offsets")
			f.requireExactlyOnce()
			f.requireNoProduce("everything was delivered")
		})
	}
}

// positionsOf keeps the positions of order that are in set, in order.
func positionsOf(order, set []Position) []Position {
	var out []Position
	for _, p := range order {
		if slices.Contains(set, p) {
			out = append(out, p)
		}
	}
	return out
}

// TestAcksZeroCompletesAtSend: with acks=0 the broker does not answer; the
// records complete, without offsets, once the request is written.
func TestAcksZeroCompletesAtSend(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: func(c *config) { c.Acks, c.Idempotence = NoAck, false }})
	f.sel.HoldSends(true)
	positions := f.sendN("t", 0, 3)
	f.advance(testLinger)
	req := f.stepUntilProduce()[0]
	assert.Equal(t, int16(NoAck), req.Body.(*protocol.ProduceRequest).Acks)
	f.step()
	for _, p := range positions {
		assert.True(t, f.pending(p), "not written yet")
	}
	require.True(t, f.sel.CompleteSend(req.Conn))
	f.step()
	for _, p := range positions {
		o := f.outcome(p)
		require.NoError(t, o.err)
		assert.Equal(t, int64(-1), o.offset, "acks=0 has no offset")
	}
	assert.Zero(t, f.s.inFlight.requests)
	f.requireExactlyOnce()
}

// TestBatchesOfAPartitionGoInOrder: records beyond the batch size fill
// several batches, drained one per partition per request, in order.
func TestBatchesOfAPartitionGoInOrder(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: configs(nonIdempotent, recordsPerBatch(2))})
	positions := f.sendN("t", 0, 5)
	f.step() // full batches are sendable before the linger
	var reqs []networktest.SentRequest
	reqs = append(reqs, f.newProduce()...)
	f.step()
	reqs = append(reqs, f.newProduce()...)
	require.Len(t, reqs, 2, "the two full batches, one per request")
	f.advance(testLinger)
	reqs = append(reqs, f.stepUntilProduce()...)
	require.Len(t, reqs, 3)
	for _, r := range reqs {
		f.respondAll(r, success)
	}
	f.step()
	assert.Equal(t, values(positions...), f.log(tp("t", 0)))
	for i, p := range positions {
		assert.Equal(t, int64(i), f.outcome(p).offset)
	}
	f.requireExactlyOnce()
}

// TestAfterPromisesRunsAfterEachTurnWithOutcomes covers the hook the
// command line flushes its reports in.
func TestAfterPromisesRunsAfterEachTurnWithOutcomes(t *testing.T) {
	calls := 0
	var seen int
	var f *fixture
	f = newFixture(t, fixtureOptions{config: func(c *config) {
		c.AfterPromises = func() {
			calls++
			if f != nil {
				seen = len(f.callbackOrder())
			}
		}
	}})
	require.Zero(t, calls, "no completion while starting")
	p := f.send("t", 0)
	f.advance(testLinger)
	req := f.stepUntilProduce()[0]
	assert.Zero(t, calls, "nothing completed yet")
	f.respondAll(req, success)
	f.step()
	assert.Equal(t, 1, calls)
	assert.Equal(t, 1, seen, "after the callbacks")
	f.step()
	assert.Equal(t, 1, calls, "not without completions")

	f.send("t", 0) // expires in the accumulator: no response involved
	f.setLeader("t", 0, -1)
	f.p.md.RequestUpdate()
	f.advanceStep(testRetryBackoff)
	f.advance(testDeliveryTimeout)
	f.step()
	assert.Equal(t, 2, calls, "an expiry is a completion too")
	require.NoError(t, f.outcome(p).err)
	f.requireExactlyOnce()
}
