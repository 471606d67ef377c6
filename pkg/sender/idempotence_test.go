package sender

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// TestSequencesPerPartition: each partition numbers its records from 0;
// a batch's base sequence is the count of records before it.
func TestSequencesPerPartition(t *testing.T) {
	f := newFixture(t, fixtureOptions{topics: map[string]int32{"t": 2}, config: recordsPerBatch(3)})
	a := f.sendN("t", 0, 9)
	b := f.sendN("t", 1, 3)
	first := f.stepUntilProduce()
	require.Len(t, first, 1, "one request for both partitions")
	assert.Equal(t, int32(0), f.sequence(first[0], "t", 0))
	assert.Equal(t, int32(0), f.sequence(first[0], "t", 1))
	f.requireNoProduce("the first batch of a partition goes alone")
	f.respondAll(first[0], success)
	reqs := f.stepUntilProduceN(2) // then they are pipelined
	var seqs []int32
	for _, r := range append(first, reqs...) {
		seqs = append(seqs, f.sequence(r, "t", 0))
		assert.Equal(t, firstProducerID, f.producerID(r, "t", 0))
	}
	assert.Equal(t, []int32{0, 3, 6}, seqs)
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
	positions := []Position{f.prime("t", 0)}
	positions = append(positions, f.sendN("t", 0, 7)...)
	f.advance(testLinger)
	reqs := f.stepUntilProduceN(5)
	for i, r := range reqs {
		assert.Equal(t, int32(1), r.Node)
		assert.Equal(t, int32(i+1), f.sequence(r, "t", 0))
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
	assert.Equal(t, int32(6), f.sequence(more[0], "t", 0))
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
	positions := []Position{f.prime("t", 0)} // sequence 0
	positions = append(positions, f.sendN("t", 0, 3)...)
	f.advance(testLinger)
	reqs := f.stepUntilProduceN(3)
	f.respondAll(reqs[0], errAnswer(protocol.ErrNotEnoughReplicas))
	f.respondAll(reqs[1], errAnswer(protocol.ErrOutOfOrderSequenceNumber))
	f.respondAll(reqs[2], errAnswer(protocol.ErrOutOfOrderSequenceNumber))
	f.step()
	positions = append(positions, f.send("t", 0))
	f.advance(testRetryBackoff)
	for seq := int32(1); seq < 3; seq++ {
		retry := f.stepUntilProduce()
		require.Len(t, retry, 1, "only the oldest unacknowledged batch (seq %d)", seq)
		assert.Equal(t, seq, f.sequence(retry[0], "t", 0))
		assert.Equal(t, firstProducerID, f.producerID(retry[0], "t", 0))
		f.requireNoProduce("the next retry waits for the acknowledgement")
		f.respondAll(retry[0], success)
	}
	// The last retried batch goes, then the newer one behind it.
	last := f.stepUntilProduceN(2)
	assert.Equal(t, int32(3), f.sequence(last[0], "t", 0))
	assert.Equal(t, int32(4), f.sequence(last[1], "t", 0))
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
	f.respondAll(req, answer{code: protocol.ErrDuplicateSequenceNumber.Code, offsetOnError: true})
	f.step()
	require.NoError(t, f.outcome(a).err)
	assert.Equal(t, int64(-1), f.outcome(a).offset, "the broker does not say where the batch is")
	b := f.send("t", 0)
	f.advance(testLinger)
	req = f.stepUntilProduce()[0]
	assert.Equal(t, int32(1), f.sequence(req, "t", 0), "the sequence moves on")
	f.respondAll(req, success)
	f.step()
	require.NoError(t, f.outcome(b).err)
	f.requireExactlyOnce()
}

// TestIdempotentSplitKeepsOrder: a batch too large is split at once, while
// a later batch of its partition is in flight; the parts carry its
// producer id and its sequences (as Kafka's ProducerBatch.split), so they
// go first, in order, and the later batch keeps its sequence: no new
// producer id is needed.
func TestIdempotentSplitKeepsOrder(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: recordsPerBatch(2)})
	primed := f.prime("t", 0)
	positions := f.sendN("t", 0, 4)
	reqs := f.stepUntilProduceN(2)
	require.Equal(t, values(positions[:2]...), f.batchFor(reqs[0], "t", 0).values)
	f.respondAll(reqs[0], errAnswer(protocol.ErrMessageTooLarge))
	f.respondAll(reqs[1], errAnswer(protocol.ErrOutOfOrderSequenceNumber))
	f.step()
	f.advance(testRetryBackoff)
	rest := f.respondAsSent(3)
	var sent [][]string
	for i, r := range rest {
		b := f.batchFor(r, "t", 0)
		sent = append(sent, b.values)
		assert.Equal(t, firstProducerID, b.batch.ProducerID)
		assert.Equal(t, []int32{1, 2, 3}[i], b.batch.FirstSequence)
	}
	assert.Equal(t, [][]string{values(positions[0]), values(positions[1]), values(positions[2:]...)}, sent)
	assert.Equal(t, values(append([]Position{primed}, positions...)...), f.log(tp("t", 0)))
	assert.Len(t, f.initRequests(), 1, "no new producer id")
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

