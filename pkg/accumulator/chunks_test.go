package accumulator

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChunkSetSplitsAndMerges checks the buddy blocks: a small block
// splits a chunk, the lowest free block is reused first, and released
// buddies merge back into a whole chunk.
func TestChunkSetSplitsAndMerges(t *testing.T) {
	s := newChunkSet(16<<10, 64<<10)
	require.Equal(t, 64<<10, s.chunk)
	require.Equal(t, 3, s.orders)
	_, ok := s.take(0)
	require.False(t, ok, "no chunk yet")
	s.addChunk()
	a, ok := s.take(0)
	require.True(t, ok)
	b, ok := s.take(0)
	require.True(t, ok)
	c, ok := s.take(1)
	require.True(t, ok)
	assert.Equal(t, 16<<10, cap(a))
	assert.Equal(t, 32<<10, cap(c))
	chunk := s.chunks[0]
	assert.Equal(t, &chunk[0], &a[:1][0], "the lowest block first")
	assert.Equal(t, &chunk[16<<10], &b[:1][0])
	assert.Equal(t, &chunk[32<<10], &c[:1][0])
	_, ok = s.take(0)
	assert.False(t, ok, "the chunk is spent")

	put := func(b []byte) bool { _, ok := s.put(b); return ok }
	n, ok := s.put(a[:0:1])
	assert.True(t, ok)
	assert.Equal(t, 16<<10, n, "the block's size, whatever the slice's capacity")
	assert.False(t, put(a), "a block goes back once")
	assert.False(t, put(make([]byte, 0, 16<<10)), "not a block")
	_, ok = s.take(1)
	assert.False(t, ok, "a 16 KiB hole does not hold 32 KiB")
	assert.True(t, put(b))
	d, ok := s.take(1)
	require.True(t, ok, "the freed buddies merged")
	assert.Equal(t, &chunk[0], &d[:1][0])
	assert.True(t, put(d))
	assert.True(t, put(c))
	assert.Equal(t, []int{0}, s.free[2], "one whole free chunk again")
	assert.True(t, s.dropFreeChunk())
	assert.Equal(t, 0, s.live)
	assert.False(t, s.dropFreeChunk())
}

// TestBufferPoolReusesBlocksAcrossClasses checks that under a short budget
// a changing mix of sizes is served from the same chunks: no buffer is
// allocated beyond the first chunks and none is dropped.
func TestBufferPoolReusesBlocksAcrossClasses(t *testing.T) {
	p := newBufferPool(128<<10, 64<<10, nil)
	chunk := func(b []byte) *byte { return &b[:1][0] }
	big1, ok := p.tryAllocate(64 << 10)
	require.True(t, ok)
	big2, ok := p.tryAllocate(64 << 10)
	require.True(t, ok)
	first := map[*byte]bool{chunk(big1): true, chunk(big2): true}
	p.release(big1)
	p.release(big2)
	for round := 0; round < 3; round++ {
		var small [][]byte
		for i := 0; i < 8; i++ {
			b, ok := p.tryAllocate(16 << 10)
			require.True(t, ok, "round %d, buffer %d", round, i)
			small = append(small, b)
		}
		_, ok := p.tryAllocate(16 << 10)
		assert.False(t, ok, "the budget is spent")
		for _, b := range small {
			p.release(b)
		}
		b1, ok := p.tryAllocate(64 << 10)
		require.True(t, ok)
		b2, ok := p.tryAllocate(64 << 10)
		require.True(t, ok)
		assert.True(t, first[chunk(b1)] && first[chunk(b2)], "round %d: the same chunks", round)
		p.release(b1)
		p.release(b2)
	}
	assert.Equal(t, 2, p.chunks.live)
	assert.Equal(t, int64(0), p.direct)
	assert.Equal(t, int64(128<<10), p.unused())
}
