package perfcmd

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
	"github.com/kproduce/kproduce/pkg/sender"
)

// windowLog keeps the windows a collector prints.
type windowLog struct{ windows []windowReport }

func (l *windowLog) window(w windowReport) { l.windows = append(l.windows, w) }

// testCollector is a collector on a manual clock.
type testCollector struct {
	*collector
	clock  time.Time
	log    *windowLog
	errOut bytes.Buffer
}

func newTestCollector(interval time.Duration) *testCollector {
	tc := &testCollector{clock: time.Unix(1_700_000_000, 0), log: &windowLog{}}
	tc.collector = newCollector(interval, "t", tc.log, &tc.errOut)
	tc.now = func() time.Time { return tc.clock }
	tc.begin(tc.clock, 3)
	return tc
}

// send hands over n records of size bytes, steady or not, and returns
// their records as the producer would complete them.
func (tc *testCollector) send(n int, size int64, steady bool) []*sender.Record {
	h := tc.handOver(tc.clock, n, steady)
	recs := make([]*sender.Record, n)
	for i := range recs {
		h.refs[i].size = size
		recs[i] = &sender.Record{Topic: "t", Partition: int32(i % 3), Opaque: &h.refs[i]}
	}
	return recs
}

// ack completes recs in one turn of the Sender, after d.
func (tc *testCollector) ack(d time.Duration, recs []*sender.Record, err error) {
	tc.clock = tc.clock.Add(d)
	for _, r := range recs {
		tc.promise(r, err)
	}
	tc.endTurn()
}

func TestCollectorWindowsAndSteadyState(t *testing.T) {
	tc := newTestCollector(time.Second)
	tc.ack(400*time.Millisecond, tc.send(10, 100, false), nil)
	assert.Empty(t, tc.log.windows, "no window before a second")
	tc.ack(700*time.Millisecond, tc.send(10, 100, false), nil)
	require.Len(t, tc.log.windows, 1, "a window once a record is acknowledged a second after its start")
	w := tc.log.windows[0]
	assert.Equal(t, int64(11), w.Records, "the window ends with the record that ends it, as kafka-producer-perf-test's")
	assert.InDelta(t, 1.1, w.Seconds, 1e-9)
	assert.InDelta(t, 11/1.1, w.RecordsPerSec, 1e-9)
	assert.InDelta(t, (10*400+700)/11.0, w.LatencyMs.Avg, 1e-3, "ten records of 400 ms, one of 700 ms")
	assert.InDelta(t, 700, w.LatencyMs.Max, 1e-9)
	assert.False(t, w.first)

	steady := tc.send(5, 100, true) // the warm-up is over: the total's windows go quiet
	warm := tc.send(5, 100, false)
	tc.ack(1500*time.Millisecond, append(warm, steady...), nil)
	require.Len(t, tc.log.windows, 2, "the steady state's window only")
	w = tc.log.windows[1]
	assert.True(t, w.SteadyState)
	assert.True(t, w.first, "In steady state.")
	assert.Equal(t, int64(1), w.Records)
	tc.ack(1500*time.Millisecond, tc.send(5, 100, true), nil)
	require.Len(t, tc.log.windows, 3)
	assert.False(t, tc.log.windows[2].first)
	assert.Equal(t, int64(5), tc.log.windows[2].Records)

	res := tc.result(tc.clock, map[int32]int32{0: 1, 1: 2, 2: 1}, sender.Stats{Batches: 5})
	assert.Equal(t, int64(35), res.Records)
	assert.Equal(t, int64(3500), res.Bytes)
	require.NotNil(t, res.SteadyState)
	assert.Equal(t, int64(10), res.SteadyState.Records)
	assert.InDelta(t, 3.0, res.SteadyState.Seconds, 1e-9)
	assert.InDelta(t, 4.1, res.Seconds, 1e-9)
	require.Len(t, res.Brokers, 2)
	assert.Equal(t, []int32{0, 2}, res.Brokers[0].Partitions)
	assert.Equal(t, res.Records, res.Brokers[0].Records+res.Brokers[1].Records)
	assert.InDelta(t, 7.0, res.Producer.RecordsPerBatch, 1e-9)
}

func TestCollectorCountsFailuresByReason(t *testing.T) {
	tc := newTestCollector(time.Hour)
	tc.ack(time.Millisecond, tc.send(4, 10, false), fmt.Errorf("t/1: %w", protocol.ErrNotLeaderOrFollower))
	tc.ack(time.Millisecond, tc.send(2, 10, false), errors.New("boom"))
	tc.ack(time.Millisecond, tc.send(3, 10, false), nil)
	res := tc.result(tc.clock, nil, sender.Stats{})
	assert.Equal(t, int64(6), res.Failed)
	assert.Equal(t, map[string]int64{"NOT_LEADER_OR_FOLLOWER": 4, "failed": 2}, res.Errors)
	assert.Equal(t, int64(3), res.Records)
	assert.Equal(t, 2, bytes.Count(tc.errOut.Bytes(), []byte("\n")), "the first failure of each reason, at once:\n%s", tc.errOut.String())
	assert.Contains(t, tc.errOut.String(), "(NOT_LEADER_OR_FOLLOWER): t/0: t/1: ")
	for _, p := range res.Partitions {
		assert.Equal(t, int32(-1), p.Leader, "no leader known")
	}
	assert.Empty(t, res.Brokers)
}

func TestHandOversAreReused(t *testing.T) {
	tc := newTestCollector(time.Hour)
	recs := tc.send(3, 1, false)
	first := recs[0].Opaque.(*recordRef).batch
	tc.notHanded(first, 1) // the producer took two of three
	tc.ack(time.Millisecond, recs[:2], nil)
	again := tc.send(1, 1, false)[0].Opaque.(*recordRef).batch
	assert.Same(t, first, again, "free once every record has its outcome")
	assert.NotSame(t, again, tc.send(1, 1, false)[0].Opaque.(*recordRef).batch, "not while one is pending")
}

// BenchmarkPromise measures what the collector adds to the producer's
// promise of a delivered record: ns and allocations per record.
func BenchmarkPromise(b *testing.B) {
	tc := newTestCollector(5 * time.Second)
	tc.clock = time.Now() // with a monotonic reading, as the run's times have
	tc.begin(tc.clock, 6)
	h := tc.handOver(tc.clock, maxBatch, false)
	recs := make([]sender.Record, maxBatch)
	for i := range recs {
		h.refs[i].size = 100
		recs[i] = sender.Record{Topic: "t", Partition: int32(i % 6), Opaque: &h.refs[i]}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % maxBatch
		h.pending = 1 << 62 // never free: the same batch over and over
		tc.promise(&recs[k], nil)
		if k == maxBatch-1 {
			tc.clock = tc.clock.Add(time.Millisecond)
			tc.endTurn()
		}
	}
}
