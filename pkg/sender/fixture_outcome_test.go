package sender

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/accumulator"
)

// The outcome side of the fixture: what the callback reported, and ways
// to wait for other goroutines without sleeping.

// outcomesOf returns the outcomes of a position.
func (f *fixture) outcomesOf(pos Position) []outcome {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.outcomes[pos])
}

// pending reports whether a position has no outcome yet.
func (f *fixture) pending(pos Position) bool { return len(f.outcomesOf(pos)) == 0 }

// outcome returns the one outcome of a position, failing unless there is
// exactly one.
func (f *fixture) outcome(pos Position) outcome {
	f.t.Helper()
	outs := f.outcomesOf(pos)
	require.Len(f.t, outs, 1, "outcomes of record %d", pos.Record)
	return outs[0]
}

// requireExactlyOnce checks that every record sent so far has exactly one
// outcome, and that no other position was reported.
func (f *fixture) requireExactlyOnce() {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for r := int64(1); r <= f.nextPos; r++ {
		pos := Position{Source: 1, Record: r}
		require.Len(f.t, f.outcomes[pos], 1, "outcomes of record %d", r)
	}
	require.Len(f.t, f.outcomes, int(f.nextPos), "outcomes for positions never sent")
}

// callbackOrder returns the positions in the order their callbacks ran.
func (f *fixture) callbackOrder() []Position {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.order)
}

// tp names a partition.
func tp(topic string, partition int32) accumulator.TopicPartition {
	return accumulator.TopicPartition{Topic: topic, Partition: partition}
}

// waitUntil waits, without sleeping, until cond holds (another goroutine
// makes progress meanwhile); it fails the test after a generous bound.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		runtime.Gosched()
	}
}

// receive waits for a value from ch, failing after a generous bound.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("gave up waiting: %s", what)
		var zero T
		return zero
	}
}
