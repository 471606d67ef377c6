package accumulator

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// ownerRuns records the OnOwnerRun calls, and how many records the
// Callback had reported by each.
type ownerRuns struct {
	mu       sync.Mutex
	rec      *recorder
	runs     []string // "owner:records"
	reported []int    // the recorder's results at each run
}

func (o *ownerRuns) onRun(owner any, records int) {
	reported := 0
	if o.rec != nil {
		reported = len(o.rec.all())
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.runs = append(o.runs, fmt.Sprintf("%v:%d", owner, records))
	o.reported = append(o.reported, reported)
}

func (o *ownerRuns) take() ([]string, []int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	runs, reported := o.runs, o.reported
	o.runs, o.reported = nil, nil
	return runs, reported
}

// newOwnerRunAccumulator is a test accumulator whose OnOwnerRun (after
// adjust, when not nil) records into the returned ownerRuns.
func newOwnerRunAccumulator(t *testing.T, adjust func(*Config)) (*Accumulator, *ownerRuns) {
	runs := &ownerRuns{}
	cfg := testConfig()
	cfg.OnOwnerRun = runs.onRun
	if adjust != nil {
		adjust(&cfg)
	}
	a, rec := newTestAccumulator(t, cfg)
	runs.rec = rec
	return a, runs
}

// appendOwned appends n records to tp in one call of owner.
func appendOwned(t *testing.T, a *Accumulator, tp TopicPartition, owner any, first, n int, now time.Time) {
	t.Helper()
	recs := make([]Record, n)
	for i := range recs {
		recs[i] = Record{Timestamp: now.UnixMilli(), Value: value(first+i, 10), Ref: Position{Record: int64(first + i)}}
	}
	k, _, err := a.AppendRecords(context.Background(), tp, recs, owner, false, now)
	require.NoError(t, err)
	require.Equal(t, n, k)
}

// TestOnOwnerRunAfterEachRun: a completed batch reports each append
// call's run of records once, with its count, after the Callback reported
// the run's records: delivered, failed, or delivered under OnDelivered
// (no Callback); a split batch reports through its parts, each record
// once.
func TestOnOwnerRunAfterEachRun(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	tp := TopicPartition{Topic: "t", Partition: 0}
	c := newTestCluster(map[string]int{"t": 1}, 1)
	for _, tt := range []struct {
		name        string
		onDelivered bool
		err         error
	}{
		{name: "delivered"},
		{name: "failed", err: errors.New("refused")},
		{name: "delivered, counted", onDelivered: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, runs := newOwnerRunAccumulator(t, func(cfg *Config) {
				if tt.onDelivered {
					cfg.OnDelivered = func(TopicPartition, int64, int) {}
				}
			})
			appendOwned(t, a, tp, "a", 0, 2, t0)
			appendOwned(t, a, tp, "b", 2, 3, t0)
			appendOwned(t, a, tp, "a", 5, 1, t0) // another call of the same owner: a run of its own
			batches := drainAll(a, c, t0.Add(time.Second))
			require.Len(t, batches, 1)
			require.NoError(t, batches[0].Close(protocol.NewCompressor()))
			require.True(t, batches[0].Done(0, -1, tt.err))
			require.False(t, batches[0].Done(0, -1, tt.err), "done once")
			got, reported := runs.take()
			require.Equal(t, []string{"a:2", "b:3", "a:1"}, got)
			if tt.onDelivered {
				require.Equal(t, []int{0, 0, 0}, reported, "no Callback for a delivered batch")
			} else {
				require.Equal(t, []int{2, 5, 6}, reported, "each run after its records' Callbacks")
			}
		})
	}

	t.Run("split", func(t *testing.T) {
		a, runs := newOwnerRunAccumulator(t, nil)
		appendOwned(t, a, tp, "a", 0, 1, t0)
		appendOwned(t, a, tp, "b", 1, 3, t0)
		batches := drainAll(a, c, t0.Add(time.Second))
		require.Len(t, batches, 1)
		require.NoError(t, batches[0].Close(protocol.NewCompressor()))
		parts := a.Split(batches[0], t0.Add(time.Second))
		require.Len(t, parts, 2)
		got, _ := runs.take()
		require.Empty(t, got, "a split batch reports nothing itself")
		for _, p := range parts {
			require.NoError(t, p.Close(protocol.NewCompressor()))
			require.True(t, p.Done(0, -1, nil))
		}
		got, _ = runs.take()
		require.Equal(t, []string{"a:1", "b:1", "b:2"}, got, "each record once, through the parts")
	})

	t.Run("aborted", func(t *testing.T) {
		a, runs := newOwnerRunAccumulator(t, nil)
		appendOwned(t, a, tp, "a", 0, 2, t0)
		a.AbortIncompleteBatches(context.Canceled)
		got, _ := runs.take()
		require.Equal(t, []string{"a:2"}, got)
	})
}
