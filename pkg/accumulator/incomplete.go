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
func (l *incompleteList) pushBack(b *Batch) {
	b.links = incompleteLinks{prev: l.tail, listed: true}
	if l.tail != nil {
		l.tail.links.next = b
	} else {
		l.head = b
	}
	l.tail = b
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
	if !b.links.listed {
		for _, p := range parts {
			l.pushBack(p)
		}
		return
	}
	prev, next := b.links.prev, b.links.next
	b.links = incompleteLinks{}
	l.n--
	for _, p := range parts {
		p.links = incompleteLinks{prev: prev, listed: true}
		if prev != nil {
			prev.links.next = p
		} else {
			l.head = p
		}
		prev = p
		l.n++
	}
	if next != nil {
		next.links.prev = prev
	} else {
		l.tail = prev
	}
	if prev != nil {
		prev.links.next = next
	}
}
