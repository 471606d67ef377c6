package accumulator

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// recordsPerBatch counts how many records of valueSize (null key, no
// headers, timestamps one ms apart) fit in a batch of batchSize bytes.
func recordsPerBatch(batchSize, valueSize int) int {
	size, n := protocol.RecordBatchHeaderSize, 0
	for {
		next := protocol.RecordSize(int32(n), int64(n), nil, make([]byte, valueSize), nil)
		if size+next > batchSize {
			return n
		}
		size += next
		n++
	}
}

func TestAppendFillsBatchThenReady(t *testing.T) {
	tests := []struct {
		name      string
		batchSize int
		valueSize int
	}{
		{"1KiB small records", 1 << 10, 10},
		{"1KiB 100B records", 1 << 10, 100},
		{"4KiB 300B records", 4 << 10, 300},
		{"64KiB 100B records", 64 << 10, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.BatchSize = tt.batchSize
			cfg.Linger = time.Hour
			a, _ := newTestAccumulator(t, cfg)
			c := newTestCluster(map[string]int{"t": 1}, 1)
			tp := TopicPartition{"t", 0}
			per := recordsPerBatch(tt.batchSize, tt.valueSize)
			require.Greater(t, per, 1)

			results := appendN(t, a, tp, 0, per, tt.valueSize, t0)
			assert.True(t, results[0].NewBatchCreated)
			for _, r := range results[1:] {
				assert.False(t, r.NewBatchCreated)
			}
			rc := a.Ready(c, t0)
			assert.Empty(t, rc.ReadyNodes, "one batch with room left and linger not expired")
			assert.Equal(t, time.Hour, rc.NextReadyCheckDelay)

			r := appendN(t, a, tp, per, 1, tt.valueSize, t0)[0]
			assert.True(t, r.NewBatchCreated)
			assert.True(t, r.BatchIsFull)
			rc = a.Ready(c, t0)
			assert.Equal(t, map[int32]struct{}{1: {}}, rc.ReadyNodes)

			got := drainAll(a, c, t0)
			require.Len(t, got, 1, "one batch per partition per drain")
			assert.Equal(t, per, got[0].RecordCount())
			assert.LessOrEqual(t, got[0].EncodedSize(), tt.batchSize)
			assert.True(t, a.HasUndrained())
		})
	}
}

func TestLingerExpiry(t *testing.T) {
	for _, linger := range []time.Duration{0, time.Millisecond, 10 * time.Millisecond, time.Second} {
		t.Run(linger.String(), func(t *testing.T) {
			cfg := testConfig()
			cfg.Linger = linger
			a, _ := newTestAccumulator(t, cfg)
			c := newTestCluster(map[string]int{"t": 2}, 1, 2)
			appendN(t, a, TopicPartition{"t", 1}, 0, 1, 10, t0)

			if linger > 0 {
				rc := a.Ready(c, t0.Add(linger-time.Microsecond))
				assert.Empty(t, rc.ReadyNodes)
				assert.Equal(t, time.Microsecond, rc.NextReadyCheckDelay)
				assert.Empty(t, rc.UnknownLeaderTopics)
			}
			rc := a.Ready(c, t0.Add(linger))
			assert.Equal(t, map[int32]struct{}{2: {}}, rc.ReadyNodes, "partition 1 is led by node 2")
			assert.Equal(t, NoReadyCheck, rc.NextReadyCheckDelay)
		})
	}
}

func TestReadyUnknownLeader(t *testing.T) {
	a, _ := newTestAccumulator(t, testConfig())
	c := newTestCluster(map[string]int{"known": 1}, 1)
	appendN(t, a, TopicPartition{"unknown", 3}, 0, 1, 10, t0)
	appendN(t, a, TopicPartition{"known", 0}, 1, 1, 10, t0)

	rc := a.Ready(c, t0.Add(time.Hour))
	assert.Equal(t, map[string]struct{}{"unknown": {}}, rc.UnknownLeaderTopics)
	assert.Equal(t, map[int32]struct{}{1: {}}, rc.ReadyNodes)
}

func TestReadyForcedSendable(t *testing.T) {
	tests := []struct {
		name  string
		force func(a *Accumulator)
	}{
		{"flush in progress", func(a *Accumulator) { a.BeginFlush() }},
		{"closed", func(a *Accumulator) { a.Close() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Linger = time.Hour
			a, _ := newTestAccumulator(t, cfg)
			c := newTestCluster(map[string]int{"t": 1}, 7)
			appendN(t, a, TopicPartition{"t", 0}, 0, 1, 10, t0)
			require.Empty(t, a.Ready(c, t0).ReadyNodes)
			tt.force(a)
			assert.Equal(t, map[int32]struct{}{7: {}}, a.Ready(c, t0).ReadyNodes)
		})
	}
}

