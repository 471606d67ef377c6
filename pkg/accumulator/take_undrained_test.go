package accumulator

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTakeUndrainedLeavesTheAccumulatorOpen(t *testing.T) {
	a, rec := newTestAccumulator(t, testConfig())
	c := newTestCluster(map[string]int{"t": 2}, 1)
	appendN(t, a, TopicPartition{"t", 0}, 0, 3, 10, t0)
	inFlight := drainAll(a, c, t0.Add(time.Hour))
	require.Len(t, inFlight, 1)
	appendN(t, a, TopicPartition{"t", 0}, 3, 2, 10, t0)
	appendN(t, a, TopicPartition{"t", 1}, 5, 1, 10, t0)

	taken := a.TakeUndrained()
	require.Len(t, taken, 2)
	assert.Empty(t, rec.all(), "taken batches are not completed")
	assert.False(t, a.HasUndrained())

	aborted := errors.New("transaction aborted")
	for _, b := range taken {
		require.True(t, b.Done(-1, -1, aborted))
		a.Deallocate(b)
	}
	got := rec.all()
	require.Len(t, got, 3)
	for _, r := range got {
		assert.ErrorIs(t, r.Err, aborted)
	}

	// Appends go on, into new batches.
	res, err := a.Append(context.Background(), TopicPartition{"t", 0}, Record{Timestamp: 0, Key: nil, Value: []byte("x"), Headers: nil, Ref: Position{Record: 9}}, nil, false, t0)
	require.NoError(t, err)
	assert.True(t, res.NewBatchCreated)
	complete(t, a, inFlight, 0)
	assert.True(t, a.HasIncomplete(), "the new batch")
}
