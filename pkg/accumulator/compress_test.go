package accumulator

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// manualWorkers makes a's compression workers start only when the test
// runs them: it returns the worker functions started so far.
func manualWorkers(a *Accumulator) func() []func() {
	var started []func()
	a.workers.spawn = func(f func()) { started = append(started, f) }
	return func() []func() {
		out := started
		started = nil
		return out
	}
}

// workerConfig is a configuration with a codec and two workers, batches of
// 1 KiB and a linger that never runs out.
func workerConfig(codec protocol.Codec) Config {
	cfg := testConfig()
	cfg.Codec = codec
	cfg.CompressionWorkers = 2
	cfg.Linger = time.Hour
	cfg.ResultRecords = false
	return cfg
}

// workerRig is an accumulator with workers started by hand, a one-partition
// cluster, and n records of 100 bytes appended to its partition (a batch
// holds 9).
type workerRig struct {
	a       *Accumulator
	started func() []func()
	c       *testCluster
	tp      TopicPartition
}

func newWorkerRig(t *testing.T, codec protocol.Codec, n int) workerRig {
	t.Helper()
	a, _ := newTestAccumulator(t, workerConfig(codec))
	r := workerRig{a: a, started: manualWorkers(a), c: newTestCluster(map[string]int{"t": 1}, 1), tp: TopicPartition{"t", 0}}
	appendN(t, a, r.tp, 0, n, 100, t0)
	return r
}

// compressOne does a worker's work for b alone, whatever its place in the
// queue: tests choose the order in which batches finish.
func compressOne(t *testing.T, a *Accumulator, b *Batch) {
	t.Helper()
	a.mu.Lock()
	require.Equal(t, compressQueued, b.compress, "queued")
	b.compress = compressRunning
	a.mu.Unlock()
	a.compressBatch(b, protocol.NewCompressor(protocol.WithGoroutines(1)))
}

// batchesOf returns tp's batches in its deque, head first.
func batchesOf(a *Accumulator, tp TopicPartition) []*Batch {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*Batch(nil), a.deques[tp].batches...)
}

// decodedValues closes b and decodes its records' values.
func decodedValues(t *testing.T, b *Batch) []string {
	t.Helper()
	require.NoError(t, b.Close(nil))
	rb, rest, err := protocol.DecodeRecordBatch(b.Encoded(), 1<<20)
	require.NoError(t, err)
	require.Empty(t, rest)
	var out []string
	for _, r := range rb.Records {
		out = append(out, string(r.Value))
	}
	return out
}

// TestWorkersCompressFullBatchesAhead: a batch is queued as soon as it is
// full; Drain takes nothing before a worker compressed it, and the worker
// started for it wakes the sender when it is done.
func TestWorkersCompressFullBatchesAhead(t *testing.T) {
	r := newWorkerRig(t, protocol.CodecZstd, 12) // a full batch and the start of the next
	a, started, c, tp := r.a, r.started, r.c, r.tp
	bs := batchesOf(a, tp)
	require.Len(t, bs, 2)
	assert.Equal(t, compressQueued, bs[0].compress, "the full batch is queued")
	assert.Equal(t, compressIdle, bs[1].compress, "the open one is not")
	workers := started()
	require.Len(t, workers, 1)
	assert.Empty(t, a.Ready(c, t0).ReadyNodes, "a head being compressed is not ready")
	assert.Empty(t, drainAll(a, c, t0))

	for len(a.Wakeup()) > 0 {
		<-a.Wakeup()
	}
	workers[0]()
	select {
	case <-a.Wakeup():
	default:
		t.Fatal("the worker did not wake the sender")
	}
	assert.Equal(t, compressDone, bs[0].compress)
	assert.Zero(t, a.workers.running, "the worker ended with the queue")
	assert.Len(t, a.workers.idle, 1, "its encoder is kept")
	assert.Contains(t, a.Ready(c, t0).ReadyNodes, int32(1))
	got := drainAll(a, c, t0)
	require.Equal(t, []*Batch{bs[0]}, got, "the compressed head only: the open batch waits for its linger")
	assert.Equal(t, compressIdle, bs[1].compress)
	assert.False(t, bs[1].appendsClosed)
}

