package accumulator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

func TestReenqueueBackoff(t *testing.T) {
	tests := []struct {
		attempts int
		jitter   float64
		want     time.Duration
	}{
		{1, 1, 100 * time.Millisecond},
		{2, 1, 200 * time.Millisecond},
		{3, 1, 400 * time.Millisecond},
		{4, 1, 800 * time.Millisecond},
		{5, 1, time.Second},
		{9, 1, time.Second},
		{1, 0.8, 80 * time.Millisecond},
		{5, 1.2, 1200 * time.Millisecond},
		{2, 7, 240 * time.Millisecond}, // clamped to 1.2
		{2, 0, 160 * time.Millisecond}, // clamped to 0.8
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("attempt %d jitter %v", tt.attempts, tt.jitter), func(t *testing.T) {
			cfg := testConfig()
			cfg.Jitter = func() float64 { return tt.jitter }
			a, _ := newTestAccumulator(t, cfg)
			c := newTestCluster(map[string]int{"t": 1}, 1)
			nodes := map[int32]struct{}{1: {}}
			appendN(t, a, TopicPartition{"t", 0}, 0, 1, 10, t0)
			now := t0
			var b *Batch
			for i := 0; i < tt.attempts; i++ {
				now = now.Add(2 * time.Second)
				got := a.Drain(c, nodes, 1<<20, now, nil)[1]
				require.Len(t, got, 1)
				b = got[0]
				a.Reenqueue(b, now)
			}
			assert.Equal(t, tt.attempts, b.Attempts())
			assert.True(t, b.InRetry())
			assert.Equal(t, tt.want, b.RetryBackoff())
			assert.Equal(t, now, b.LastAttemptAt())

			early := now.Add(tt.want - time.Microsecond)
			rc := a.Ready(c, early)
			assert.Empty(t, rc.ReadyNodes, "backing off")
			assert.Equal(t, time.Microsecond, rc.NextReadyCheckDelay)
			assert.Empty(t, a.Drain(c, nodes, 1<<20, early, nil), "Drain respects the backoff too")
			a.BeginFlush()
			assert.Empty(t, a.Ready(c, early).ReadyNodes, "not even a flush overrides the backoff")

			rc = a.Ready(c, now.Add(tt.want))
			assert.Equal(t, nodes, rc.ReadyNodes)
			assert.Equal(t, []*Batch{b}, a.Drain(c, nodes, 1<<20, now.Add(tt.want), nil)[1])
		})
	}
}

func TestReenqueueKeepsSequenceOrder(t *testing.T) {
	a, _ := newTestAccumulator(t, testConfig())
	c := newTestCluster(map[string]int{"t": 1}, 1)
	nodes := map[int32]struct{}{1: {}}
	fillBatches(t, a, TopicPartition{"t", 0}, 4, t0)
	per := int32(recordsPerBatch(a.cfg.BatchSize, 100))
	seq := int32(0)
	stamp := func(b *Batch) bool {
		b.SetProducerState(1, 0, seq)
		seq += int32(b.RecordCount())
		return true
	}
	var inFlight []*Batch
	for i := 0; i < 4; i++ {
		inFlight = append(inFlight, a.Drain(c, nodes, 1<<20, t0, stamp)[1]...)
	}
	require.Len(t, inFlight, 4)
	for _, i := range []int{2, 0, 3, 1} {
		a.Reenqueue(inFlight[i], t0)
	}
	later := t0.Add(time.Hour)
	var got []int32
	for a.HasUndrained() {
		for _, b := range a.Drain(c, nodes, 1<<20, later, nil)[1] {
			got = append(got, b.BaseSequence())
		}
	}
	assert.Equal(t, []int32{0, per, 2 * per, 3 * per, -1}, got, "retries in sequence order, then the unsequenced batch")
}

func TestExpiredBatches(t *testing.T) {
	cfg := testConfig()
	cfg.DeliveryTimeout = time.Minute
	a, rec := newTestAccumulator(t, cfg)
	per := recordsPerBatch(cfg.BatchSize, 100)
	appendN(t, a, TopicPartition{"t", 0}, 0, per, 100, t0)                     // A, full
	appendN(t, a, TopicPartition{"t", 0}, per, 1, 100, t0.Add(40*time.Second)) // B
	appendN(t, a, TopicPartition{"t", 1}, 100, 1, 100, t0.Add(30*time.Second)) // C

	assert.Empty(t, a.ExpiredBatches(t0.Add(time.Minute-time.Nanosecond)))
	next, ok := a.NextBatchExpiry()
	assert.True(t, ok)
	assert.Equal(t, t0.Add(time.Minute), next)

	expired := a.ExpiredBatches(t0.Add(time.Minute))
	require.Len(t, expired, 1)
	assert.Equal(t, per, expired[0].RecordCount())
	next, _ = a.NextBatchExpiry()
	assert.Equal(t, t0.Add(90*time.Second), next)

	expired = append(expired, a.ExpiredBatches(t0.Add(2*time.Minute))...)
	require.Len(t, expired, 3)
	assert.Equal(t, t0.Add(40*time.Second), expired[1].CreatedAt())
	assert.Equal(t, t0.Add(30*time.Second), expired[2].CreatedAt())
	_, ok = a.NextBatchExpiry()
	assert.False(t, ok)
	assert.False(t, a.HasUndrained())

	timeout := errors.New("delivery timeout")
	for _, b := range expired {
		assert.True(t, b.Done(-1, -1, timeout))
		a.Deallocate(b)
	}
	got := rec.all()
	require.Len(t, got, per+2)
	for _, r := range got {
		assert.ErrorIs(t, r.Err, timeout)
		assert.Equal(t, int64(-1), r.Offset)
	}
	assert.False(t, a.HasIncomplete())
	assert.Equal(t, cfg.BufferMemory, a.pool.unused())
}

