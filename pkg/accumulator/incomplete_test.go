package accumulator

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// listed returns the ids of the list's batches, head first, checking the
// links both ways.
func listed(t *testing.T, l *incompleteList) []uint64 {
	t.Helper()
	var ids []uint64
	var prev *Batch
	for b := l.head; b != nil; b = b.links.next {
		assert.Same(t, prev, b.links.prev, "back link of %d", b.id)
		assert.True(t, b.links.listed)
		ids = append(ids, b.id)
		prev = b
	}
	assert.Same(t, prev, l.tail)
	assert.Len(t, ids, l.n)
	return ids
}

func TestIncompleteList(t *testing.T) {
	var l incompleteList
	bs := make([]*Batch, 5)
	for i := range bs {
		bs[i] = &Batch{id: uint64(i)}
		l.pushBack(bs[i])
	}
	assert.Equal(t, []uint64{0, 1, 2, 3, 4}, listed(t, &l))
	l.remove(bs[2])
	l.remove(bs[2]) // not in the list any more: nothing
	assert.False(t, bs[2].links.listed)
	assert.Equal(t, []uint64{0, 1, 3, 4}, listed(t, &l))
	parts := []*Batch{{id: 10}, {id: 11}}
	l.replace(bs[0], parts) // at the head
	assert.Equal(t, []uint64{10, 11, 1, 3, 4}, listed(t, &l))
	l.replace(bs[4], []*Batch{{id: 40}, {id: 41}}) // at the tail
	assert.Equal(t, []uint64{10, 11, 1, 3, 40, 41}, listed(t, &l))
	l.replace(bs[1], []*Batch{{id: 20}}) // inside
	assert.Equal(t, []uint64{10, 11, 20, 3, 40, 41}, listed(t, &l))
	for l.head != nil {
		l.remove(l.head)
	}
	assert.Empty(t, listed(t, &l))
	assert.Nil(t, l.tail)
}
