package accumulator

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// records returns n records of valueSize bytes with positions (0,
// first..first+n-1) and timestamps ts0+i, the ones appendN appends.
func records(first, n, valueSize int, now time.Time) []Record {
	out := make([]Record, n)
	for i := range out {
		j := first + i
		out[i] = Record{Timestamp: now.UnixMilli() + int64(j), Value: value(j, valueSize), Ref: Position{Record: int64(j)}}
	}
	return out
}

// encodedBatches closes and returns the encoded bytes of every ready batch,
// in creation order, and completes them with consecutive offsets from 0.
func encodedBatches(t *testing.T, a *Accumulator, c *testCluster, now time.Time) [][]byte {
	t.Helper()
	var out [][]byte
	for {
		a.BeginFlush()
		batches := drainAll(a, c, now)
		if len(batches) == 0 {
			return out
		}
		for _, b := range batches {
			require.NoError(t, b.Close(protocol.NewCompressor()))
			out = append(out, append([]byte(nil), b.Encoded()...))
		}
		complete(t, a, batches, int64(len(out)*1000))
	}
}

// TestAppendRecordsMatchesAppend: a run appended at once makes the same
// batches, byte for byte, and the same reports as the records appended one
// by one, across several batches and with a record that brings headers
// and a key.
func TestAppendRecordsMatchesAppend(t *testing.T) {
	cfg := testConfig()
	cfg.Linger = time.Hour
	c := newTestCluster(map[string]int{"t": 1}, 1)
	tp := TopicPartition{"t", 0}
	recs := records(0, 40, 100, t0)
	recs[7].Key = []byte("k7")
	recs[7].Headers = []protocol.Header{{Key: "h", Value: []byte("v")}}
	recs[9].Timestamp -= 5000 // out of order timestamps keep their deltas

	one, oneRec := newTestAccumulator(t, cfg)
	for i := range recs {
		r := &recs[i]
		_, err := one.Append(context.Background(), tp, Record{Timestamp: r.Timestamp, Key: r.Key, Value: r.Value, Headers: r.Headers, Ref: r.Ref}, nil, false, t0)
		require.NoError(t, err)
	}
	run, runRec := newTestAccumulator(t, cfg)
	n, res, err := run.AppendRecords(context.Background(), tp, recs, nil, false, t0)
	require.NoError(t, err)
	assert.Equal(t, len(recs), n)
	assert.True(t, res.NewBatchCreated)
	assert.True(t, res.BatchIsFull, "40 records of 100 bytes fill more than one 1 KiB batch")
	assert.False(t, res.AbortForNewBatch)

	want := encodedBatches(t, one, c, t0)
	require.Greater(t, len(want), 3, "the records span several batches")
	assert.Equal(t, want, encodedBatches(t, run, c, t0))
	assert.Equal(t, oneRec.all(), runRec.all())
}

// TestAppendRecordsEncodesEveryRecord: the batches of a run, checked with
// kmsg as the oracle (checkEncoded), hold its records in order: keys,
// values and headers null, empty or not, timestamps out of order, records
// larger than a batch alone, for every codec.
func TestAppendRecordsEncodesEveryRecord(t *testing.T) {
	for _, codec := range codecs {
		t.Run(codec.String(), func(t *testing.T) {
			cfg := testConfig()
			cfg.BatchSize = 4 << 10
			cfg.BufferMemory = 8 << 20 // all of the run at once: nothing is sent meanwhile
			cfg.Codec = codec
			cfg.Linger = time.Hour
			a, _ := newTestAccumulator(t, cfg)
			c := newTestCluster(map[string]int{"t": 1}, 1)
			var recs []Record
			for i := 0; i < 60; i++ {
				for _, m := range mixedRecords() {
					recs = append(recs, Record{Timestamp: m.ts + int64(i), Key: m.key, Value: m.value, Headers: m.headers,
						Ref: Position{Record: int64(len(recs))}})
				}
			}
			n, _, err := a.AppendRecords(context.Background(), TopicPartition{"t", 0}, recs, nil, false, t0)
			require.NoError(t, err)
			require.Equal(t, len(recs), n)
			a.BeginFlush()
			got := 0
			for a.HasUndrained() {
				for _, b := range drainAll(a, c, t0) {
					base := recs[got].Timestamp
					for i, r := range checkEncoded(t, b, codec) {
						want := &recs[got+i]
						require.Equal(t, want.Key, r.Key, "record %d", got+i)
						require.Equal(t, want.Value, r.Value, "record %d", got+i)
						require.Equal(t, len(want.Headers), len(r.Headers), "record %d", got+i)
						for j := range want.Headers {
							require.Equal(t, want.Headers[j].Key, r.Headers[j].Key)
							require.Equal(t, want.Headers[j].Value, r.Headers[j].Value)
						}
						require.Equal(t, want.Timestamp-base, r.TimestampDelta, "record %d", got+i)
					}
					got += b.RecordCount()
					complete(t, a, []*Batch{b}, 0)
				}
			}
			assert.Equal(t, len(recs), got)
		})
	}
}