// splitInput is record i of the split tests: mixed keys, headers and
// timestamps that go back and forth (negative deltas).
func splitInput(i int) (key, val []byte, hdrs []protocol.Header, ts int64) {
	if i%2 == 0 {
		key = []byte(fmt.Sprintf("key-%d", i))
	}
	if i%3 != 0 {
		hdrs = []protocol.Header{{Key: "n", Value: []byte{byte(i)}}, {Key: "null", Value: nil}}
	}
	return key, value(i, 50+i), hdrs, 1_000_000 + int64((i%3)*1000) - int64(i)
}

func TestSplitAndReenqueue(t *testing.T) {
	tests := []struct {
		records int
		codec   protocol.Codec
		want    []int // records per new batch
	}{
		{2, protocol.CodecNone, []int{1, 1}},
		{5, protocol.CodecLz4, []int{2, 2, 1}},
		{8, protocol.CodecZstd, []int{4, 4}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d records %s", tt.records, tt.codec), func(t *testing.T) {
			cfg := testConfig()
			cfg.BatchSize = 16 << 10
			cfg.Codec = tt.codec
			a, rec := newTestAccumulator(t, cfg)
			c := newTestCluster(map[string]int{"t": 1}, 1)
			nodes := map[int32]struct{}{1: {}}
			tp := TopicPartition{"t", 0}
			ctx := context.Background()
			for i := 0; i < tt.records; i++ {
				k, v, h, ts := splitInput(i)
				_, err := a.Append(ctx, tp, Record{Timestamp: ts, Key: k, Value: v, Headers: h, Ref: Position{Source: 3, Record: int64(i)}}, nil, false, t0)
				require.NoError(t, err)
			}
			stamp := func(b *Batch) bool { b.SetProducerState(5, 1, 0); return true }
			big := a.Drain(c, nodes, 1<<20, t0, stamp)[1][0]
			require.NoError(t, big.Close(protocol.NewCompressor()))
			// A newer batch must stay behind the split ones.
			k, v, h, ts := splitInput(tt.records)
			_, err := a.Append(ctx, tp, Record{Timestamp: ts, Key: k, Value: v, Headers: h, Ref: Position{Source: 3, Record: int64(tt.records)}}, nil, false, t0.Add(time.Second))
			require.NoError(t, err)

			n := a.SplitAndReenqueue(big, t0.Add(2*time.Second))
			require.Equal(t, len(tt.want), n)
			assert.True(t, big.IsDone())
			assert.False(t, big.Done(0, -1, nil), "the original reports nothing")
			a.Deallocate(big) // a second release must be harmless

			counts := drainSplit(t, a, c, n, tt.codec)
			assert.Equal(t, append(slices.Clone(tt.want), 1), counts)
			got := rec.all()
			require.Len(t, got, tt.records+1)
			for i, r := range got {
				k, v, h, ts := splitInput(i)
				assert.Equal(t, Position{Source: 3, Record: int64(i)}, r.Position)
				assert.Equal(t, int64(1000+i), r.Offset)
				assert.Equal(t, ts, r.Timestamp)
				assert.Equal(t, k, r.Key)
				assert.Equal(t, v, r.Value)
				assert.Equal(t, h, r.Headers)
			}
			assert.False(t, a.HasIncomplete())
			assert.Equal(t, cfg.BufferMemory, a.pool.unused(), "all memory back, nothing released twice")
		})
	}
}

// drainSplit drains, checks and completes every queued batch with offsets
// from 1000; the first n are the split ones. It returns their record counts.
func drainSplit(t *testing.T, a *Accumulator, c *testCluster, n int, codec protocol.Codec) []int {
	t.Helper()
	var counts []int
	offset := int64(1000)
	for a.HasUndrained() {
		for _, b := range a.Drain(c, map[int32]struct{}{1: {}}, 1<<20, t0.Add(3*time.Second), nil)[1] {
			counts = append(counts, b.RecordCount())
			if len(counts) <= n {
				// The parts carry the original's producer id, epoch (5, 1)
				// and consecutive sequences from its base sequence 0.
				assert.Equal(t, int64(5), b.ProducerID())
				assert.Equal(t, int16(1), b.ProducerEpoch())
				assert.Equal(t, int32(offset-1000), b.BaseSequence())
				assert.Equal(t, 0, b.Attempts())
				assert.Equal(t, t0, b.CreatedAt(), "the delivery timeout keeps counting")
			}
			checkEncoded(t, b, codec)
			require.True(t, b.Done(offset, -1, nil))
			offset += int64(b.RecordCount())
			a.Deallocate(b)
		}
	}
	return counts
}

func TestSplitSingleRecordBatchIsRefused(t *testing.T) {
	a, _ := newTestAccumulator(t, testConfig())
	c := newTestCluster(map[string]int{"t": 1}, 1)
	appendN(t, a, TopicPartition{"t", 0}, 0, 1, 10, t0)
	b := drainAll(a, c, t0)[0]
	assert.Equal(t, 0, a.SplitAndReenqueue(b, t0))
	assert.False(t, b.IsDone())
	assert.False(t, a.HasUndrained())
}
