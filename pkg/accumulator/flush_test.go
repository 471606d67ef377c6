package accumulator

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func canceledContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestFlushMakesBatchesSendable(t *testing.T) {
	cfg := testConfig()
	cfg.Linger = time.Hour
	a, _ := newTestAccumulator(t, cfg)
	c := newTestCluster(map[string]int{"t": 2}, 1, 2)
	appendN(t, a, TopicPartition{"t", 0}, 0, 1, 10, t0)
	appendN(t, a, TopicPartition{"t", 1}, 1, 1, 10, t0)
	require.Empty(t, a.Ready(c, t0).ReadyNodes)

	a.BeginFlush()
	select {
	case <-a.Wakeup():
	default:
		t.Fatal("a flush wakes the sender")
	}
	assert.Equal(t, map[int32]struct{}{1: {}, 2: {}}, a.Ready(c, t0).ReadyNodes)
	flushed := drainAll(a, c, t0)
	require.Len(t, flushed, 2)

	// A batch created after the flush began is not waited for.
	appendN(t, a, TopicPartition{"t", 0}, 2, 1, 10, t0)
	complete(t, a, flushed, 0)
	assert.NoError(t, a.AwaitFlushCompletion(canceledContext()), "all done before the wait: no need to block")
	assert.True(t, a.HasIncomplete(), "the later batch is still pending")
	assert.Empty(t, a.Ready(c, t0).ReadyNodes, "flush over: linger applies again")

	a.BeginFlush()
	assert.Equal(t, map[int32]struct{}{1: {}}, a.Ready(c, t0).ReadyNodes)
	err := a.AwaitFlushCompletion(canceledContext())
	require.ErrorIs(t, err, context.Canceled, "the later batch is part of this flush")
	assert.Empty(t, a.Ready(c, t0).ReadyNodes, "a failed wait ends the flush too")
}

func TestAwaitFlushCompletionWaitsForDone(t *testing.T) {
	a, rec := newTestAccumulator(t, testConfig())
	c := newTestCluster(map[string]int{"t": 2}, 1)
	appendN(t, a, TopicPartition{"t", 0}, 0, 3, 10, t0)
	appendN(t, a, TopicPartition{"t", 1}, 3, 3, 10, t0)
	a.BeginFlush()
	batches := drainAll(a, c, t0)
	require.Len(t, batches, 2)

	flushed := make(chan error, 1)
	go func() { flushed <- a.AwaitFlushCompletion(context.Background()) }()
	complete(t, a, batches[:1], 0)
	select {
	case err := <-flushed:
		t.Fatalf("flush returned (%v) with a batch still pending", err)
	default:
	}
	complete(t, a, batches[1:], 0)
	require.NoError(t, <-flushed)
	assert.Len(t, rec.all(), 6, "every callback ran before the flush returned")
}

func TestFlushWaitsForSplitBatches(t *testing.T) {
	a, rec := newTestAccumulator(t, testConfig())
	c := newTestCluster(map[string]int{"t": 1}, 1)
	appendN(t, a, TopicPartition{"t", 0}, 0, 4, 10, t0)
	a.BeginFlush()
	big := drainAll(a, c, t0)[0]
	require.Equal(t, 2, a.SplitAndReenqueue(big, t0))
	require.ErrorIs(t, a.AwaitFlushCompletion(canceledContext()), context.Canceled, "the split halves count as the original")
	for a.HasUndrained() {
		complete(t, a, drainAll(a, c, t0), 0)
	}
	assert.NoError(t, a.AwaitFlushCompletion(canceledContext()))
	assert.Len(t, rec.all(), 4)
}
