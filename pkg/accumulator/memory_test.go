package accumulator

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// blockedAppend is an Append running in its own goroutine.
type blockedAppend struct {
	res chan AppendResult
	err chan error
}

// startBlockedAppend starts an Append of a 100-byte record that the test
// expects to block for memory, and returns once the accumulator reports it
// waiting.
func startBlockedAppend(t *testing.T, ctx context.Context, a *Accumulator, waiting <-chan struct{}, tp TopicPartition) *blockedAppend {
	return startBlockedAppendSize(t, ctx, a, waiting, tp, 100)
}

// startBlockedAppendSize is startBlockedAppend for a record of size bytes.
func startBlockedAppendSize(t *testing.T, ctx context.Context, a *Accumulator, waiting <-chan struct{}, tp TopicPartition, size int) *blockedAppend {
	t.Helper()
	ba := &blockedAppend{res: make(chan AppendResult, 1), err: make(chan error, 1)}
	go func() {
		res, err := a.Append(ctx, tp, Record{Timestamp: 0, Key: nil, Value: make([]byte, size), Headers: nil, Ref: Position{Record: 99}}, nil, false, t0)
		ba.res <- res
		ba.err <- err
	}()
	select {
	case <-waiting:
	case err := <-ba.err:
		t.Fatalf("append returned (%v) instead of waiting for memory", err)
	}
	select {
	case <-ba.err:
		t.Fatal("append returned while waiting")
	default:
	}
	return ba
}

// exhaust fills a 32 KiB budget with two 16 KiB batches (of one 15,000
// byte record each) on partitions 0 and 1, and returns an accumulator whose waitHook signals the channel.
func exhaust(t *testing.T) (*Accumulator, chan struct{}, *testCluster) {
	t.Helper()
	cfg := testConfig()
	cfg.BatchSize = 16 << 10
	cfg.BufferMemory = 32 << 10
	cfg.Linger = time.Hour
	a, _ := newTestAccumulator(t, cfg)
	waiting := make(chan struct{}, 1)
	a.waitHook = func() { waiting <- struct{}{} }
	appendN(t, a, TopicPartition{"t", 0}, 0, 1, 15000, t0)
	appendN(t, a, TopicPartition{"t", 1}, 1, 1, 15000, t0)
	require.Equal(t, int64(0), a.pool.unused(), "each batch takes a 16 KiB buffer for its record")
	return a, waiting, newTestCluster(map[string]int{"t": 3}, 1)
}

func TestAppendBlocksUntilMemoryIsFreed(t *testing.T) {
	a, waiting, c := exhaust(t)
	ba := startBlockedAppend(t, context.Background(), a, waiting, TopicPartition{"t", 2})

	rc := a.Ready(c, t0)
	assert.Equal(t, map[int32]struct{}{1: {}}, rc.ReadyNodes, "memory exhausted: everything is sendable despite the linger")
	got := a.Drain(c, rc.ReadyNodes, 1<<20, t0, nil)[1]
	require.Len(t, got, 2)
	require.NoError(t, got[0].Close(nil))
	require.True(t, got[0].Done(0, -1, nil))
	select {
	case <-ba.err:
		t.Fatal("Done alone frees nothing")
	default:
	}
	a.Deallocate(got[0])
	require.NoError(t, <-ba.err)
	assert.True(t, (<-ba.res).NewBatchCreated)
	complete(t, a, got[1:], 0)
}

func TestBlockedAppendEnds(t *testing.T) {
	tests := []struct {
		name   string
		unlock func(a *Accumulator, cancel context.CancelFunc)
		want   error
	}{
		{"context canceled", func(_ *Accumulator, cancel context.CancelFunc) { cancel() }, context.Canceled},
		{"accumulator closed", func(a *Accumulator, _ context.CancelFunc) { a.Close() }, ErrClosed},
		{"forced close", func(a *Accumulator, _ context.CancelFunc) { a.AbortIncompleteBatches(context.Canceled) }, ErrClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, waiting, _ := exhaust(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ba := startBlockedAppend(t, ctx, a, waiting, TopicPartition{"t", 2})
			tt.unlock(a, cancel)
			err := <-ba.err
			assert.ErrorIs(t, err, tt.want)
			assert.Contains(t, err.Error(), "t/2")
			assert.Equal(t, 0, a.pool.queued())
		})
	}
}

func TestBlockedAppendQueueIsFIFO(t *testing.T) {
	a, waiting, c := exhaust(t)
	first := startBlockedAppendSize(t, context.Background(), a, waiting, TopicPartition{"t", 2}, 15000)
	second := startBlockedAppendSize(t, context.Background(), a, waiting, TopicPartition{"u", 0}, 100)
	got := a.Drain(c, map[int32]struct{}{1: {}}, 1<<20, t0, nil)[1]
	complete(t, a, got[:1], 0) // 16 KiB back: enough for the first only
	require.NoError(t, <-first.err)
	select {
	case <-second.err:
		t.Fatal("the second waiter must wait for more memory")
	default:
	}
	complete(t, a, got[1:], 0)
	require.NoError(t, <-second.err)
}

