package main

import (
	"errors"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// faultScenario is one way for the cluster to misbehave during a run.
type faultScenario struct {
	name string
	// hooks, when set, returns the cluster-side hooks of one run.
	hooks func(*faultCluster) faultHooks
	// setup installs the scenario's faults on a fresh cluster.
	setup func(t *testing.T, fc *faultCluster)
	// opts are extra cluster options.
	opts []kfake.Opt
	// args are extra command-line flags.
	args []string
	// exp is what the idempotent run allows besides exactly once.
	exp faultExpect
}

// afterRequests returns a fault filter that lets a fault act only once the
// cluster has received n Produce requests, so faults hit a run in flight.
func afterRequests(fc *faultCluster, n int) func(kmsg.Request) bool {
	return func(kmsg.Request) bool { return fc.produceRequests() >= n }
}

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
		out = append(out,
			faultScenario{name: e.Message + "/once", setup: produceErrors(e, 1)},
			faultScenario{name: e.Message + "/repeated", setup: produceErrors(e, 6)},
		)
	}
	return append(out,
		faultScenario{name: "connection closed before produce", setup: dropConnections(3)},
		faultScenario{name: "connection closed after append", hooks: loseResponses(3)},
	)
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

// runScenarioTable runs each scenario in parallel, with idempotence and,
// when both, without it too; it logs the duplicates each run without
// idempotence stored.
func runScenarioTable(t *testing.T, scenarios []faultScenario, both bool) map[string]faultStats {
	in := newFaultInput(faultRecordCount(), faultDistinctKeys)
	var mu sync.Mutex
	stats := map[string]faultStats{}
	t.Cleanup(func() { logDuplicates(t, stats) })
	for _, sc := range scenarios {
		modes := []bool{true}
		if both {
			modes = append(modes, false)
		}
		for _, idem := range modes {
			name := sc.name + "/idempotent"
			if !idem {
				name = sc.name + "/not-idempotent"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				st := runScenario(t, sc, in, idem)
				mu.Lock()
				stats[name] = st
				mu.Unlock()
			})
		}
	}
	return stats
}

// runScenario runs one scenario on a fresh cluster and checks it.
func runScenario(t *testing.T, sc faultScenario, in *faultInput, idempotent bool) faultStats {
	t.Helper()
	fc := newFaultCluster(t, sc.hooks, sc.opts...)
	if sc.setup != nil {
		sc.setup(t, fc)
	}
	args := sc.args
	exp := sc.exp
	if !idempotent {
		args = append(append([]string(nil), args...), "--idempotence=false")
		exp.atLeastOnce = true
	}
	out := runFault(t, fc, in, args...)
	st := out.faultCheck(t, fc, in, exp)
	if sc.hooks != nil || sc.setup != nil {
		require.Positive(t, fc.injectedCount(), "the scenario's faults never fired")
	}
	return st
}

// logDuplicates logs how many duplicate records each run stored.
func logDuplicates(t *testing.T, stats map[string]faultStats) {
	names := slices.Sorted(maps.Keys(stats))
	total := 0
	for _, name := range names {
		if n := stats[name].duplicates; n > 0 {
			t.Logf("%s: %d duplicate records stored", name, n)
			total += n
		}
	}
	t.Logf("%d duplicate records over %d runs", total, len(names))
}
