package sender

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// TestSequenceReset: when the broker has lost the producer's state or
// refuses its epoch, no new batch is sent until the requests in flight
// complete; then a new producer id is fetched and the unacknowledged
// batches are sent again, in order, with sequences from 0.
func TestSequenceReset(t *testing.T) {
	for _, err := range []*protocol.Error{protocol.ErrOutOfOrderSequenceNumber, protocol.ErrUnknownProducerId, protocol.ErrInvalidProducerEpoch} {
		t.Run(err.Name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{config: recordsPerBatch(1)})
			positions := []Position{f.send("t", 0)}
			f.advance(testLinger)
			f.respondAll(f.stepUntilProduce()[0], success) // seq 0 acknowledged
			f.step()
			positions = append(positions, f.sendN("t", 0, 2)...)
			f.advance(testLinger)
			reqs := f.stepUntilProduceN(2)
			require.Equal(t, int32(1), f.sequence(reqs[0], "t", 0), "the next expected batch")
			f.respondAll(reqs[0], errAnswer(err))
			f.step()
			positions = append(positions, f.send("t", 0))
			f.advance(testRetryBackoff)
			f.requireNoProduce("a request is still in flight")
			assert.Len(t, f.initRequests(), 1, "not while a request is in flight")

			f.respondAll(reqs[1], errAnswer(err))
			resent := f.stepUntilProduceN(1)
			assert.Len(t, f.initRequests(), 2, "a new producer id")
			f.advance(testRetryBackoff) // the last batch's retry backoff
			f.requireNoProduce("the first batch under the new producer id goes alone")
			f.respondAll(resent[0], success)
			resent = append(resent, f.stepUntilProduceN(2)...)
			for i, r := range resent {
				assert.Equal(t, firstProducerID+1, f.producerID(r, "t", 0))
				assert.Equal(t, int32(i), f.sequence(r, "t", 0))
				assert.Equal(t, []string{value(positions[i+1])}, f.batchFor(r, "t", 0).values)
				if i > 0 {
					f.respondAll(r, success)
				}
			}
			f.step()
			assert.Equal(t, values(positions...), f.log(tp("t", 0)))
			for _, p := range positions {
				require.NoError(t, f.outcome(p).err)
			}
			f.requireExactlyOnce()
		})
	}
}

// TestFailedBatchInTheMiddleForcesReset: a sequenced batch failed for good
// leaves a gap before the batches sent after it; they are sent again under
// a new producer id.
func TestFailedBatchInTheMiddleForcesReset(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: recordsPerBatch(1)})
	primed := f.prime("t", 0)
	positions := f.sendN("t", 0, 2)
	f.advance(testLinger)
	reqs := f.stepUntilProduceN(2)
	f.respondAll(reqs[0], errAnswer(protocol.ErrInvalidRecord))
	f.respondAll(reqs[1], errAnswer(protocol.ErrOutOfOrderSequenceNumber)) // the broker saw the gap
	f.step()
	require.ErrorIs(t, f.outcome(positions[0]).err, protocol.ErrInvalidRecord)
	f.advance(testRetryBackoff)
	retry := f.stepUntilProduce()[0]
	assert.Len(t, f.initRequests(), 2)
	assert.Equal(t, firstProducerID+1, f.producerID(retry, "t", 0))
	assert.Equal(t, int32(0), f.sequence(retry, "t", 0))
	f.respondAll(retry, success)
	f.step()
	require.NoError(t, f.outcome(positions[1]).err)
	assert.Equal(t, values(primed, positions[1]), f.log(tp("t", 0)))
	f.requireExactlyOnce()
}

