package accumulator

import (
	"context"
	"fmt"
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

// TestCompressionStaysWithinBudget checks that compressing takes no
// memory beyond the budget: in place of the records, when the reports do
// not need them (all four 16 KiB batches of a 64 KiB budget are appended
// at once, and compressing them changes nothing); with ResultRecords the
// copy goes to a buffer of its own, for which appenders leave room (the
// fourth batch waits), and compressing does not overdraw then either.
func TestCompressionStaysWithinBudget(t *testing.T) {
	for _, resultRecords := range []bool{false, true} {
		t.Run(fmt.Sprintf("ResultRecords=%v", resultRecords), func(t *testing.T) {
			cfg := testConfig()
			cfg.Codec = protocol.CodecLz4
			cfg.ResultRecords = resultRecords
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
			var ba *blockedAppend
			if resultRecords {
				ba = startBlockedAppend(t, context.Background(), a, waiting, TopicPartition{"t", 3})
			} else {
				appendN(t, a, TopicPartition{"t", 3}, 3, 1, 15000, t0)
			}
			unused := a.pool.unused()
			got := a.Drain(c, map[int32]struct{}{1: {}}, 1<<20, t0, nil)[1]
			comp := protocol.NewCompressor()
			for _, b := range got {
				require.NoError(t, b.Close(comp))
				assert.GreaterOrEqual(t, a.pool.unused(), int64(0), "compression overdrew the budget")
				if !resultRecords {
					assert.Equal(t, unused, a.pool.unused(), "compressed in place")
				}
			}
			if resultRecords {
				select {
				case err := <-ba.err:
					t.Fatalf("append went on (%v) with the reserve alone left", err)
				default:
				}
				require.True(t, got[0].Done(0, -1, nil))
				a.Deallocate(got[0])
				require.NoError(t, <-ba.err)
				got = got[1:]
			}
			complete(t, a, got, 1)
		})
	}
}
