package accumulator

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompletionsRoundTrip checks that owners, refs and timestamp deltas
// read back as added: owner runs by append call, refs only from the first
// record that has one, extreme deltas; and that records sharing a
// timestamp pack into one byte each.
func TestCompletionsRoundTrip(t *testing.T) {
	type rec struct {
		call  uint64
		owner any
		ref   any
		delta int32
	}
	ownerA, ownerB := new(int), new(int)
	fn := func() {} // a func owner: never compared
	tests := []struct {
		name string
		in   []rec
	}{
		{"one call, no refs", []rec{{1, ownerA, nil, 0}, {1, ownerA, nil, 0}, {1, ownerA, nil, 5}}},
		{"calls and refs", []rec{{1, ownerA, nil, 1}, {2, ownerB, "x", 1}, {2, ownerB, nil, 1}, {3, fn, 7, 0}}},
		{"same owner, new call", []rec{{4, ownerA, 1, 0}, {5, ownerA, 2, 0}}},
		{"extremes", []rec{{1, nil, nil, math.MaxInt32}, {1, nil, nil, math.MinInt32}, {1, nil, nil, math.MaxInt32}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c completions
			for _, r := range tt.in {
				c.add(r.call, r.owner, r.ref, r.delta)
			}
			rd := c.reader()
			runs := 0
			for i, want := range tt.in {
				var got completion
				rd.next(&got)
				assert.Equal(t, want.ref, got.ref, "record %d ref", i)
				assert.Equal(t, want.delta, got.timestampDelta, "record %d delta", i)
				assert.True(t, sameRef(want.owner, got.owner), "record %d owner", i)
				if i > 0 && tt.in[i-1].call != want.call {
					runs++
				}
				assert.Equal(t, runs, got.run, "record %d run", i)
			}
			c.reset()
			assert.Empty(t, c.stamps)
			assert.Empty(t, c.refs)
			c.add(9, ownerB, nil, 3)
			rd = c.reader()
			var got completion
			rd.next(&got)
			assert.Equal(t, int32(3), got.timestampDelta, "after reset: relative to 0 again")
			assert.True(t, sameRef(ownerB, got.owner))
		})
	}
	var c completions
	for range 1000 {
		c.add(1, ownerA, nil, 3)
	}
	assert.LessOrEqual(t, len(c.stamps), 1000+2, "one byte a record")
	assert.Empty(t, c.refs, "no refs kept when no record has one")
	require.Len(t, c.owners, 1)
}

// sameRef compares owners that may be funcs (which == cannot compare) by
// whether both are nil or both are the same pointer or func.
func sameRef(a, b any) bool {
	if f, ok := a.(func()); ok {
		g, ok := b.(func())
		return ok && (f == nil) == (g == nil)
	}
	return a == b
}

// TestCompletionsAddRunIsAddEach checks that adding a call's records in
// one run builds the same list as adding them one by one: refs from the
// first record that has one (in this run or an earlier one), timestamp
// deltas relative to the batch's base, owner runs by call.
func TestCompletionsAddRunIsAddEach(t *testing.T) {
	ownerA, ownerB := new(int), new(int)
	const base = 1_000_000
	type call struct {
		id    uint64
		owner any
		recs  []Record
	}
	recs := func(refs []any, stamps ...int64) []Record {
		out := make([]Record, len(stamps))
		for i, ts := range stamps {
			out[i].Timestamp = base + ts
			if i < len(refs) {
				out[i].Ref = refs[i]
			}
		}
		return out
	}
	tests := []struct {
		name  string
		calls []call
	}{
		{"no refs", []call{{1, ownerA, recs(nil, 0, 0, 0)}, {2, ownerB, recs(nil, 5, 5)}}},
		{"refs from the middle of a run", []call{{1, ownerA, recs([]any{nil, nil, "c", nil}, 0, 1, 1, 1)}}},
		{"refs from a later run", []call{{1, ownerA, recs(nil, 0, 0)}, {2, ownerA, recs([]any{nil, 7}, 3, 2)}}},
		{"same call twice", []call{{1, ownerA, recs([]any{1}, 0)}, {1, ownerA, recs([]any{2}, 0)}}},
		{"wide deltas", []call{{1, nil, recs(nil, 0, math.MaxInt32, -base, 1<<40)}}},
		{"empty run", []call{{1, ownerA, nil}, {2, ownerB, recs([]any{"x"}, 4)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var each, run completions
			for _, c := range tt.calls {
				for i := range c.recs {
					each.add(c.id, c.owner, c.recs[i].Ref, int32(c.recs[i].Timestamp-base))
				}
				run.addRun(c.id, c.owner, c.recs, base)
			}
			assert.Equal(t, each.stamps, run.stamps, "stamps")
			assert.Equal(t, each.refs, run.refs, "refs")
			assert.Equal(t, each.count, run.count, "count")
			assert.Equal(t, each.lastDelta, run.lastDelta, "last delta")
			require.Len(t, run.owners, len(each.owners), "owner runs")
			for i := range each.owners {
				assert.Equal(t, each.owners[i].start, run.owners[i].start, "owner run %d", i)
				assert.True(t, sameRef(each.owners[i].owner, run.owners[i].owner), "owner run %d", i)
			}
		})
	}
}
