package accumulator

import (
	"cmp"
	"slices"
	"unsafe"
)

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
	// byAddress lists the live chunks' indexes by the address of their
	// first byte, so that put finds a block's chunk by binary search (the
	// Go heap does not move objects), and out holds, per chunk and
	// minClass unit, 1 + the order of the handed-out block that starts
	// there, 0 for none: a map of the blocks out cost more than the rest
	// of an append of a small batch.
	byAddress []int
	out       [][]uint8
}

// newChunkSet returns a set whose chunks are the largest power-of-two
// multiple of minClass that is at most maxChunk (no blocks when minClass
// is larger).
func newChunkSet(minClass, maxChunk int) chunkSet {
	s := chunkSet{minClass: minClass}
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
	s.out[c][o/s.minClass] = uint8(order + 1)
	return s.chunks[c][o : o : o+size], true
}

// address is the address of b's first byte, used only to order and find
// chunks, never turned back into a pointer: Go's heap does not move
// objects, and s.chunks keeps every chunk alive while it is in the set.
func address(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// addChunk allocates a chunk and adds it as a free block of the top order.
func (s *chunkSet) addChunk() {
	i := slices.IndexFunc(s.chunks, func(c []byte) bool { return c == nil })
	if i < 0 {
		i = len(s.chunks)
		s.chunks = append(s.chunks, nil)
	}
	s.chunks[i] = make([]byte, s.chunk)
	for len(s.out) <= i {
		s.out = append(s.out, nil)
	}
	s.out[i] = make([]uint8, s.chunk/s.minClass)
	at, _ := slices.BinarySearchFunc(s.byAddress, address(s.chunks[i]), func(c int, a uintptr) int {
		return cmp.Compare(address(s.chunks[c]), a)
	})
	s.byAddress = slices.Insert(s.byAddress, at, i)
	s.live++
	s.insertFree(s.orders-1, i*s.chunk)
}

// blockOf returns the chunk, the offset in it and the order of a
// handed-out block whose first byte buf's is, and clears its mark; false
// when buf is not such a block.
func (s *chunkSet) blockOf(buf []byte) (c, o, order int, ok bool) {
	addr := address(buf)
	// The last chunk starting at or before addr.
	i, found := slices.BinarySearchFunc(s.byAddress, addr, func(c int, a uintptr) int {
		return cmp.Compare(address(s.chunks[c]), a)
	})
	if !found {
		i--
	}
	if i < 0 {
		return 0, 0, 0, false
	}
	c = s.byAddress[i]
	delta := addr - address(s.chunks[c])
	if delta >= uintptr(s.chunk) || delta%uintptr(s.minClass) != 0 {
		return 0, 0, 0, false
	}
	o = int(delta)
	mark := &s.out[c][o/s.minClass]
	if *mark == 0 {
		return 0, 0, 0, false
	}
	order = int(*mark) - 1
	*mark = 0
	return c, o, order, true
}

// put takes back a block handed out by take (buf starts where the block
// does), merging it with its free buddies, and returns the block's size;
// false when buf is not such a block.
func (s *chunkSet) put(buf []byte) (int, bool) {
	if cap(buf) == 0 {
		return 0, false
	}
	c, o, k, ok := s.blockOf(buf)
	if !ok {
		return 0, false
	}
	off := c*s.chunk + o
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
	c := off / s.chunk
	s.byAddress = slices.DeleteFunc(s.byAddress, func(i int) bool { return i == c })
	s.chunks[c] = nil
	s.out[c] = nil
	s.live--
	return true
}

func (s *chunkSet) insertFree(order, off int) {
	i, _ := slices.BinarySearch(s.free[order], off)
	s.free[order] = slices.Insert(s.free[order], i, off)
}
