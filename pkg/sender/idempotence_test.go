package sender

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// TestSequencesPerPartition: each partition numbers its records from 0;
// a batch's base sequence is the count of records before it.
func TestSequencesPerPartition(t *testing.T) {
	f := newFixture(t, fixtureOptions{topics: map[string]int32{"t": 2}, config: recordsPerBatch(3)})
	a := f.sendN("t", 0, 9)
	b := f.sendN("t", 1, 3)
	reqs := f.stepUntilProduceN(3)
	var seqs []int32
	for _, r := range reqs {
		seqs = append(seqs, f.sequence(r, "t", 0))
		assert.Equal(t, firstProducerID, f.producerID(r, "t", 0))
	}
	assert.Equal(t, []int32{0, 3, 6}, seqs)
	assert.Equal(t, int32(0), f.sequence(reqs[0], "t", 1))
	for _, r := range reqs {
		f.respondAll(r, success)
	}
	f.step()
	assert.Equal(t, values(a...), f.log(tp("t", 0)))
	assert.Equal(t, values(b...), f.log(tp("t", 1)))
	f.requireExactlyOnce()
}

// TestAtMostFiveBatchesInFlightPerPartition: the broker deduplicates only
// the last five batches of a producer, so a sixth waits, even for a new
// leader with an empty connection.
func TestAtMostFiveBatchesInFlightPerPartition(t *testing.T) {
	f := newFixture(t, fixtureOptions{brokers: 2, config: recordsPerBatch(1)})
	positions := f.sendN("t", 0, 7)
	f.advance(testLinger)
	reqs := f.stepUntilProduceN(5)
	for i, r := range reqs {
		assert.Equal(t, int32(1), r.Node)
		assert.Equal(t, int32(i), f.sequence(r, "t", 0))
	}
	f.setLeader("t", 0, 2)
	f.p.md.RequestUpdate()
	f.advance(time.Second)
	f.requireNoProduce("five batches unacknowledged")
	require.Equal(t, int32(2), mustLeader(t, f, "t", 0))

	f.respondAll(reqs[0], success)
	more := f.stepUntilProduce()
	require.Len(t, more, 1)
	assert.Equal(t, int32(2), more[0].Node)
	assert.Equal(t, int32(5), f.sequence(more[0], "t", 0))
	f.requireNoProduce("five unacknowledged again")
	for _, r := range append(reqs[1:], more...) {
		f.respondAll(r, success)
	}
	last := f.stepUntilProduce()
	f.respondAll(last[0], success)
	f.step()
	assert.Equal(t, values(positions...), f.log(tp("t", 0)))
	f.requireExactlyOnce()
}

func mustLeader(t *testing.T, f *fixture, topic string, partition int32) int32 {
	t.Helper()
	leader, ok := f.p.md.Fetch().LeaderFor(topic, partition)
	require.True(t, ok)
	return leader
}

// TestRetriedBatchGoesFirstAndAlone: after a failure in the middle of a
// pipeline, the batches are sent again one at a time in sequence order,
// each once the one before is acknowledged, and newer batches wait behind
// them. OUT_OF_ORDER_SEQUENCE_NUMBER on a batch that is not the next one
// expected is retried with its sequence; nothing is reset.
func TestRetriedBatchGoesFirstAndAlone(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: recordsPerBatch(1)})
	positions := f.sendN("t", 0, 3)
	f.advance(testLinger)
	reqs := f.stepUntilProduceN(3)
	f.respondAll(reqs[0], errAnswer(protocol.ErrNotEnoughReplicas))
	f.respondAll(reqs[1], errAnswer(protocol.ErrOutOfOrderSequenceNumber))
	f.respondAll(reqs[2], errAnswer(protocol.ErrOutOfOrderSequenceNumber))
	f.step()
	positions = append(positions, f.send("t", 0))
	f.advance(testRetryBackoff)
	for seq := int32(0); seq < 2; seq++ {
		retry := f.stepUntilProduce()
		require.Len(t, retry, 1, "only the oldest unacknowledged batch (seq %d)", seq)
		assert.Equal(t, seq, f.sequence(retry[0], "t", 0))
		assert.Equal(t, firstProducerID, f.producerID(retry[0], "t", 0))
		f.requireNoProduce("the next retry waits for the acknowledgement")
		f.respondAll(retry[0], success)
	}
	// The last retried batch goes, then the newer one behind it.
	last := f.stepUntilProduceN(2)
	assert.Equal(t, int32(2), f.sequence(last[0], "t", 0))
	assert.Equal(t, int32(3), f.sequence(last[1], "t", 0))
	f.respondAll(last[0], success)
	f.respondAll(last[1], success)
	f.step()
	assert.Equal(t, values(positions...), f.log(tp("t", 0)))
	assert.Len(t, f.initRequests(), 1, "no reset")
	f.requireExactlyOnce()
}

// TestDuplicateSequenceIsSuccess: DUPLICATE_SEQUENCE_NUMBER means the
// broker already has the batch.
func TestDuplicateSequenceIsSuccess(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: recordsPerBatch(1)})
	a := f.send("t", 0)
	f.advance(testLinger)
	req := f.stepUntilProduce()[0]
	f.respondAll(req, errAnswer(protocol.ErrDuplicateSequenceNumber))
	f.step()
	require.NoError(t, f.outcome(a).err)
	b := f.send("t", 0)
	f.advance(testLinger)
	req = f.stepUntilProduce()[0]
	assert.Equal(t, int32(1), f.sequence(req, "t", 0), "the sequence moves on")
	f.respondAll(req, success)
	f.step()
	require.NoError(t, f.outcome(b).err)
	f.requireExactlyOnce()
}

