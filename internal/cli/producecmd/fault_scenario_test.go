package producecmd_test

import (
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
	// pace, when set, spreads the input over about that long.
	pace time.Duration
}

// afterRequests returns a fault filter that lets a fault act only once the
// cluster has received n Produce requests, so faults hit a run in flight.
func afterRequests(fc *faultCluster, n int) func(kmsg.Request) bool {
	return func(kmsg.Request) bool { return fc.produceRequests() >= n }
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
	if extra := fc.runMayFail(); extra != nil {
		base := exp.mayFail
		exp.mayFail = func(r *faultReport) bool { return extra(r) || base != nil && base(r) }
	}
	paced := *in
	paced.pace = sc.pace
	out := runFault(t, fc, &paced, args...)
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
