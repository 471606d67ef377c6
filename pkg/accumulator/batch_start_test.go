package accumulator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBatchStartsAtItsPartitionsLastFill checks the size of a new batch's
// first buffer: the smallest class at first, a full-size buffer after a
// batch of the partition filled (and for a partition seen after that), and
// a small one again after a batch left on linger holding a few records.
func TestBatchStartsAtItsPartitionsLastFill(t *testing.T) {
	cfg := testConfig()
	cfg.BatchSize = 64 << 10
	cfg.BufferMemory = 1 << 20
	cfg.Linger = time.Hour
	a, _ := newTestAccumulator(t, cfg)
	c := newTestCluster(map[string]int{"t": 2}, 1)
	p0, p1 := TopicPartition{"t", 0}, TopicPartition{"t", 1}
	tail := func(tp TopicPartition) *Batch {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.deques[tp].last()
	}

	appendN(t, a, p0, 0, 1, 100, t0)
	first := tail(p0)
	assert.Equal(t, minBufferClass, cap(first.buf), "no history: the smallest class")
	for i := 1; tail(p0) == first; i++ {
		appendN(t, a, p0, i, 1, 100, t0)
	}
	assert.Equal(t, 64<<10, cap(tail(p0).buf), "after a full batch: a full-size buffer at once")
	appendN(t, a, p1, 0, 1, 100, t0)
	assert.Equal(t, 64<<10, cap(tail(p1).buf), "a new partition starts as the last batch closed")

	later := t0.Add(2 * time.Hour)
	batches := drainAll(a, c, later)
	batches = append(batches, drainAll(a, c, later)...) // one batch per partition per drain
	require.Len(t, batches, 3)
	complete(t, a, batches, 0)
	appendN(t, a, p1, 1, 1, 100, t0)
	assert.Equal(t, minBufferClass, cap(tail(p1).buf), "after a batch drained with one record: small again")
}