// TestWorkersKeepPartitionOrder: batches of a partition finish compressing
// in any order, and are drained in the order they were made, one at a
// time, each once its own compression is done.
func TestWorkersKeepPartitionOrder(t *testing.T) {
	for _, codec := range codecs[1:] {
		t.Run(codec.String(), func(t *testing.T) {
			r := newWorkerRig(t, codec, 40)
			a, started, c, tp := r.a, r.started, r.c, r.tp
			bs := batchesOf(a, tp)
			require.GreaterOrEqual(t, len(bs), 4)
			full := bs[:len(bs)-1]
			assert.Len(t, started(), 2, "no more workers than the maximum")
			for i := len(full) - 1; i >= 1; i-- {
				compressOne(t, a, full[i]) // the later batches first
				assert.Empty(t, drainAll(a, c, t0), "batch %d done, the head is not", i)
			}
			compressOne(t, a, full[0])
			next := 0
			for _, want := range full {
				got := drainAll(a, c, t0)
				require.Equal(t, []*Batch{want}, got)
				values := decodedValues(t, want)
				for _, v := range values {
					assert.Equal(t, string(value(next, 100)), v, "record %d", next)
					next++
				}
				require.True(t, want.Done(0, -1, nil))
				a.Deallocate(want)
			}
			assert.Empty(t, drainAll(a, c, t0), "the open batch waits for its linger")
		})
	}
}

// TestWorkerTakesTheQueueInOrder: one worker compresses every queued
// batch, oldest first, then ends; a later batch starts a worker again.
func TestWorkerTakesTheQueueInOrder(t *testing.T) {
	cfg := workerConfig(protocol.CodecLz4)
	cfg.CompressionWorkers = 1
	a, _ := newTestAccumulator(t, cfg)
	started := manualWorkers(a)
	var order []*Batch
	for p := range 3 {
		appendN(t, a, TopicPartition{"t", int32(p)}, 0, 12, 100, t0)
		order = append(order, batchesOf(a, TopicPartition{"t", int32(p)})[0])
	}
	workers := started()
	require.Len(t, workers, 1, "one worker at most")
	require.Equal(t, order, a.workers.queue)
	workers[0]()
	for i, b := range order {
		assert.Equal(t, compressDone, b.compress, "batch %d", i)
	}
	assert.Empty(t, a.workers.queue)
	assert.Zero(t, a.workers.running)
	appendN(t, a, TopicPartition{"t", 3}, 0, 12, 100, t0)
	assert.Len(t, started(), 1, "a new batch starts a worker again")
}

// TestDrainSealsTheHeadForTheWorkers: a head that is due (its linger ran
// out) but not compressed is closed for appends and queued by Drain, and
// drained once compressed.
func TestDrainSealsTheHeadForTheWorkers(t *testing.T) {
	r := newWorkerRig(t, protocol.CodecSnappy, 3)
	a, started, c, tp := r.a, r.started, r.c, r.tp
	b := batchesOf(a, tp)[0]
	later := t0.Add(2 * time.Hour)
	require.Contains(t, a.Ready(c, later).ReadyNodes, int32(1))
	assert.Empty(t, drainAll(a, c, later))
	assert.True(t, b.appendsClosed, "sealed")
	assert.Equal(t, compressQueued, b.compress)
	appendN(t, a, tp, 3, 1, 100, t0)
	assert.Len(t, batchesOf(a, tp), 2, "a new record goes to a new batch")
	for _, w := range started() {
		w()
	}
	got := drainAll(a, c, later)
	require.Equal(t, []*Batch{b}, got)
	assert.Len(t, decodedValues(t, b), 3)
}

