package accumulator

import "slices"

// chunkSet carves the pool's class-size buffers out of chunks of one size
// (a buddy allocator): a block of a class is a chunk halved as often as
// needed, and a released block merges with its free buddy again. The Go
// heap sees only whole chunks, which are kept, so buffers of every class
// come back without making garbage or fragmenting the heap, however the
// mix of sizes changes. It is guarded by the pool's lock.
type chunkSet struct {
	minClass int // the smallest block, a power of two
	chunk    int // the chunk size: minClass << (orders-1); 0 when there are no blocks
	orders   int // block sizes: minClass << order for order in [0, orders)

	chunks [][]byte // allocated chunks; nil where one was dropped
	live   int      // non-nil chunks
	// free holds, per order, the free blocks' global offsets (chunk index
	// times chunk size plus the offset in the chunk), ascending, so the
	// lowest block is reused first.
	free [][]int
	out  map[*byte]block // handed-out blocks by their first byte
}

// block is a handed-out block: its global offset and order.
type block struct{ off, order int }

// newChunkSet returns a set whose chunks are the largest power-of-two
// multiple of minClass that is at most maxChunk (no blocks when minClass
// is larger).
func newChunkSet(minClass, maxChunk int) chunkSet {
	s := chunkSet{minClass: minClass, out: make(map[*byte]block)}
	for c := minClass; c <= maxChunk; c <<= 1 {
		s.chunk = c
		s.orders++
	}
	s.free = make([][]int, s.orders)
	return s
}

// orderOf returns the order of a block of size bytes, or -1 when size is
// not a block size.
func (s *chunkSet) orderOf(size int) int {
	c := s.minClass
	for k := 0; k < s.orders; k++ {
		if c == size {
			return k
		}
		c <<= 1
	}
	return -1
}

// take returns a free block of the given order, splitting a larger free
// block when needed; false when no free block is large enough.
func (s *chunkSet) take(order int) ([]byte, bool) {
	k := order
	for k < s.orders && len(s.free[k]) == 0 {
		k++
	}
	if k == s.orders {
		return nil, false
	}
	off := s.free[k][0]
	s.free[k] = slices.Delete(s.free[k], 0, 1)
	for ; k > order; k-- { // keep the lower half, free the upper one
		s.insertFree(k-1, off+s.minClass<<(k-1))
	}
	size := s.minClass << order
	c, o := off/s.chunk, off%s.chunk
	buf := s.chunks[c][o : o : o+size]
	s.out[&buf[:1][0]] = block{off, order}
	return buf, true
}

// addChunk allocates a chunk and adds it as a free block of the top order.
func (s *chunkSet) addChunk() {
	i := slices.IndexFunc(s.chunks, func(c []byte) bool { return c == nil })
	if i < 0 {
		i = len(s.chunks)
		s.chunks = append(s.chunks, nil)
	}
	s.chunks[i] = make([]byte, s.chunk)
	s.live++
	s.insertFree(s.orders-1, i*s.chunk)
}

// put takes back a block handed out by take (buf starts where the block
// does), merging it with its free buddies, and returns the block's size;
// false when buf is not such a block.
func (s *chunkSet) put(buf []byte) (int, bool) {
	if cap(buf) == 0 {
		return 0, false
	}
	first := &buf[:1][0]
	b, ok := s.out[first]
	if !ok {
		return 0, false
	}
	delete(s.out, first)
	off, k := b.off, b.order
	size := s.minClass << k
	for ; k < s.orders-1; k++ {
		buddy := off ^ (s.minClass << k)
		i, found := slices.BinarySearch(s.free[k], buddy)
		if !found {
			break
		}
		s.free[k] = slices.Delete(s.free[k], i, i+1)
		off = min(off, buddy)
	}
	s.insertFree(k, off)
	return size, true
}

// dropFreeChunk lets go of one wholly free chunk (the highest), for room
// for a buffer that is not a block; false when no chunk is wholly free.
func (s *chunkSet) dropFreeChunk() bool {
	top := s.orders - 1
	if s.orders == 0 || len(s.free[top]) == 0 {
		return false
	}
	off := s.free[top][len(s.free[top])-1]
	s.free[top] = s.free[top][:len(s.free[top])-1]
	s.chunks[off/s.chunk] = nil
	s.live--
	return true
}

func (s *chunkSet) insertFree(order, off int) {
	i, _ := slices.BinarySearch(s.free[order], off)
	s.free[order] = slices.Insert(s.free[order], i, off)
}
