package accumulator

import (
	"context"
	"fmt"
	"sync"
)

// minBufferClass is the smallest pooled buffer size. Batches start at this
// size (or at the batch size when smaller) and double as they fill.
const minBufferClass = 1 << 10

// bufferPool is the memory budget for batch buffers (Kafka's BufferPool).
// Every buffer handed out is charged at its capacity. Buffers of a class
// size up to the full batch size are blocks of chunks (see chunkSet): the
// chunks stay allocated, within the budget, and released blocks are
// handed out again, of whatever class; a chunk is dropped only to make
// room for a buffer of another size. Reservations are served in FIFO
// order.
type bufferPool struct {
	total    int64  // immutable: the budget in bytes
	minClass int    // immutable: the smallest class, a power of two
	onWait   func() // immutable: called, without the lock, when an allocation starts to wait
	// reserve is the room appenders leave for the sender's forced
	// allocations (a compressed copy of a full batch) while any buffer is
	// out; zero without a codec. Immutable after setup.
	reserve int64

	mu      sync.Mutex
	chunks  chunkSet      // guarded by mu
	inUse   int64         // guarded by mu: bytes of blocks handed out
	direct  int64         // guarded by mu: bytes of other buffers handed out; beyond the chunks' room after an overdraft
	waiters []*poolWaiter // guarded by mu: blocked allocations, oldest first
	closed  bool          // guarded by mu
}

// poolWaiter is one blocked allocation.
type poolWaiter struct {
	size  int
	ready chan struct{} // closed when granted or when the pool closes
	// The fields below are guarded by the pool's mu until ready is closed.
	granted bool
	buf     []byte // a cached buffer to reuse; nil means allocate one
	err     error
}

// newBufferPool returns a pool with a budget of total bytes whose smallest
// class is min(minBufferClass, the next power of two >= firstClass).
func newBufferPool(total int64, firstClass int, onWait func()) *bufferPool {
	c := 1
	for c < firstClass && c < minBufferClass {
		c <<= 1
	}
	p := &bufferPool{total: total, minClass: c, onWait: onWait}
	full := c
	for full < firstClass {
		full <<= 1
	}
	p.chunks = newChunkSet(c, int(min(int64(full), total)))
	return p
}

// heldLocked is the memory the pool holds: its chunks and the other
// buffers out.
func (p *bufferPool) heldLocked() int64 {
	return int64(p.chunks.live)*int64(p.chunks.chunk) + p.direct
}

// sizeFor is the capacity to allocate for n bytes: the smallest class that
// holds n, or n itself when that class would exceed the budget.
func (p *bufferPool) sizeFor(n int) int {
	c := p.minClass
	for c < n {
		c <<= 1
	}
	if int64(c) > p.total {
		return n
	}
	return c
}

// growSize is the capacity to grow a buffer of capacity cur to when it
// must hold need bytes: at least double, within the budget.
func (p *bufferPool) growSize(cur, need int) int {
	c := p.sizeFor(max(need, 2*cur))
	if int64(c) > p.total {
		c = max(need, int(p.total))
	}
	return c
}

// allocateLocked charges size bytes for an appender: it succeeds only if
// the reserve is left (or nothing is out, so nothing would come back). See
// takeLocked.
func (p *bufferPool) allocateLocked(size int) ([]byte, bool) {
	unused := p.total - p.inUse - p.direct
	if p.reserve > 0 && unused-int64(size) < p.reserve && unused < p.total {
		return nil, false
	}
	return p.takeLocked(size)
}

// takeLocked charges size bytes. It returns a block when size is a block
// size and a free block or room for another chunk is left; otherwise nil
// (the caller allocates outside the lock) when the budget has room for a
// buffer of its own, after dropping wholly free chunks if needed; and
// false when it has not.
func (p *bufferPool) takeLocked(size int) ([]byte, bool) {
	s := &p.chunks
	if k := s.orderOf(size); k >= 0 {
		buf, ok := s.take(k)
		if !ok && p.heldLocked()+int64(s.chunk) <= p.total {
			s.addChunk()
			buf, ok = s.take(k)
		}
		if ok {
			p.inUse += int64(size)
			return buf, true
		}
	}
	for p.heldLocked()+int64(size) > p.total && s.dropFreeChunk() {
	}
	if p.heldLocked()+int64(size) > p.total {
		return nil, false
	}
	p.direct += int64(size)
	return nil, true
}

// materialize turns a granted allocation into an empty buffer of capacity
// size.
func materialize(buf []byte, size int) []byte {
	if buf == nil {
		return make([]byte, 0, size)
	}
	return buf[:0]
}