// TestCompressedInPlace: without ResultRecords the compressed records take
// the uncompressed ones' buffer: no memory is taken, the buffer is the
// batch's only one, and the batch's size in a request is the compressed
// one.
func TestCompressedInPlace(t *testing.T) {
	r := newWorkerRig(t, protocol.CodecGzip, 12)
	a, started, tp := r.a, r.started, r.tp
	b := batchesOf(a, tp)[0]
	block := &b.buf[:1][0]
	uncompressed := b.EncodedSize()
	unused := a.pool.unused()
	for _, w := range started() {
		w()
	}
	assert.Equal(t, unused, a.pool.unused(), "nothing taken")
	assert.Nil(t, b.buf)
	require.NotNil(t, b.compressed)
	assert.Same(t, block, &b.compressed[:1][0], "in place")
	assert.Less(t, b.EncodedSize(), uncompressed)
}

// TestRetriedBatchIsNotRecompressed: a batch put back for a retry keeps its
// compressed bytes; re-stamped with a new producer state, only its header
// and checksum change.
func TestRetriedBatchIsNotRecompressed(t *testing.T) {
	r := newWorkerRig(t, protocol.CodecZstd, 12)
	a, started, c := r.a, r.started, r.c
	for _, w := range started() {
		w()
	}
	b := drainAll(a, c, t0)[0]
	b.SetProducerState(7, 1, 100)
	require.NoError(t, b.Close(nil))
	first := bytes.Clone(b.Encoded())
	a.Reenqueue(b, t0)
	later := t0.Add(time.Minute)
	require.Equal(t, []*Batch{b}, drainAll(a, c, later), "drained again at once: no worker needed")
	assert.Empty(t, started())
	b.SetProducerState(8, 0, 0)
	require.NoError(t, b.Close(nil))
	again := b.Encoded()
	assert.Equal(t, first[protocol.RecordBatchHeaderSize:], again[protocol.RecordBatchHeaderSize:], "the same compressed records")
	rb, _, err := protocol.DecodeRecordBatch(again, 1<<20)
	require.NoError(t, err, "the checksum covers the new header")
	assert.Equal(t, int64(8), rb.ProducerID)
	assert.Equal(t, int32(0), rb.BaseSequence)
	assert.Len(t, rb.Records, b.RecordCount())
}

// TestDeallocateWhileCompressing: a batch that expires while a worker
// compresses it is reported at once, and its memory comes back when the
// worker is done with it; one that expires while queued is skipped by the
// workers.
func TestDeallocateWhileCompressing(t *testing.T) {
	for _, running := range []bool{true, false} {
		t.Run(fmt.Sprintf("running=%v", running), func(t *testing.T) {
			cfg := workerConfig(protocol.CodecLz4)
			a, rec := newTestAccumulator(t, cfg)
			started := manualWorkers(a)
			tp := TopicPartition{"t", 0}
			appendN(t, a, tp, 0, 12, 100, t0)
			b := batchesOf(a, tp)[0]
			if running {
				a.mu.Lock()
				a.workers.queue = nil
				b.compress = compressRunning
				a.mu.Unlock()
			}
			expired := a.ExpiredBatches(t0.Add(cfg.DeliveryTimeout))
			require.Contains(t, expired, b)
			for _, x := range expired {
				require.True(t, x.Done(-1, -1, errors.New("delivery timeout")))
				a.Deallocate(x)
			}
			assert.Len(t, rec.all(), 12, "reported at once")
			if running {
				assert.Less(t, a.pool.unused(), cfg.BufferMemory, "the worker still reads the records")
				a.compressBatch(b, protocol.NewCompressor())
			} else {
				for _, w := range started() {
					w()
				}
				assert.Equal(t, compressIdle, b.compress, "skipped")
			}
			assert.Nil(t, b.compressed)
			assert.Equal(t, cfg.BufferMemory, a.pool.unused(), "all memory back")
		})
	}
}