func TestOversizedRecordGetsItsOwnBatch(t *testing.T) {
	cfg := testConfig()
	a, rec := newTestAccumulator(t, cfg)
	c := newTestCluster(map[string]int{"t": 1}, 1)
	tp := TopicPartition{"t", 0}
	appendN(t, a, tp, 0, 2, 10, t0)
	big, err := a.Append(context.Background(), tp, Record{Timestamp: 5, Key: []byte("k"), Value: value(2, 3*cfg.BatchSize), Headers: nil, Ref: Position{Record: 2}}, nil, false, t0)
	require.NoError(t, err)
	assert.True(t, big.NewBatchCreated)
	assert.True(t, big.BatchIsFull)
	after := appendN(t, a, tp, 3, 1, 10, t0)[0]
	assert.True(t, after.NewBatchCreated, "nothing joins the oversized record")

	var sizes []int
	for a.HasUndrained() {
		for _, b := range drainAll(a, c, t0.Add(time.Hour)) {
			sizes = append(sizes, b.RecordCount())
			if b.RecordCount() == 1 && b.EncodedSize() > cfg.BatchSize {
				assert.Equal(t, protocol.RecordBatchHeaderSize+protocol.RecordSize(0, 0, []byte("k"), value(2, 3*cfg.BatchSize), nil), b.EncodedSize())
			}
			complete(t, a, []*Batch{b}, 0)
		}
	}
	assert.Equal(t, []int{2, 1, 1}, sizes)
	var positions []int64
	for _, r := range rec.all() {
		positions = append(positions, r.Position.Record)
	}
	assert.Equal(t, []int64{0, 1, 2, 3}, positions)
}

func TestRecordLargerThanBufferMemoryFailsAtOnce(t *testing.T) {
	cfg := testConfig()
	cfg.BufferMemory = 64 << 10
	cfg.BatchSize = 16 << 10
	a, _ := newTestAccumulator(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // would be reported if Append waited for memory
	_, err := a.Append(ctx, TopicPartition{"t", 0}, Record{Timestamp: 0, Key: nil, Value: make([]byte, 64<<10), Headers: nil, Ref: Position{}}, nil, false, t0)
	require.ErrorIs(t, err, ErrRecordTooLarge)
	assert.NotErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "65536 bytes")
	assert.False(t, a.HasIncomplete())
}

func TestAppendInvalidPartition(t *testing.T) {
	a, _ := newTestAccumulator(t, testConfig())
	for _, tp := range []TopicPartition{{"t", -1}, {"", 0}} {
		_, err := a.Append(context.Background(), tp, Record{Timestamp: 0, Key: nil, Value: nil, Headers: nil, Ref: Position{}}, nil, false, t0)
		assert.ErrorIs(t, err, ErrInvalidPartition)
	}
}

func TestAbortOnNewBatch(t *testing.T) {
	a, _ := newTestAccumulator(t, testConfig())
	tp := TopicPartition{"t", 0}
	ctx := context.Background()

	res, err := a.Append(ctx, tp, Record{Timestamp: 0, Key: nil, Value: []byte("v"), Headers: nil, Ref: Position{}}, nil, true, t0)
	require.NoError(t, err)
	assert.Equal(t, AppendResult{AbortForNewBatch: true}, res)
	assert.False(t, a.HasUndrained(), "nothing appended")

	res, err = a.Append(ctx, tp, Record{Timestamp: 0, Key: nil, Value: []byte("v"), Headers: nil, Ref: Position{}}, nil, false, t0)
	require.NoError(t, err)
	assert.True(t, res.NewBatchCreated)
	res, err = a.Append(ctx, tp, Record{Timestamp: 0, Key: nil, Value: []byte("v"), Headers: nil, Ref: Position{}}, nil, true, t0)
	require.NoError(t, err)
	assert.Equal(t, AppendResult{}, res, "an open batch with room takes the record")
}