// TestAppendRecordsAbortsForNewBatch: with abortOnNewBatch the run stops at
// the first record that would open a batch; that record and the ones after
// it are not appended, and the full batch is closed for appends.
func TestAppendRecordsAbortsForNewBatch(t *testing.T) {
	cfg := testConfig()
	cfg.Linger = time.Hour
	a, rec := newTestAccumulator(t, cfg)
	c := newTestCluster(map[string]int{"t": 2}, 1)
	per := recordsPerBatch(cfg.BatchSize, 100)
	recs := records(0, per+5, 100, t0)

	n, res, err := a.AppendRecords(context.Background(), TopicPartition{"t", 0}, recs[:1], nil, true, t0)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "no batch yet: even the first record needs a new one")
	assert.True(t, res.AbortForNewBatch)

	n, res, err = a.AppendRecords(context.Background(), TopicPartition{"t", 0}, recs[:1], nil, false, t0)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	assert.True(t, res.NewBatchCreated)

	n, res, err = a.AppendRecords(context.Background(), TopicPartition{"t", 0}, recs[1:], nil, true, t0)
	require.NoError(t, err)
	assert.Equal(t, per-1, n, "the batch takes the records that fit")
	assert.True(t, res.AbortForNewBatch)
	assert.False(t, res.NewBatchCreated)

	rest := recs[per:]
	n, _, err = a.AppendRecords(context.Background(), TopicPartition{"t", 1}, rest, nil, false, t0)
	require.NoError(t, err)
	require.Equal(t, len(rest), n)
	batches := drainAll(a, c, t0)
	require.Len(t, batches, 2)
	assert.Equal(t, per, batches[0].RecordCount(), "partition 0: the batch the run filled")
	assert.Equal(t, len(rest), batches[1].RecordCount())
	complete(t, a, batches, 0)
	for i, r := range rec.all() {
		assert.Equal(t, int64(i), r.Position.Record)
		assert.Equal(t, int32(i/per), r.Partition)
	}
}

// TestAppendRecordsStopsAtATooLargeRecord: a record too large for any
// batch fails alone; the records before it are appended, the ones after it
// are left for the next call.
func TestAppendRecordsStopsAtATooLargeRecord(t *testing.T) {
	cfg := testConfig()
	cfg.MaxRequestSize = 2 << 10
	a, rec := newTestAccumulator(t, cfg)
	c := newTestCluster(map[string]int{"t": 1}, 1)
	tp := TopicPartition{"t", 0}
	recs := records(0, 6, 100, t0)
	recs[3].Value = make([]byte, 3<<10)

	n, _, err := a.AppendRecords(context.Background(), tp, recs, nil, false, t0)
	assert.ErrorIs(t, err, ErrRecordTooLarge)
	require.Equal(t, 3, n)
	n, _, err = a.AppendRecords(context.Background(), tp, recs[4:], nil, false, t0)
	require.NoError(t, err)
	require.Equal(t, 2, n)

	a.BeginFlush()
	complete(t, a, drainAll(a, c, t0), 0)
	var got []int64
	for _, r := range rec.all() {
		got = append(got, r.Position.Record)
	}
	assert.Equal(t, []int64{0, 1, 2, 4, 5}, got)
}

func TestAppendRecordsRefusals(t *testing.T) {
	a, _ := newTestAccumulator(t, testConfig())
	recs := records(0, 3, 10, t0)
	for _, tp := range []TopicPartition{{"", 0}, {"t", -1}} {
		n, _, err := a.AppendRecords(context.Background(), tp, recs, nil, false, t0)
		assert.ErrorIs(t, err, ErrInvalidPartition)
		assert.Zero(t, n)
	}
	n, res, err := a.AppendRecords(context.Background(), TopicPartition{"t", 0}, nil, nil, false, t0)
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Equal(t, AppendResult{}, res)

	a.Close()
	n, _, err = a.AppendRecords(context.Background(), TopicPartition{"t", 0}, recs, nil, false, t0)
	assert.ErrorIs(t, err, ErrClosed)
	assert.Zero(t, n)
}

