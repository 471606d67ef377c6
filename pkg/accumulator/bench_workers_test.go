package accumulator

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// benchLines returns n records of 100 bytes like the bench's lines: a
// counter and 90 random letters and digits (about 0.7 of their size with
// gzip or zstd, 0.95 with lz4).
func benchLines(n int) []Record {
	const alpha = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	rng := rand.New(rand.NewPCG(1, 2))
	recs := make([]Record, n)
	for i := range recs {
		v := fmt.Appendf(make([]byte, 0, 100), "%09d ", i)
		for len(v) < 100 {
			v = append(v, alpha[rng.IntN(len(alpha))])
		}
		recs[i] = Record{Timestamp: t0.UnixMilli(), Value: v}
	}
	return recs
}

// benchSender plays the sender for a benchmark: it drains every batch as
// soon as it may, closes, completes and deallocates it, until stop is
// closed and nothing is left.
func benchSender(a *Accumulator, stop <-chan struct{}) <-chan error {
	done := make(chan error, 1)
	go func() {
		c := newTestCluster(map[string]int{"bench": 6}, 1)
		comp := protocol.NewCompressor()
		for stopped := false; !stopped || a.HasIncomplete(); {
			drained := a.Drain(c, a.Ready(c, t0).ReadyNodes, 1<<30, t0, nil)
			if err := completeDrained(a, drained, comp); err != nil {
				done <- err
				return
			}
			if len(drained) > 0 {
				continue
			}
			select {
			case <-stop:
				stopped, stop = true, nil // a nil channel: wait for the wakeups from now on
				a.BeginFlush()            // what is left is sendable
			case <-a.Wakeup():
			}
		}
		done <- nil
	}()
	return done
}

// benchAppend appends b.N records of recs, in runs of the records of a 256
// KiB input buffer to one partition after the other of six, with a sender
// draining meanwhile, and reports the throughput.
func benchAppend(b *testing.B, a *Accumulator, recs []Record) {
	b.Helper()
	stop := make(chan struct{})
	done := benchSender(a, stop)
	run := (256 << 10) / 101
	b.SetBytes(100)
	b.ReportAllocs()
	b.ResetTimer()
	for i, p := 0, 0; i < b.N; p++ {
		k := min(run, b.N-i)
		from := i % len(recs)
		k = min(k, len(recs)-from)
		tp := TopicPartition{Topic: "bench", Partition: int32(p % 6)}
		if n, _, err := a.AppendRecords(context.Background(), tp, recs[from:from+k], nil, false, t0); err != nil || n != k {
			b.Fatal(n, err)
		}
		i += k
	}
	close(stop)
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/record")
}

// BenchmarkCompressionWorkers appends 100-byte records into 1 MiB batches
// compressed by each codec, on 0 (the sender's goroutine, one batch at a
// time), 1, 2 and 4 workers, with an 8 MiB budget: compression dominates,
// so records/s grow with the workers up to the cores the machine has.
func BenchmarkCompressionWorkers(b *testing.B) {
	recs := benchLines(1 << 16)
	for _, codec := range codecs[1:] {
		for _, workers := range []int{0, 1, 2, 4} {
			b.Run(fmt.Sprintf("%s/workers=%d", codec, workers), func(b *testing.B) {
				cfg := DefaultConfig()
				cfg.Codec, cfg.CompressionWorkers = codec, workers
				cfg.BufferMemory, cfg.Linger = 8<<20, time.Hour
				cfg.Jitter = func() float64 { return 1 }
				benchAppend(b, New(cfg, nil), recs)
			})
		}
	}
}

// BenchmarkCompressionWorkersModel stands a core of its own in for each
// worker: every batch (64 KiB) takes 20 ms to compress, waiting rather than
// computing, so the number of workers, not this machine's cores, bounds
// the throughput. Batches/s grow with the workers as long as the appender
// and the sender keep up: it shows that the workers' coordination (one
// queue under the accumulator's lock, a goroutine per worker) does not
// serialise them, up to 16.
func BenchmarkCompressionWorkersModel(b *testing.B) {
	recs := benchLines(1 << 14)
	for _, workers := range []int{1, 2, 4, 8, 16} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Codec, cfg.CompressionWorkers = protocol.CodecLz4, workers
			cfg.BatchSize, cfg.BufferMemory, cfg.Linger = 64<<10, 8<<20, time.Hour
			cfg.Jitter = func() float64 { return 1 }
			a := New(cfg, nil)
			var mu sync.Mutex
			batches := 0
			a.workers.compress = func(bt *Batch, comp *protocol.Compressor) {
				time.Sleep(20 * time.Millisecond) // the model: a core's time
				a.compressBatch(bt, comp)
				mu.Lock()
				batches++
				mu.Unlock()
			}
			benchAppend(b, a, recs)
			b.ReportMetric(float64(batches)/b.Elapsed().Seconds(), "batches/s")
		})
	}
}

// BenchmarkAppendManyPartitions appends 100-byte records spread over 1,000
// partitions, the records of each 256 KiB input buffer grouped by
// partition into one AppendRecords call per partition (as
// Producer.ProduceBatch does with keyed records), and completes every
// batch after each buffer (a linger of zero, a broker that keeps up): the
// bookkeeping of many small batches.
func BenchmarkAppendManyPartitions(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Linger = 0
	cfg.BufferMemory = 8 << 20
	cfg.Jitter = func() float64 { return 1 }
	a := New(cfg, func(*Result) {})
	const partitions = 1000
	c := newTestCluster(map[string]int{"wide": partitions}, 1)
	nodes := map[int32]struct{}{1: {}}
	run := (256 << 10) / 101
	lines := benchLines(run)
	refs := make([]Position, run)
	// The buffer's records grouped by partition (record j goes to
	// partition j*7919 % partitions), as a counting sort would.
	recs := make([]Record, 0, run)
	offsets := make([]int, partitions+1)
	for p := range partitions {
		offsets[p] = len(recs)
		for j := range run {
			if j*7919%partitions == p {
				rec := lines[j]
				rec.Ref = &refs[j]
				recs = append(recs, rec)
			}
		}
	}
	offsets[partitions] = len(recs)
	b.SetBytes(100)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += run {
		for p := range partitions {
			from, to := offsets[p], offsets[p+1]
			if from == to {
				continue
			}
			tp := TopicPartition{Topic: "wide", Partition: int32(p)}
			if _, _, err := a.AppendRecords(context.Background(), tp, recs[from:to], nil, false, t0); err != nil {
				b.Fatal(err)
			}
		}
		if err := completeDrained(a, a.Drain(c, nodes, 1<<30, t0, nil), nil); err != nil {
			b.Fatal(err)
		}
		a.RecycleBatches() // as the sender does at the start of its turn
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/record")
}
