package accumulator

// deque is one partition's queue of batches: the head is the next to send,
// the tail the one open for appends. It is guarded by Accumulator.mu. Deques
// are short (a few batches), so inserting at the front shifts in place.
type deque struct {
	tp      TopicPartition
	batches []*Batch
	// fill is how many buffer bytes the partition's last batch closed for
	// appends held (the batch limit when a record no longer fitted); a new
	// batch starts with a buffer of that size class, so a partition whose
	// batches fill up takes one full-size buffer per batch instead of a
	// chain of doublings, and one whose batches leave on linger keeps small
	// buffers.
	fill int
}

func (d *deque) len() int { return len(d.batches) }

// first is the head batch, or nil.
func (d *deque) first() *Batch {
	if len(d.batches) == 0 {
		return nil
	}
	return d.batches[0]
}

// last is the tail batch, or nil.
func (d *deque) last() *Batch {
	if len(d.batches) == 0 {
		return nil
	}
	return d.batches[len(d.batches)-1]
}

// pushBack appends b at the tail.
func (d *deque) pushBack(b *Batch) { d.batches = append(d.batches, b) }

// insert puts b at index i, shifting the batches from i on.
func (d *deque) insert(i int, b *Batch) {
	d.batches = append(d.batches, nil)
	copy(d.batches[i+1:], d.batches[i:])
	d.batches[i] = b
}

// pollFirst removes and returns the head batch.
func (d *deque) pollFirst() *Batch {
	b := d.batches[0]
	copy(d.batches, d.batches[1:])
	d.batches[len(d.batches)-1] = nil
	d.batches = d.batches[:len(d.batches)-1]
	return b
}

// insertInSequenceOrder puts a retried batch back near the front: after the
// batches at the front that already carry a lower base sequence (Kafka's
// insertInSequenceOrder). A batch without a sequence goes first.
func (d *deque) insertInSequenceOrder(b *Batch) {
	i := 0
	if b.HasSequence() {
		for i < len(d.batches) && d.batches[i].HasSequence() && d.batches[i].baseSequence < b.baseSequence {
			i++
		}
	}
	d.insert(i, b)
}

// takeAll removes and returns every batch, appending to dst.
func (d *deque) takeAll(dst []*Batch) []*Batch {
	dst = append(dst, d.batches...)
	clear(d.batches)
	d.batches = d.batches[:0]
	return dst
}
