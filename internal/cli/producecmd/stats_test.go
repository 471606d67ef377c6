package producecmd

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/config"
	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/pkg/sender"
)

// TestLatencyFromTheReadTime: a delivered record's latency counts from
// when its chunk was read.
func TestLatencyFromTheReadTime(t *testing.T) {
	s := newRunStats(&config.Options{Stats: true}, time.Now())
	read := time.Now().Add(-50 * time.Millisecond)
	s.delivered(&sender.Record{Opaque: &input.Origin{Chunk: &input.Chunk{ReadAt: read}, Number: 1}})
	require.Equal(t, uint64(1), s.latency.Count())
	assert.GreaterOrEqual(t, s.latency.Max(), int64(50*time.Millisecond))
	s.delivered(&sender.Record{}) // no Origin (not an input record): not counted
	assert.Equal(t, uint64(1), s.latency.Count())
}

// TestAckTimeIsReadOncePerTurn: the records completed in one Sender turn
// share the time the first was handled; the next turn reads the clock
// again.
func TestAckTimeIsReadOncePerTurn(t *testing.T) {
	s := newRunStats(&config.Options{Stats: true}, time.Now())
	require.NotNil(t, s)
	res := &sender.Record{Opaque: &input.Origin{Chunk: &input.Chunk{ReadAt: time.Now()}}}
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
	s.sentBytes(3 + 997)
	s.sentBytes(1000)
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