// TestFirstBatchOfAPartitionGoesAlone: until the broker acknowledged a
// batch of the producer id on a partition, it may have no state for it and
// (before Kafka 4.5, KAFKA-15591) accept any first sequence; a second
// batch in flight could then be stored in place of a refused first one.
// So the first batch goes alone, at start and after a reset.
func TestFirstBatchOfAPartitionGoesAlone(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: recordsPerBatch(1)})
	positions := f.sendN("t", 0, 3)
	f.advance(testLinger)
	first := f.stepUntilProduce()
	require.Len(t, first, 1)
	f.requireNoProduce("the second batch waits for the first acknowledgement")
	f.respondAll(first[0], errAnswer(protocol.ErrNotLeaderOrFollower)) // not stored
	f.step()
	f.advance(testRetryBackoff)
	retry := f.stepUntilProduce()
	require.Len(t, retry, 1)
	assert.Equal(t, int32(0), f.sequence(retry[0], "t", 0))
	f.requireNoProduce("still not acknowledged")
	f.respondAll(retry[0], success)
	rest := f.stepUntilProduceN(2)
	assert.Equal(t, int32(1), f.sequence(rest[0], "t", 0))
	assert.Equal(t, int32(2), f.sequence(rest[1], "t", 0), "pipelined once acknowledged")
	f.respondAll(rest[0], success)
	f.respondAll(rest[1], success)
	f.step()
	assert.Equal(t, values(positions...), f.log(tp("t", 0)))
	f.requireExactlyOnce()
}

// TestIdempotentSplitBehindRetry: the parts of a batch too large go behind
// an older batch of the partition that waits for a retry, in sequence
// order; put in front of it they would wait for it forever, since only the
// oldest unacknowledged batch may be sent again.
func TestIdempotentSplitBehindRetry(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: recordsPerBatch(2)})
	primed := f.prime("t", 0)
	positions := f.sendN("t", 0, 4)
	reqs := f.stepUntilProduceN(2)
	f.respondAll(reqs[0], errAnswer(protocol.ErrNotEnoughReplicas))
	f.respondAll(reqs[1], errAnswer(protocol.ErrMessageTooLarge))
	f.step()
	f.advance(testRetryBackoff)
	rest := f.respondAsSent(3)
	var sent [][]string
	for i, r := range rest {
		b := f.batchFor(r, "t", 0)
		sent = append(sent, b.values)
		assert.Equal(t, []int32{1, 3, 4}[i], b.batch.FirstSequence)
	}
	assert.Equal(t, [][]string{values(positions[:2]...), values(positions[2]), values(positions[3])}, sent)
	assert.Equal(t, values(append([]Position{primed}, positions...)...), f.log(tp("t", 0)))
	f.requireExactlyOnce()
}