// TestNewestFailedBatchGivesBackItsSequence: when the batch the broker
// refused was the newest of its partition, the next batch takes its
// sequence; an error kproduce does not know proves nothing, so it costs a
// new producer id instead.
func TestNewestFailedBatchGivesBackItsSequence(t *testing.T) {
	tests := []struct {
		name     string
		ans      answer
		giveBack bool
	}{
		{"topic authorization", errAnswer(protocol.ErrTopicAuthorizationFailed), true},
		{"invalid record", errAnswer(protocol.ErrInvalidRecord), true},
		{"unknown error code", answer{code: 9999}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{config: recordsPerBatch(1)})
			a := f.send("t", 0)
			f.advance(testLinger)
			f.respondAll(f.stepUntilProduce()[0], success)
			f.step()
			b := f.send("t", 0)
			f.advance(testLinger)
			f.respondAll(f.stepUntilProduce()[0], tt.ans)
			f.step()
			require.Error(t, f.outcome(b).err)
			c := f.send("t", 0)
			f.advance(testLinger)
			req := f.stepUntilProduce()[0]
			if tt.giveBack {
				assert.Equal(t, int32(1), f.sequence(req, "t", 0))
				assert.Equal(t, firstProducerID, f.producerID(req, "t", 0))
				assert.Len(t, f.initRequests(), 1)
			} else {
				assert.Equal(t, int32(0), f.sequence(req, "t", 0))
				assert.Equal(t, firstProducerID+1, f.producerID(req, "t", 0))
			}
			f.respondAll(req, success)
			f.step()
			assert.Equal(t, values(a, c), f.log(tp("t", 0)))
			f.requireExactlyOnce()
		})
	}
}

// TestMaybeWrittenBatchKeepsItsSequence: a batch that may have been
// written (its last attempt timed out, or its request was still in flight
// when its delivery timeout passed) never gives its sequence to a new
// batch: the broker would take that batch for a duplicate and drop it.
func TestMaybeWrittenBatchKeepsItsSequence(t *testing.T) {
	for _, name := range []string{"answered after the deadline", "expired in flight, then success",
		"expired in flight, then disconnect", "expired in flight, then disconnect, then out of order"} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{config: configs(recordsPerBatch(1), func(c *config) {
				c.Accumulator.DeliveryTimeout = 20 * time.Second
			})})
			f.prime("t", 0) // sequence 0
			created := f.now()
			a := f.send("t", 0)
			f.advance(testLinger)
			first := f.stepUntilProduce()[0]
			require.Equal(t, int32(1), f.sequence(first, "t", 0))
			f.clock.Set(created.Add(20*time.Second - time.Millisecond))
			switch name {
			case "answered after the deadline":
				f.respondAll(first, errAnswer(protocol.ErrRequestTimedOut))
				f.pollWait = time.Millisecond
				f.step()
			default:
				f.advanceStep(time.Millisecond)
			}
			require.ErrorIs(t, f.outcome(a).err, ErrDeliveryTimeout)

			b := f.send("t", 0)
			f.advance(testLinger)
			switch name {
			case "answered after the deadline":
				req := f.stepUntilProduce()[0]
				assert.Equal(t, firstProducerID+1, f.producerID(req, "t", 0), "a new producer id, not sequence 1 again")
				assert.Equal(t, int32(0), f.sequence(req, "t", 0))
				f.respondAll(req, success)
			case "expired in flight, then success":
				req := f.stepUntilProduce()[0]
				assert.Equal(t, int32(2), f.sequence(req, "t", 0), "sequence 1 may be written")
				f.respondAll(first, success) // it was written after all
				f.respondAll(req, success)
				f.step()
				assert.Len(t, f.initRequests(), 1, "the sequence continues")
			case "expired in flight, then disconnect":
				req := f.stepUntilProduce()[0]
				assert.Equal(t, int32(2), f.sequence(req, "t", 0), "sequence 1 may be written")
				f.sel.Disconnect(first.Conn, nil) // both requests are lost
				f.step()
				f.advance(testRetryBackoff)
				again := f.stepUntilProduce()[0]
				// The broker may hold it: settled under the same producer id,
				// where a duplicate is recognised, not stored twice under a new one.
				assert.Equal(t, firstProducerID, f.producerID(again, "t", 0))
				assert.Equal(t, int32(2), f.sequence(again, "t", 0))
				f.respondAll(again, success)
			case "expired in flight, then disconnect, then out of order":
				req := f.stepUntilProduce()[0]
				f.sel.Disconnect(first.Conn, nil)
				f.step()
				f.advance(testRetryBackoff)
				again := f.stepUntilProduce()[0]
				require.Equal(t, int32(2), f.sequence(again, "t", 0))
				// Out of order: the broker still waits for sequence 1, so
				// neither was stored, and b goes again under a new producer id.
				f.respondAll(again, errAnswer(protocol.ErrOutOfOrderSequenceNumber))
				f.step()
				f.advance(time.Second) // the retry backoff grows with each attempt
				last := f.stepUntilProduce()[0]
				assert.Equal(t, firstProducerID+1, f.producerID(last, "t", 0))
				assert.Equal(t, int32(0), f.sequence(last, "t", 0))
				f.respondAll(last, success)
				_ = req
			}
			f.step()
			require.NoError(t, f.outcome(b).err)
			assert.Len(t, f.outcomesOf(a), 1)
			f.requireExactlyOnce()
		})
	}
}

