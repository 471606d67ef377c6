package producecmd_test

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// batchID is an idempotent batch's identity on the broker.
type batchID struct {
	producerID int64
	sequence   int32
}

// batchOf returns the identity of the batch a Produce request carries for
// a partition.
func batchOf(req kmsg.Request, partition int32) (batchID, bool) {
	pr, ok := req.(*kmsg.ProduceRequest)
	if !ok {
		return batchID{}, false
	}
	for _, tp := range pr.Topics {
		for _, p := range tp.Partitions {
			if p.Partition != partition {
				continue
			}
			var b kmsg.RecordBatch
			if err := b.ReadFrom(p.Records); err != nil {
				return batchID{}, false
			}
			return batchID{producerID: b.ProducerID, sequence: b.FirstSequence}, true
		}
	}
	return batchID{}, false
}

// timedOutThen stores a batch of partition 2 (from the 10th request on)
// and answers REQUEST_TIMED_OUT, so its outcome is unknown to the client;
// then it answers, once, err to the first later batch of partition 2 for
// which then(first, id) holds.
func timedOutThen(fc *faultCluster, err *kerr.Error, then func(first, id batchID) bool) {
	var mu sync.Mutex
	var first batchID
	captured := false
	fc.inject(
		kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: fc.topic, Partitions: []int32{2},
			Err: kerr.RequestTimedOut, Count: 1, When: func(req kmsg.Request) bool {
				if fc.produceRequests() < 10 {
					return false
				}
				id, ok := batchOf(req, 2)
				mu.Lock()
				defer mu.Unlock()
				first, captured = id, ok
				return ok
			}},
		kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: fc.topic, Partitions: []int32{2},
			Err: err, Count: 1, When: func(req kmsg.Request) bool {
				id, ok := batchOf(req, 2)
				mu.Lock()
				defer mu.Unlock()
				return ok && captured && then(first, id)
			}},
	)
}

// duplicateOnRetry makes partition 2's leader store a batch and answer
// REQUEST_TIMED_OUT, then answer the batch's retry with
// DUPLICATE_SEQUENCE_NUMBER, as a broker does for a retry of a batch it
// already holds (Kafka answers so when the batch is older than the last
// five it caches; kfake itself answers success with the original offset).
func duplicateOnRetry(_ *testing.T, fc *faultCluster) {
	timedOutThen(fc, kerr.DuplicateSequenceNumber, func(first, id batchID) bool { return id == first })
}

// firstBatchRefused answers the first request carrying partition 1 with
// NOT_ENOUGH_REPLICAS, a retriable error: nothing is stored.
func firstBatchRefused(_ *testing.T, fc *faultCluster) {
	fc.inject(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: fc.topic, Partitions: []int32{1},
		Err: kerr.NotEnoughReplicas, Count: 1})
}

// refusedAfterReset makes the producer take a new producer id (one
// INVALID_PRODUCER_EPOCH on partition 4), then refuses, once, the first
// batch of partition 4 sent under the new id, with a retriable error.
func refusedAfterReset(_ *testing.T, fc *faultCluster) {
	var mu sync.Mutex
	firstPID := int64(-1)
	fc.inject(
		kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: fc.topic, Partitions: []int32{4},
			Err: kerr.InvalidProducerEpoch, Count: 1, When: func(req kmsg.Request) bool {
				if fc.produceRequests() < 10 {
					return false
				}
				id, ok := batchOf(req, 4)
				mu.Lock()
				defer mu.Unlock()
				firstPID = id.producerID
				return ok
			}},
		kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: fc.topic, Partitions: []int32{4},
			Err: kerr.NotEnoughReplicas, Count: 1, When: func(req kmsg.Request) bool {
				id, ok := batchOf(req, 4)
				mu.Lock()
				defer mu.Unlock()
				return ok && firstPID >= 0 && id.producerID != firstPID
			}},
	)
}

// unclearThenReset stores a batch of partition 2 and answers
// REQUEST_TIMED_OUT (its outcome is unknown to the client), then refuses
// the next batch of partition 2 with INVALID_RECORD, which fails it and
// breaks the partition's sequence: the producer takes a new producer id
// while the first batch still waits for its retry. Under the new id the
// broker cannot recognise that retry as a duplicate.
func unclearThenReset(_ *testing.T, fc *faultCluster) {
	timedOutThen(fc, kerr.InvalidRecord, func(first, id batchID) bool {
		return id.producerID == first.producerID && id.sequence > first.sequence
	})
}