func TestWakeupOnNewBatch(t *testing.T) {
	a, _ := newTestAccumulator(t, testConfig())
	select {
	case <-a.Wakeup():
		t.Fatal("no signal before any append")
	default:
	}
	appendN(t, a, TopicPartition{"t", 0}, 0, 1, 10, t0)
	select {
	case <-a.Wakeup():
	default:
		t.Fatal("a new batch wakes the sender")
	}
	appendN(t, a, TopicPartition{"t", 0}, 1, 1, 10, t0)
	select {
	case <-a.Wakeup():
		t.Fatal("an append into an open batch with room does not")
	default:
	}
}

// TestBatchSizeBound appends records of random sizes and checks that every
// multi-record batch stays within the batch size, that records keep their
// order, and that all memory comes back.
func TestBatchSizeBound(t *testing.T) {
	cfg := testConfig()
	cfg.BatchSize = 2000
	a, rec := newTestAccumulator(t, cfg)
	c := newTestCluster(map[string]int{"t": 3}, 1, 2)
	rnd := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	const n = 3000
	for i := 0; i < n; i++ {
		size := rnd.IntN(600)
		if rnd.IntN(50) == 0 {
			size = 2500
		}
		tp := TopicPartition{"t", int32(rnd.IntN(3))}
		var key []byte
		if i%3 == 0 {
			key = []byte("key")
		}
		_, err := a.Append(ctx, tp, Record{Timestamp: int64(rnd.IntN(1000)), Key: key, Value: value(i, size), Headers: []protocol.Header{{Key: "h", Value: []byte{byte(i)}}}, Ref: Position{Source: tp.Partition, Record: int64(i)}}, nil, false, t0)
		require.NoError(t, err)
		if i%97 == 0 {
			drainAndCheck(t, a, c, cfg.BatchSize)
		}
	}
	drainAndCheck(t, a, c, cfg.BatchSize)
	got := rec.all()
	require.Len(t, got, n)
	last := map[int32]int64{0: -1, 1: -1, 2: -1}
	for _, r := range got {
		assert.Greater(t, r.Position.Record, last[r.Position.Source], "record order within a partition")
		last[r.Position.Source] = r.Position.Record
		assert.Equal(t, r.Position.Source, r.Partition)
	}
	assert.False(t, a.HasIncomplete())
	assert.Equal(t, cfg.BufferMemory, a.pool.unused())
}

func drainAndCheck(t *testing.T, a *Accumulator, c *testCluster, batchSize int) {
	t.Helper()
	for a.HasUndrained() {
		for _, b := range drainAll(a, c, t0.Add(time.Hour)) {
			if b.RecordCount() > 1 {
				require.LessOrEqual(t, b.EncodedSize(), batchSize)
			}
			complete(t, a, []*Batch{b}, 0)
		}
	}
}

func TestClosedAppendFails(t *testing.T) {
	a, _ := newTestAccumulator(t, testConfig())
	a.Close()
	_, err := a.Append(context.Background(), TopicPartition{"t", 0}, Record{Timestamp: 0, Key: nil, Value: nil, Headers: nil, Ref: Position{}}, nil, false, t0)
	assert.ErrorIs(t, err, ErrClosed)
}

func TestAbortIncompleteBatches(t *testing.T) {
	a, rec := newTestAccumulator(t, testConfig())
	c := newTestCluster(map[string]int{"t": 2}, 1)
	appendN(t, a, TopicPartition{"t", 0}, 0, 3, 10, t0)
	appendN(t, a, TopicPartition{"t", 1}, 3, 2, 10, t0)
	inFlight := drainAll(a, c, t0.Add(time.Hour))
	require.Len(t, inFlight, 2)
	appendN(t, a, TopicPartition{"t", 0}, 5, 1, 10, t0)

	boom := errors.New("forced close")
	a.AbortIncompleteBatches(boom)
	got := rec.all()
	require.Len(t, got, 1, "only the queued batch; drained ones are the sender's")
	assert.Equal(t, int64(5), got[0].Position.Record)
	assert.ErrorIs(t, got[0].Err, boom)
	assert.Equal(t, int64(-1), got[0].Offset)
	assert.False(t, a.HasUndrained())
	assert.True(t, a.HasIncomplete(), "the drained batches are not done")
	_, err := a.Append(context.Background(), TopicPartition{"t", 0}, Record{Timestamp: 0, Key: nil, Value: nil, Headers: nil, Ref: Position{}}, nil, false, t0)
	assert.ErrorIs(t, err, ErrClosed)
	complete(t, a, inFlight, 0)
	assert.False(t, a.HasIncomplete())
}
