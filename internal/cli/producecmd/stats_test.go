package producecmd

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/config"
	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/sender"
)

func TestReadTime(t *testing.T) {
	created := time.UnixMilli(1_700_000_000_000).Add(400 * time.Microsecond) // the batch's first record
	ack := created.Add(50 * time.Millisecond)
	tests := []struct {
		name       string
		createTime time.Time
		want       time.Time
	}{
		{"read later than the batch's first record", created.Add(7 * time.Millisecond), created.Add(6600 * time.Microsecond)},
		{"read in the same millisecond", created.Add(100 * time.Microsecond), created},
		{"own timestamp in the past", created.Add(-time.Hour), created},
		{"own timestamp after the acknowledgement", ack.Add(time.Second), created},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &accumulator.Result{BatchCreatedAt: created, CreateTime: tt.createTime.UnixMilli()}
			got := readTime(res, ack)
			assert.True(t, got.Equal(tt.want), "got %v, want %v", got, tt.want)
			assert.False(t, got.After(tt.createTime) && tt.createTime.After(created), "never later than the record's read")
		})
	}
}

// TestAckTimeIsReadOncePerTurn: the records completed in one Sender turn
// share the time the first was handled; the next turn reads the clock
// again.
func TestAckTimeIsReadOncePerTurn(t *testing.T) {
	s := newRunStats(&config.Options{Stats: true}, time.Now())
	require.NotNil(t, s)
	res := &accumulator.Result{BatchCreatedAt: time.Now()}
	s.delivered(res)
	first := s.ackAt
	require.False(t, first.IsZero())
	s.delivered(res)
	assert.Equal(t, first, s.ackAt, "same turn")
	s.endTurn()
	assert.True(t, s.ackAt.IsZero())
	s.delivered(res)
	assert.False(t, s.ackAt.IsZero())
	assert.Equal(t, uint64(3), s.latency.Count())
}

func TestNoRunStatsWithoutTheOptions(t *testing.T) {
	assert.Nil(t, newRunStats(&config.Options{}, time.Now()))
	assert.NotNil(t, newRunStats(&config.Options{StatsJSON: "x.json"}, time.Now()))
}

func TestStatsSummary(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	s := newRunStats(&config.Options{Stats: true}, start)
	s.sent([]byte("key"), make([]byte, 997))
	s.sent(nil, make([]byte, 1000))
	end := start.Add(2 * time.Second)
	sum := s.summary(2, 1, sender.Stats{Requests: 3, Batches: 4, WireBytes: 2345, Retries: 5, Splits: 1}, end)
	assert.Equal(t, StatsSummary{RecordsDelivered: 2, RecordsFailed: 1, RecordBytes: 2000, WireBytes: 2345,
		WallTimeMs: 2000, RecordsPerSec: 1, MBPerSec: 0.001, ProduceRequests: 3, Batches: 4, RecordsPerBatch: 0.5,
		Retries: 5, BatchSplits: 1}, sum, "no latency without a delivered record")
	text := string(sum.appendText(nil))
	assert.Contains(t, text, "stats: latency   none: no record was delivered\n")
	assert.Contains(t, text, "stats: time      2s, 1.0 records/s, 0.00 MB/s\n")
	assert.Len(t, strings.Split(strings.TrimSuffix(text, "\n"), "\n"), 6)

	for _, ms := range []int{10, 20, 30, 40} {
		s.latency.Record(int64(ms) * int64(time.Millisecond))
	}
	sum = s.summary(4, 0, sender.Stats{}, end)
	require.NotNil(t, sum.LatencyMs.P50)
	assert.InDelta(t, 20, *sum.LatencyMs.P50, 20*0.005)
	assert.InDelta(t, 40, *sum.LatencyMs.P99, 40*0.005)
	assert.Equal(t, 40.0, *sum.LatencyMs.Max)
	assert.Zero(t, sum.RecordsPerBatch, "no batch sent")
}
