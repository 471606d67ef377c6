package accumulator

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// TestBufferPoolReleaseRepaysOverdraft checks that a forced allocation
// beyond the budget is a buffer of its own, dropped on release, so the
// memory the pool holds is back within the budget once it is released;
// and that a closed pool still reuses its blocks.
func TestBufferPoolReleaseRepaysOverdraft(t *testing.T) {
	p := newBufferPool(32<<10, 16<<10, nil)
	a, ok := p.tryAllocate(16 << 10)
	require.True(t, ok)
	b, ok := p.tryAllocate(16 << 10)
	require.True(t, ok)
	extra := p.forceAllocate(16 << 10)
	assert.Equal(t, int64(48<<10), p.heldLocked(), "overdrawn by the forced buffer")
	p.release(a)
	p.release(extra)
	assert.Equal(t, int64(32<<10), p.heldLocked(), "the forced buffer is dropped, the block kept")
	assert.Equal(t, int64(16<<10), p.unused())
	p.close()
	c := p.forceAllocate(16 << 10)
	assert.Equal(t, &a[:1][0], &c[:1][0], "a closed pool still reuses its blocks")
	p.release(b)
	p.release(c)
	assert.Equal(t, int64(32<<10), p.unused())
}

// TestCompressionStaysWithinBudget checks that with a codec appenders leave
// room for a full batch's compressed copy: the fourth 16 KiB batch of a
// 64 KiB budget waits, compressing a drained batch does not overdraw, and
// the waiting append goes on once a batch is released.
func TestCompressionStaysWithinBudget(t *testing.T) {
	cfg := testConfig()
	cfg.Codec = protocol.CodecLz4
	cfg.ResultRecords = false
	cfg.BatchSize = 16 << 10
	cfg.BufferMemory = 64 << 10
	cfg.Linger = time.Hour
	a, _ := newTestAccumulator(t, cfg)
	waiting := make(chan struct{}, 1)
	a.waitHook = func() { waiting <- struct{}{} }
	c := newTestCluster(map[string]int{"t": 4}, 1)
	for p := 0; p < 3; p++ {
		appendN(t, a, TopicPartition{"t", int32(p)}, p, 1, 15000, t0) // a 16 KiB buffer each
	}
	ba := startBlockedAppend(t, context.Background(), a, waiting, TopicPartition{"t", 3})

	got := a.Drain(c, map[int32]struct{}{1: {}}, 1<<20, t0, nil)[1]
	require.Len(t, got, 3)
	comp := protocol.NewCompressor()
	for _, b := range got {
		require.NoError(t, b.Close(comp))
		assert.GreaterOrEqual(t, a.pool.unused(), int64(0), "compression overdrew the budget")
	}
	select {
	case err := <-ba.err:
		t.Fatalf("append went on (%v) with the reserve alone left", err)
	default:
	}
	require.True(t, got[0].Done(0, -1, nil))
	a.Deallocate(got[0])
	require.NoError(t, <-ba.err)
	complete(t, a, got[1:], 1)
}
