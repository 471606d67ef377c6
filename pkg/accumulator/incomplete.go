package accumulator

// incompleteList holds the batches not yet done, in the order of their
// ids (creation order; the parts of a split batch take its place and its
// id): the oldest is the head, so a flush knows at once whether a batch
// older than its target is left. It is intrusive (each batch carries its
// links), so adding and removing a batch allocate nothing and cost the
// same with ten batches or ten thousand. Guarded by Accumulator.mu.
type incompleteList struct {
	head, tail *Batch
	n          int
}

// incompleteLinks are a batch's place in the list.
type incompleteLinks struct {
	prev, next *Batch
	listed     bool
}

// pushBack adds a new batch, the newest.
func (l *incompleteList) pushBack(b *Batch) { l.linkAfter(l.tail, b) }

// linkAfter puts b after prev, or at the head when prev is nil.
func (l *incompleteList) linkAfter(prev, b *Batch) {
	next := l.head
	if prev != nil {
		next = prev.links.next
	}
	b.links = incompleteLinks{prev: prev, next: next, listed: true}
	if prev != nil {
		prev.links.next = b
	} else {
		l.head = b
	}
	if next != nil {
		next.links.prev = b
	} else {
		l.tail = b
	}
	l.n++
}

// remove takes b out of the list; it does nothing when b is not in it.
func (l *incompleteList) remove(b *Batch) {
	if !b.links.listed {
		return
	}
	prev, next := b.links.prev, b.links.next
	if prev != nil {
		prev.links.next = next
	} else {
		l.head = next
	}
	if next != nil {
		next.links.prev = prev
	} else {
		l.tail = prev
	}
	b.links = incompleteLinks{}
	l.n--
}

// replace puts parts, in order, where b is (at the end when b is not in
// the list, which a pending batch always is).
func (l *incompleteList) replace(b *Batch, parts []*Batch) {
	prev := l.tail
	if b.links.listed {
		prev = b.links.prev
		l.remove(b)
	}
	for _, p := range parts {
		l.linkAfter(prev, p)
		prev = p
	}
}