// unclearThenRefused stores the first two batches of partition 2 sent
// from the 10th request on, X then Y, and answers both REQUEST_TIMED_OUT;
// then it refuses X's retry with INVALID_RECORD. X fails (it may have been
// written: its report must say so) and the partition's sequence breaks
// with Y, whose first attempt is stored, still to be retried: a retry
// under a new producer id would store it twice.
func unclearThenRefused(_ *testing.T, fc *faultCluster) {
	var mu sync.Mutex
	var sent []batchID
	fc.inject(
		kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: fc.topic, Partitions: []int32{2},
			Err: kerr.RequestTimedOut, Count: 2, When: func(req kmsg.Request) bool {
				id, ok := batchOf(req, 2)
				mu.Lock()
				defer mu.Unlock()
				if !ok || fc.produceRequests() < 10 || slices.Contains(sent, id) {
					return false
				}
				sent = append(sent, id)
				return true
			}},
		kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: fc.topic, Partitions: []int32{2},
			Err: kerr.InvalidRecord, Count: 1, When: func(req kmsg.Request) bool {
				id, ok := batchOf(req, 2)
				mu.Lock()
				defer mu.Unlock()
				return ok && len(sent) == 2 && id == sent[0]
			}},
	)
}

// slowErrors delays, by d, the first n Produce responses that refuse a
// batch: meanwhile the client sends the partition's next batches, which
// the broker handles after the refused one (one connection is served in
// order). This is when a broker with no state for the producer id on that
// partition would take a later batch first.
func slowErrors(d time.Duration, n int) func(*faultCluster) faultHooks {
	return func(*faultCluster) faultHooks {
		var left atomic.Int32
		left.Store(int32(n))
		return faultHooks{onProduceResponse: func(_ int32, resp *kmsg.ProduceResponse) bool {
			for _, tp := range resp.Topics {
				for _, p := range tp.Partitions {
					if p.ErrorCode != 0 && left.Add(-1) >= 0 {
						time.Sleep(d) // a slow answer is the scenario, not a wait
						return false
					}
				}
			}
			return false
		}}
	}
}

// idempotenceScenarios are the sequence errors an idempotent producer
// recovers from: every record is delivered exactly once, in order.
func idempotenceScenarios() []faultScenario {
	slow := slowErrors(150*time.Millisecond, 4)
	return []faultScenario{
		{name: "OUT_OF_ORDER_SEQUENCE_NUMBER", setup: produceErrors(kerr.OutOfOrderSequenceNumber, 3), hooks: slow},
		{name: "UNKNOWN_PRODUCER_ID", setup: produceErrors(kerr.UnknownProducerID, 3), hooks: slow},
		{name: "INVALID_PRODUCER_EPOCH", setup: produceErrors(kerr.InvalidProducerEpoch, 3), hooks: slow},
		{name: "first batch under a new producer id refused", setup: refusedAfterReset, hooks: slow,
			args: []string{"--delivery-timeout", deliveryTimeoutArg(8 * time.Second)}, pace: 2 * time.Second},
		{name: "unclear answer, then a new producer id", setup: unclearThenReset, hooks: slow,
			exp: faultExpect{mayFail: onPartitions(2)}, pace: 2 * time.Second},
		{name: "unclear answers, then a refused retry", setup: unclearThenRefused, hooks: slow,
			exp: faultExpect{mayFail: onPartitions(2)}, pace: 2 * time.Second},
		{name: "DUPLICATE_SEQUENCE_NUMBER on a retry", setup: duplicateOnRetry, exp: faultExpect{unknownOffsets: true}},
		{
			// Kafka before 4.5 takes any first sequence from a producer
			// id it has no state for on a partition (KAFKA-15591): when a
			// partition's first batch is refused, a later one in flight
			// must not be stored in its place.
			name:  "first batch of a partition refused, Kafka 3.9",
			opts:  []kfake.Opt{kfake.MaxVersions(kversion.V3_9_0())},
			setup: firstBatchRefused,
			hooks: slow,
			args:  []string{"--delivery-timeout", deliveryTimeoutArg(8 * time.Second)},
		},
	}
}

// TestFaultIdempotence injects the idempotent producer's sequence errors
// on some partitions.
func TestFaultIdempotence(t *testing.T) {
	t.Parallel()
	runScenarioTable(t, idempotenceScenarios(), false)
}
