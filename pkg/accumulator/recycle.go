package accumulator

// maxFreeBatches bounds the Batch structs kept for reuse (about 400 bytes
// each): enough for the batches a thousand partitions keep in flight.
const maxFreeBatches = 4096

// RecycleBatches makes the batches deallocated since the last call
// available to new batches, which then reuse their structs instead of
// allocating (with many partitions, a small batch per partition per
// linger, the structs were most of the garbage). Call it only when
// nothing refers to those batches any more: the sender calls it at the
// start of its turn, once the references of the turn before (the response
// it handled, the batch it split) are gone. Without calls nothing is
// reused.
func (a *Accumulator) RecycleBatches() {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := min(len(a.retired), maxFreeBatches-len(a.freeBatches))
	a.freeBatches = append(a.freeBatches, a.retired[:n]...)
	clear(a.retired)
	a.retired = a.retired[:0]
}

// retireLocked keeps a batch whose memory was released for RecycleBatches.
// a.mu must be held.
func (a *Accumulator) retireLocked(b *Batch) {
	if len(a.retired)+len(a.freeBatches) < maxFreeBatches {
		a.retired = append(a.retired, b)
	}
}

// batchStructLocked returns a recycled Batch, zeroed, or a new one. a.mu
// must be held.
func (a *Accumulator) batchStructLocked() *Batch {
	n := len(a.freeBatches)
	if n == 0 {
		return new(Batch)
	}
	b := a.freeBatches[n-1]
	a.freeBatches[n-1] = nil
	a.freeBatches = a.freeBatches[:n-1]
	*b = Batch{}
	return b
}