// TestBufferPoolReusesReleasedBuffer checks that a released buffer of a
// class size is handed out again.
func TestBufferPoolReusesReleasedBuffer(t *testing.T) {
	p := newBufferPool(64<<10, 16<<10, nil)
	b1, ok := p.tryAllocate(16 << 10)
	require.True(t, ok)
	b1 = append(b1, 'x')
	p.release(b1)
	assert.Equal(t, int64(64<<10), p.unused())
	b2, ok := p.tryAllocate(16 << 10)
	require.True(t, ok)
	assert.Equal(t, &b1[:1][0], &b2[:1][0], "same backing array")
	assert.Empty(t, b2)
}

// TestBufferPoolDropsCachedBuffersForRoom checks that cached buffers give
// way to an allocation of another size.
func TestBufferPoolDropsCachedBuffersForRoom(t *testing.T) {
	p := newBufferPool(64<<10, 16<<10, nil)
	var bufs [][]byte
	for i := 0; i < 4; i++ {
		b, ok := p.tryAllocate(16 << 10)
		require.True(t, ok)
		bufs = append(bufs, b)
	}
	_, ok := p.tryAllocate(16 << 10)
	assert.False(t, ok, "budget spent")
	for _, b := range bufs[:2] {
		p.release(b)
	}
	big, ok := p.tryAllocate(32 << 10)
	require.True(t, ok, "two cached 16 KiB buffers give way to a 32 KiB one")
	assert.Equal(t, 32<<10, cap(big))
	assert.Equal(t, int64(0), p.unused())
}

// TestBufferPoolForcedAllocationOverdraws checks that a forced allocation
// overdraws the budget and that releases restore it.
func TestBufferPoolForcedAllocationOverdraws(t *testing.T) {
	p := newBufferPool(32<<10, 16<<10, nil)
	a, _ := p.tryAllocate(32 << 10)
	extra := p.forceAllocate(16 << 10)
	assert.Equal(t, int64(-16<<10), p.unused())
	_, ok := p.tryAllocate(1)
	assert.False(t, ok)
	p.release(extra)
	p.release(a)
	assert.Equal(t, int64(32<<10), p.unused())
}

// TestBufferPoolSizes checks the size classes.
func TestBufferPoolSizes(t *testing.T) {
	p := newBufferPool(1<<20, 1<<20, nil)
	assert.Equal(t, 1<<10, p.sizeFor(1), "the smallest class")
	assert.Equal(t, 16<<10, p.sizeFor(16<<10))
	assert.Equal(t, 32<<10, p.sizeFor(16<<10+1))
	assert.Equal(t, 1<<20, p.sizeFor(1<<20))
	assert.Equal(t, 1<<20+5, p.sizeFor(1<<20+5), "beyond the budget: exact")
	assert.Equal(t, 64<<10, p.growSize(16<<10, 40<<10))
	assert.Equal(t, 1<<20, p.growSize(512<<10, 600<<10))
	small := newBufferPool(1<<20, 1000, nil)
	assert.Equal(t, 1024, small.sizeFor(100), "the first class covers a small batch size")
}

// TestBufferPoolServesWaitersInOrder checks that waiters are served first
// come, first served as memory comes back.
func TestBufferPoolServesWaitersInOrder(t *testing.T) {
	waiting := make(chan struct{}, 2)
	p := newBufferPool(64<<10, 16<<10, func() { waiting <- struct{}{} })
	held, _ := p.tryAllocate(64 << 10)
	first, second := make(chan []byte, 1), make(chan []byte, 1)
	go func() { b, _ := p.allocate(context.Background(), 32<<10); first <- b }()
	<-waiting
	go func() { b, _ := p.allocate(context.Background(), 48<<10); second <- b }()
	<-waiting
	_, ok := p.tryAllocate(1)
	assert.False(t, ok, "no jumping the queue")
	p.release(held)
	b1 := <-first
	assert.Equal(t, 32<<10, cap(b1))
	select {
	case <-second:
		t.Fatal("48 KiB do not fit beside 32 KiB")
	default:
	}
	p.release(b1)
	assert.Equal(t, 48<<10, cap(<-second))
}

// TestBufferPoolRefusesMoreThanBudget checks that an allocation larger than
// the budget fails at once.
func TestBufferPoolRefusesMoreThanBudget(t *testing.T) {
	p := newBufferPool(16<<10, 16<<10, nil)
	_, err := p.allocate(context.Background(), 16<<10+1)
	assert.ErrorIs(t, err, ErrRecordTooLarge)
}

