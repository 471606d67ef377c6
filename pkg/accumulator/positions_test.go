package accumulator

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPositionListRoundTrip checks that positions and timestamp deltas
// read back as added, across source changes, backward and extreme record
// numbers and extreme deltas, and that the common case packs into two
// bytes a record.
func TestPositionListRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   []position
	}{
		{"consecutive", []position{{Position{0, 1}, 0}, {Position{0, 2}, 0}, {Position{0, 3}, 5}}},
		{"sources", []position{{Position{2, 7}, 1}, {Position{2, 8}, 1}, {Position{3, 1}, 1}, {Position{-1, 0}, 0}, {Position{math.MaxInt32, 4}, 0}}},
		{"backwards", []position{{Position{0, 100}, 9}, {Position{0, 3}, -4}, {Position{0, -5}, 2}}},
		{"extremes", []position{
			{Position{math.MinInt32, math.MaxInt64}, math.MaxInt32},
			{Position{math.MinInt32, math.MinInt64}, math.MinInt32},
			{Position{0, math.MaxInt64}, math.MaxInt32},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l positionList
			for _, p := range tt.in {
				l.add(p.Position, p.timestampDelta)
			}
			r := l.reader()
			for i, want := range tt.in {
				assert.Equal(t, want, r.next(), "record %d", i)
			}
			l.reset(l.buf)
			assert.Empty(t, l.buf)
			l.add(Position{0, 5}, 0)
			r = l.reader()
			assert.Equal(t, position{Position{0, 5}, 0}, r.next(), "after reset: relative to the start again")
		})
	}
	var l positionList
	for i := int64(1); i <= 1000; i++ {
		l.add(Position{Record: i}, 3)
	}
	assert.LessOrEqual(t, len(l.buf), 2*1000+2, "two bytes a record")
}