// TestAppendRecordsWaitsForMemoryMidRun: a run that exhausts the budget
// waits for memory after the records that fit, then goes on with the rest
// once a batch is released; the sender was woken before the wait.
func TestAppendRecordsWaitsForMemoryMidRun(t *testing.T) {
	cfg := testConfig()
	cfg.BatchSize = 16 << 10
	cfg.BufferMemory = 32 << 10
	cfg.Linger = time.Hour
	var wakeups atomic.Int32
	cfg.Wakeup = func() { wakeups.Add(1) }
	a, rec := newTestAccumulator(t, cfg)
	waiting := make(chan struct{}, 1)
	a.waitHook = func() { waiting <- struct{}{} }
	c := newTestCluster(map[string]int{"t": 1}, 1)
	tp := TopicPartition{"t", 0}
	per := recordsPerBatch(a.limit, 1000)
	recs := records(0, 3*per, 1000, t0)

	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, _, err := a.AppendRecords(context.Background(), tp, recs, nil, false, t0)
		done <- result{n, err}
	}()
	<-waiting
	assert.Positive(t, wakeups.Load(), "the full batches were signalled before the wait")
	select {
	case r := <-done:
		t.Fatalf("returned (%d, %v) instead of waiting", r.n, r.err)
	default:
	}
	batches := drainAll(a, c, t0)
	require.Len(t, batches, 1)
	assert.Equal(t, per, batches[0].RecordCount())
	complete(t, a, batches, 0)

	r := <-done
	require.NoError(t, r.err)
	assert.Equal(t, len(recs), r.n)
	a.BeginFlush()
	for a.HasUndrained() {
		complete(t, a, drainAll(a, c, t0), int64(len(rec.all())))
	}
	results := rec.all()
	require.Len(t, results, len(recs))
	for i, res := range results {
		require.Equal(t, int64(i), res.Position.Record)
		require.Equal(t, int64(i), res.Offset)
	}
}

// TestAppendRecordsContextEndsTheWait: the records appended before the
// wait stay appended; the error names the partition.
func TestAppendRecordsContextEndsTheWait(t *testing.T) {
	a, waiting, _ := exhaust(t)
	ctx, cancel := context.WithCancel(context.Background())
	recs := records(10, 200, 100, t0)
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, _, err := a.AppendRecords(ctx, TopicPartition{"t", 0}, recs, nil, false, t0)
		done <- result{n, err}
	}()
	<-waiting
	cancel()
	r := <-done
	assert.ErrorIs(t, r.err, context.Canceled)
	assert.Contains(t, r.err.Error(), "t/0")
	assert.Positive(t, r.n, "the open batch took records before the budget ran out")
	assert.Less(t, r.n, len(recs))
	assert.Equal(t, 0, a.pool.queued())
}

// TestAppendRecordsWakesOnce: a run that creates and fills batches wakes
// the sender once, not once per record.
func TestAppendRecordsWakesOnce(t *testing.T) {
	cfg := testConfig()
	var wakeups atomic.Int32
	cfg.Wakeup = func() { wakeups.Add(1) }
	a, _ := newTestAccumulator(t, cfg)
	per := recordsPerBatch(cfg.BatchSize, 100)
	n, res, err := a.AppendRecords(context.Background(), TopicPartition{"t", 0}, records(0, 5*per, 100, t0), nil, false, t0)
	require.NoError(t, err)
	require.Equal(t, 5*per, n)
	assert.True(t, res.BatchIsFull)
	assert.Equal(t, int32(1), wakeups.Load())
}

// TestOnDeliveredReplacesPerRecordCallbacks: with OnDelivered a delivered
// batch is reported once with its record count; a failed one still
// reports each record to the Callback.
func TestOnDeliveredReplacesPerRecordCallbacks(t *testing.T) {
	type delivery struct {
		tp         TopicPartition
		baseOffset int64
		records    int
	}
	var got []delivery
	cfg := testConfig()
	cfg.OnDelivered = func(tp TopicPartition, baseOffset int64, records int) {
		got = append(got, delivery{tp, baseOffset, records})
	}
	a, rec := newTestAccumulator(t, cfg)
	c := newTestCluster(map[string]int{"t": 2}, 1)
	_, _, err := a.AppendRecords(context.Background(), TopicPartition{"t", 0}, records(0, 3, 10, t0), nil, false, t0)
	require.NoError(t, err)
	_, _, err = a.AppendRecords(context.Background(), TopicPartition{"t", 1}, records(3, 2, 10, t0), nil, false, t0)
	require.NoError(t, err)
	a.BeginFlush()
	batches := drainAll(a, c, t0)
	require.Len(t, batches, 2)
	for _, b := range batches {
		require.NoError(t, b.Close(nil))
	}
	require.True(t, batches[0].Done(42, -1, nil))
	require.True(t, batches[1].Done(-1, -1, ErrClosed))
	assert.Equal(t, []delivery{{TopicPartition{"t", 0}, 42, 3}}, got)
	failed := rec.all()
	require.Len(t, failed, 2)
	for i, r := range failed {
		assert.ErrorIs(t, r.Err, ErrClosed)
		assert.Equal(t, int64(3+i), r.Position.Record)
	}
	for _, b := range batches {
		a.Deallocate(b)
	}
}