// TestMemoryStaysBounded runs an appender against a sender loop with a
// small budget and checks after every step that the batch buffers never
// exceed it (nothing here takes memory without waiting).
func TestMemoryStaysBounded(t *testing.T) {
	cfg := testConfig()
	cfg.BatchSize = 16 << 10
	cfg.BufferMemory = 64 << 10
	cfg.Linger = 0
	a, rec := newTestAccumulator(t, cfg)
	c := newTestCluster(map[string]int{"t": 8}, 1, 2, 3)
	const n = 20_000
	appended := make(chan error, 1)
	go func() {
		for i := 0; i < n; i++ {
			tp := TopicPartition{"t", int32(i % 8)}
			if _, err := a.Append(context.Background(), tp, Record{Timestamp: int64(i), Key: nil, Value: value(i, 100+i%300), Headers: nil, Ref: Position{Record: int64(i)}}, nil, false, t0); err != nil {
				appended <- err
				return
			}
		}
		appended <- nil
	}()
	var inFlight []*Batch
	for finished := false; !finished || a.HasIncomplete(); {
		rc := a.Ready(c, t0)
		for _, bs := range a.Drain(c, rc.ReadyNodes, 1<<20, t0, nil) {
			inFlight = append(inFlight, bs...)
		}
		require.GreaterOrEqual(t, a.pool.unused(), int64(0), "budget overdrawn")
		if len(inFlight) > 0 {
			complete(t, a, inFlight[:1], 0)
			inFlight = inFlight[1:]
			continue
		}
		// Nothing queued or in flight: wait for the appender.
		select {
		case err := <-appended:
			require.NoError(t, err)
			finished = true
		case <-a.Wakeup():
		}
	}
	assert.Len(t, rec.all(), n)
	assert.Equal(t, cfg.BufferMemory, a.pool.unused())
}

func TestCompressionBuffersAreReturned(t *testing.T) {
	for _, codec := range codecs[1:] {
		t.Run(codec.String(), func(t *testing.T) {
			cfg := testConfig()
			cfg.Codec = codec
			a, _ := newTestAccumulator(t, cfg)
			c := newTestCluster(map[string]int{"t": 1}, 1)
			comp := protocol.NewCompressor()
			for round := 0; round < 3; round++ {
				appendN(t, a, TopicPartition{"t", 0}, 0, 5, 100, t0)
				b := drainAll(a, c, t0)[0]
				require.NoError(t, b.Close(comp))
				assert.Less(t, a.pool.unused(), cfg.BufferMemory-int64(cap(b.buf)), "the compressed copy is charged")
				b.Done(0, -1, nil)
				a.Deallocate(b)
				assert.Equal(t, cfg.BufferMemory, a.pool.unused())
			}
		})
	}
}

func TestConcurrentAppendersAndSender(t *testing.T) {
	cfg := testConfig()
	cfg.BatchSize = 4 << 10
	cfg.BufferMemory = 64 << 10
	cfg.Linger = 0
	cfg.Codec = protocol.CodecLz4
	a, rec := newTestAccumulator(t, cfg)
	c := newTestCluster(map[string]int{"t": 4}, 1, 2)
	const appenders, each = 4, 2000
	var wg sync.WaitGroup
	for g := 0; g < appenders; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				tp := TopicPartition{"t", int32((g + i) % 4)}
				_, err := a.Append(context.Background(), tp, Record{Timestamp: int64(i), Key: []byte{byte(g)}, Value: value(i, 50), Headers: nil, Ref: Position{Source: int32(g), Record: int64(i)}}, nil, false, t0)
				assert.NoError(t, err)
			}
		}()
	}
	stop := make(chan struct{})
	go func() { wg.Wait(); close(stop) }()
	comp := protocol.NewCompressor()
	for stopped := false; !stopped || a.HasIncomplete(); {
		drained := a.Drain(c, a.Ready(c, t0).ReadyNodes, 1<<20, t0, nil)
		require.NoError(t, completeDrained(a, drained, comp))
		if len(drained) > 0 {
			continue
		}
		select {
		case <-stop:
			stopped = true
		case <-a.Wakeup():
		}
	}
	got := rec.all()
	require.Len(t, got, appenders*each)
	last := map[int32]int64{}
	for _, r := range got {
		if prev, ok := last[r.Position.Source*10+r.Partition]; ok {
			assert.Greater(t, r.Position.Record, prev, "per appender and partition, order is kept")
		}
		last[r.Position.Source*10+r.Partition] = r.Position.Record
	}
	assert.Equal(t, cfg.BufferMemory, a.pool.unused())
}

// TestRecordOverMaxRequestSize: a record whose batch alone exceeds the
// maximum request size fails Append at once, without taking memory.
func TestRecordOverMaxRequestSize(t *testing.T) {
	cfg := testConfig()
	cfg.MaxRequestSize = 200
	a, _ := newTestAccumulator(t, cfg)
	tp := TopicPartition{"t", 0}
	_, err := a.Append(context.Background(), tp, Record{Timestamp: 1, Key: nil, Value: make([]byte, 100), Headers: nil, Ref: Position{}}, nil, false, t0)
	require.NoError(t, err, "fits")
	_, err = a.Append(context.Background(), tp, Record{Timestamp: 1, Key: nil, Value: make([]byte, 200), Headers: nil, Ref: Position{}}, nil, false, t0)
	require.ErrorIs(t, err, ErrRecordTooLarge)
	assert.Contains(t, err.Error(), "maximum request size of 200")
}