// TestSequenceReset: when the broker has lost the producer's state or
// refuses its epoch, no new batch is sent until the requests in flight
// complete; then a new producer id is fetched and the unacknowledged
// batches are sent again, in order, with sequences from 0.
func TestSequenceReset(t *testing.T) {
	for _, err := range []*protocol.Error{protocol.ErrOutOfOrderSequenceNumber, protocol.ErrUnknownProducerId, protocol.ErrInvalidProducerEpoch} {
		t.Run(err.Name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{config: recordsPerBatch(1)})
			positions := []accumulator.Position{f.send("t", 0)}
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
			resent = append(resent, f.stepUntilProduceN(2)...)
			for i, r := range resent {
				assert.Equal(t, firstProducerID+1, f.producerID(r, "t", 0))
				assert.Equal(t, int32(i), f.sequence(r, "t", 0))
				assert.Equal(t, []string{value(positions[i+1])}, f.batchFor(r, "t", 0).values)
				f.respondAll(r, success)
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
	assert.Equal(t, values(positions[1]), f.log(tp("t", 0)))
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
	for _, name := range []string{"answered after the deadline", "expired in flight, then success", "expired in flight, then disconnect"} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{config: configs(recordsPerBatch(1), func(c *Config) {
				c.Accumulator.DeliveryTimeout = 20 * time.Second
			})})
			created := f.now()
			a := f.send("t", 0)
			f.advance(testLinger)
			first := f.stepUntilProduce()[0]
			require.Equal(t, int32(0), f.sequence(first, "t", 0))
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
				assert.Equal(t, firstProducerID+1, f.producerID(req, "t", 0), "a new producer id, not sequence 0 again")
				assert.Equal(t, int32(0), f.sequence(req, "t", 0))
				f.respondAll(req, success)
			case "expired in flight, then success":
				req := f.stepUntilProduce()[0]
				assert.Equal(t, int32(1), f.sequence(req, "t", 0), "sequence 0 may be written")
				f.respondAll(first, success) // it was written after all
				f.respondAll(req, success)
				f.step()
				assert.Len(t, f.initRequests(), 1, "the sequence continues")
			case "expired in flight, then disconnect":
				req := f.stepUntilProduce()[0]
				assert.Equal(t, int32(1), f.sequence(req, "t", 0), "sequence 0 may be written")
				f.sel.Disconnect(first.Conn, nil) // both requests are lost
				f.step()
				f.advance(testRetryBackoff)
				again := f.stepUntilProduce()[0]
				assert.Equal(t, firstProducerID+1, f.producerID(again, "t", 0), "outcome unknown: new producer id")
				assert.Equal(t, int32(0), f.sequence(again, "t", 0))
				f.respondAll(again, success)
			}
			f.step()
			require.NoError(t, f.outcome(b).err)
			assert.Len(t, f.outcomesOf(a), 1)
			f.requireExactlyOnce()
		})
	}
}

// TestIdempotentSplitKeepsOrder: a batch too large while later batches of
// its partition are in flight is split only once it is the oldest and
// alone, so that its halves still go before the later batches.
func TestIdempotentSplitKeepsOrder(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: recordsPerBatch(2)})
	positions := f.sendN("t", 0, 4)
	reqs := f.stepUntilProduceN(2)
	require.Equal(t, values(positions[:2]...), f.batchFor(reqs[0], "t", 0).values)
	f.respondAll(reqs[0], errAnswer(protocol.ErrMessageTooLarge))
	f.respondAll(reqs[1], errAnswer(protocol.ErrOutOfOrderSequenceNumber))
	f.step()
	f.advance(testRetryBackoff)
	again := f.stepUntilProduce()
	require.Len(t, again, 1)
	assert.Equal(t, values(positions[:2]...), f.batchFor(again[0], "t", 0).values, "sent again whole, alone")
	assert.Equal(t, int32(0), f.sequence(again[0], "t", 0))
	f.requireNoProduce("the later batch waits")
	f.respondAll(again[0], errAnswer(protocol.ErrMessageTooLarge))
	f.step()
	f.advance(testRetryBackoff)
	rest := f.stepUntilProduceN(3)
	var sent [][]string
	for i, r := range rest {
		b := f.batchFor(r, "t", 0)
		sent = append(sent, b.values)
		assert.Equal(t, firstProducerID+1, b.batch.ProducerID)
		assert.Equal(t, []int32{0, 1, 2}[i], b.batch.FirstSequence)
		f.respondAll(r, success)
	}
	assert.Equal(t, [][]string{values(positions[0]), values(positions[1]), values(positions[2:]...)}, sent)
	f.step()
	assert.Equal(t, values(positions...), f.log(tp("t", 0)))
	f.requireExactlyOnce()
}

// TestProduceClusterAuthorizationIsFatal: brokers before Kafka 2.8 refuse
// every idempotent Produce without the IdempotentWrite permission; the
// producer stops instead of failing record after record.
func TestProduceClusterAuthorizationIsFatal(t *testing.T) {
	f := newFixture(t, fixtureOptions{topics: map[string]int32{"t": 2}})
	a := f.send("t", 0)
	f.advance(testLinger)
	req := f.stepUntilProduce()[0]
	b := f.send("t", 1)
	f.respondAll(req, errAnswer(protocol.ErrClusterAuthorizationFailed))
	f.step()
	require.ErrorIs(t, f.outcome(a).err, protocol.ErrClusterAuthorizationFailed)
	require.ErrorIs(t, f.outcome(b).err, protocol.ErrClusterAuthorizationFailed)
	require.ErrorIs(t, f.p.FatalError(), protocol.ErrClusterAuthorizationFailed)
	f.advance(time.Second)
	f.requireNoProduce("stopped")
	f.requireExactlyOnce()
}