// TestUnclearBatchIsResolvedBeforeTheReset: a batch whose attempt had no
// clear answer (the broker may hold it) and that comes before the batch
// that broke the sequence is sent again under the current producer id,
// where the broker recognises a duplicate, before the new producer id is
// fetched; under a new id it would be stored twice.
func TestUnclearBatchIsResolvedBeforeTheReset(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: recordsPerBatch(1)})
	primed := f.prime("t", 0)
	unclear := f.send("t", 0)
	refused := f.send("t", 0)
	after := f.send("t", 0)
	f.advance(testLinger)
	reqs := f.stepUntilProduceN(3)
	f.respondAll(reqs[0], errAnswer(protocol.ErrRequestTimedOut))
	f.logEnd[tp("t", 0)]++ // the broker stored it all the same
	f.produced[tp("t", 0)] = append(f.produced[tp("t", 0)], value(unclear))
	f.respondAll(reqs[1], errAnswer(protocol.ErrInvalidRecord))
	f.respondAll(reqs[2], errAnswer(protocol.ErrOutOfOrderSequenceNumber))
	f.step()
	require.ErrorIs(t, f.outcome(refused).err, protocol.ErrInvalidRecord)
	later := f.send("t", 0)

	f.advance(testRetryBackoff)
	retry := f.stepUntilProduce()
	require.Len(t, retry, 1)
	assert.Equal(t, values(unclear), f.batchFor(retry[0], "t", 0).values)
	assert.Equal(t, firstProducerID, f.producerID(retry[0], "t", 0), "under the producer id it was first sent with")
	assert.Equal(t, int32(1), f.sequence(retry[0], "t", 0))
	assert.Len(t, f.initRequests(), 1, "no reset yet")
	f.requireNoProduce("the batches after the break wait for the reset")
	f.sel.RespondTo(retry[0], duplicateOf(retry[0], 1)) // the broker knows it: success, original offset

	next := f.respondAsSent(2)
	assert.Len(t, f.initRequests(), 2, "then the reset")
	for i, r := range next {
		assert.Equal(t, firstProducerID+1, f.producerID(r, "t", 0))
		assert.Equal(t, int32(i), f.sequence(r, "t", 0))
	}
	o := f.outcome(unclear)
	require.NoError(t, o.err)
	assert.Equal(t, int64(1), o.offset)
	assert.Equal(t, values(primed, unclear, after, later), f.log(tp("t", 0)), "stored once, in order")
	f.requireExactlyOnce()
}

// duplicateOf is a broker's answer to a retry of a batch it already holds
// at offset: success with the original offset.
func duplicateOf(req networktest.SentRequest, offset int64) *protocol.ProduceResponse {
	body := req.Body.(*protocol.ProduceRequest)
	resp := &protocol.ProduceResponse{}
	for _, t := range body.Topics {
		for _, p := range t.Partitions {
			resp.Topics = appendPartition(resp.Topics, t.Name, protocol.ProduceResponsePartition{Index: p.Index, BaseOffset: offset,
				LogAppendTimeMs: -1, LogStartOffset: -1, CurrentLeader: protocol.LeaderIDAndEpoch{LeaderID: -1, LeaderEpoch: -1}})
		}
	}
	return resp
}
