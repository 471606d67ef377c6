package producecmd_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// produceErrors injects err as the answer for two partitions: once on
// partition 1, and count times in a row on partition 4.
func produceErrors(err *kerr.Error, count int) func(*testing.T, *faultCluster) {
	return func(_ *testing.T, fc *faultCluster) {
		fc.inject(
			kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: fc.topic, Partitions: []int32{1}, Err: err, Count: 1, When: afterRequests(fc, 10)},
			kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: fc.topic, Partitions: []int32{4}, Err: err, Count: count, When: afterRequests(fc, 20)},
		)
	}
}

// retriableScenarios are the faults a producer must ride out: every record
// is delivered, exactly once with idempotence.
func retriableScenarios() []faultScenario {
	var out []faultScenario
	for _, e := range []*kerr.Error{
		kerr.NotLeaderForPartition, kerr.LeaderNotAvailable, kerr.NotEnoughReplicas,
		kerr.RequestTimedOut, kerr.NotEnoughReplicasAfterAppend, kerr.KafkaStorageError,
		kerr.ThrottlingQuotaExceeded, kerr.NetworkException,
	} {
		name := kafkaName(e)
		out = append(out,
			faultScenario{name: name + "/once", setup: produceErrors(e, 1)},
			faultScenario{name: name + "/repeated", setup: produceErrors(e, 6)},
		)
	}
	return append(out,
		faultScenario{name: "connection closed before produce", setup: dropConnections(3)},
		faultScenario{name: "connection closed after append", hooks: loseResponses(3)},
	)
}

// kafkaName is an error's name as Kafka spells it today (kerr keeps some
// old names, such as NOT_LEADER_FOR_PARTITION for NOT_LEADER_OR_FOLLOWER).
func kafkaName(e *kerr.Error) string {
	var perr *protocol.Error
	if errors.As(protocol.ErrorForCode(e.Code), &perr) {
		return perr.Name
	}
	return e.Message
}

// dropConnections closes the connection of every 15th Produce request, n
// times, before the broker reads it (kfake closes the connection when a
// control answers with an error).
func dropConnections(n int) func(*testing.T, *faultCluster) {
	return func(_ *testing.T, fc *faultCluster) {
		var seen, dropped atomic.Int32
		fc.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
			fc.KeepControl()
			if seen.Add(1)%15 != 0 || dropped.Load() >= int32(n) {
				return nil, nil, false
			}
			dropped.Add(1)
			fc.noteInjected()
			return nil, errors.New("connection dropped on purpose"), true
		})
	}
}

// loseResponses closes the connection instead of answering every 12th
// Produce request, n times: the broker appended the batches, the client
// never learns it (the duplicate case).
func loseResponses(n int) func(*faultCluster) faultHooks {
	return func(fc *faultCluster) faultHooks {
		var mu sync.Mutex
		seen, lost := 0, 0
		return faultHooks{onProduceResponse: func(_ int32, _ *kmsg.ProduceResponse) bool {
			mu.Lock()
			defer mu.Unlock()
			seen++
			if seen%12 != 0 || lost >= n {
				return false
			}
			lost++
			fc.noteInjected()
			return true
		}}
	}
}

// TestFaultRetriable runs every retriable fault with idempotence (every
// record delivered exactly once, in order) and without (every record
// delivered at least once; the duplicates are counted and logged).
func TestFaultRetriable(t *testing.T) {
	t.Parallel()
	runScenarioTable(t, retriableScenarios(), true)
}