// tryAllocate returns a buffer of capacity size if the budget covers it
// now and nobody is waiting ahead; it never blocks.
func (p *bufferPool) tryAllocate(size int) ([]byte, bool) {
	p.mu.Lock()
	if p.closed || len(p.waiters) > 0 {
		p.mu.Unlock()
		return nil, false
	}
	buf, ok := p.allocateLocked(size)
	p.mu.Unlock()
	if !ok {
		return nil, false
	}
	return materialize(buf, size), true
}

// allocate returns a buffer of capacity size, waiting in FIFO order until
// the budget covers it, ctx is done or the pool is closed (ErrClosed).
func (p *bufferPool) allocate(ctx context.Context, size int) ([]byte, error) {
	if int64(size) > p.total {
		return nil, fmt.Errorf("%w: a buffer of %d bytes exceeds the buffer memory of %d bytes", ErrRecordTooLarge, size, p.total)
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	if len(p.waiters) == 0 {
		if buf, ok := p.allocateLocked(size); ok {
			p.mu.Unlock()
			return materialize(buf, size), nil
		}
	}
	w := &poolWaiter{size: size, ready: make(chan struct{})}
	p.waiters = append(p.waiters, w)
	p.mu.Unlock()
	if p.onWait != nil {
		p.onWait()
	}
	return p.wait(ctx, w)
}

// wait blocks until w is granted, ctx is done or the pool closes.
func (p *bufferPool) wait(ctx context.Context, w *poolWaiter) ([]byte, error) {
	select {
	case <-w.ready:
	case <-ctx.Done():
		p.mu.Lock()
		if !w.granted && w.err == nil {
			p.removeWaiterLocked(w)
			p.grantLocked() // the next waiter may fit now
			p.mu.Unlock()
			return nil, fmt.Errorf("wait for %d bytes of buffer memory: %w", w.size, ctx.Err())
		}
		p.mu.Unlock()
	}
	if w.err != nil {
		return nil, w.err
	}
	return materialize(w.buf, w.size), nil
}

func (p *bufferPool) removeWaiterLocked(w *poolWaiter) {
	for i, x := range p.waiters {
		if x == w {
			copy(p.waiters[i:], p.waiters[i+1:])
			p.waiters[len(p.waiters)-1] = nil
			p.waiters = p.waiters[:len(p.waiters)-1]
			return
		}
	}
}

// grantLocked serves waiters in order while the budget covers the oldest.
func (p *bufferPool) grantLocked() {
	for len(p.waiters) > 0 {
		w := p.waiters[0]
		buf, ok := p.allocateLocked(w.size)
		if !ok {
			return
		}
		w.buf, w.granted = buf, true
		close(w.ready)
		p.removeWaiterLocked(w)
	}
}

// forceAllocate returns a buffer of capacity size without waiting, even if
// that overdraws the budget; appenders then wait until it is released. The
// sender uses it for compression and splitting, which must not block.
func (p *bufferPool) forceAllocate(size int) []byte {
	p.mu.Lock()
	buf, ok := p.takeLocked(size)
	if !ok {
		p.direct += int64(size)
	}
	p.mu.Unlock()
	return materialize(buf, size)
}

// charge accounts for n bytes allocated outside the pool (a buffer that an
// encoder grew); they are returned by releasing that buffer.
func (p *bufferPool) charge(n int) {
	p.mu.Lock()
	p.direct += int64(n)
	p.mu.Unlock()
}

// release returns a buffer's capacity to the budget: a block goes back to
// its chunk, any other buffer is left to the garbage collector (so the
// memory held never exceeds the budget for longer than an overdraft
// lasts). A closed pool still takes blocks back: the batches left to send
// after Close reuse them for their compressed copies.
func (p *bufferPool) release(buf []byte) {
	size := cap(buf)
	if size == 0 {
		return
	}
	p.mu.Lock()
	if n, ok := p.chunks.put(buf); ok {
		p.inUse -= int64(n)
	} else {
		p.direct -= int64(size)
	}
	p.grantLocked()
	p.mu.Unlock()
}

// close fails every waiting and later allocate with ErrClosed. Releases and
// forced allocations keep working so in-flight batches can finish.
func (p *bufferPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, w := range p.waiters {
		w.err = ErrClosed
		close(w.ready)
	}
	clear(p.waiters)
	p.waiters = p.waiters[:0]
}

// queued is the number of blocked allocations.
func (p *bufferPool) queued() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.waiters)
}

// unused is the budget not handed out (negative during an overdraft).
func (p *bufferPool) unused() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.total - p.inUse - p.direct
}
