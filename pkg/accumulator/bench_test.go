package accumulator

import (
	"context"
	"testing"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// BenchmarkAppend100B appends 100-byte records to one partition and, each
// time a batch fills, drains, closes, completes and deallocates it: the
// steady state of a producer whose broker keeps up.
func BenchmarkAppend100B(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Linger = time.Hour
	cfg.Jitter = func() float64 { return 1 }
	a := New(cfg, func(*Result) {})
	c := exampleCluster{}
	nodes := map[int32]struct{}{1: {}}
	tp := TopicPartition{Topic: "bench", Partition: 0}
	ctx := context.Background()
	val := value(0, 100)
	refs := make([]Position, 1024) // a pointer in an interface allocates nothing; a Position would
	now := t0
	ts := now.UnixMilli()
	b.SetBytes(int64(len(val)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ref := &refs[i%len(refs)]
		ref.Record = int64(i)
		res, err := a.Append(ctx, tp, Record{Timestamp: ts, Key: nil, Value: val, Headers: nil, Ref: ref}, nil, false, now)
		if err != nil {
			b.Fatal(err)
		}
		if res.BatchIsFull {
			for _, batches := range a.Drain(c, nodes, 1<<30, now, nil) {
				for _, batch := range batches {
					if err := batch.Close(nil); err != nil {
						b.Fatal(err)
					}
					batch.Done(int64(i), -1, nil)
					a.Deallocate(batch)
				}
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/record")
}

// BenchmarkBatchClose closes a full 1 MiB batch of 100-byte records with
// each codec (compression dominates) and releases it.
func BenchmarkBatchClose(b *testing.B) {
	for _, codec := range codecs {
		b.Run(codec.String(), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Codec = codec
			a := New(cfg, nil)
			tp := TopicPartition{Topic: "bench", Partition: 0}
			per := recordsPerBatch(cfg.BatchSize, 100)
			comp := protocol.NewCompressor()
			nodes := map[int32]struct{}{1: {}}
			vals := make([][]byte, per)
			for i := range vals {
				vals[i] = value(i, 100)
			}
			b.SetBytes(int64(cfg.BatchSize))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				for j, v := range vals {
					if _, err := a.Append(context.Background(), tp, Record{Timestamp: t0.UnixMilli() + int64(j), Key: nil, Value: v, Headers: nil, Ref: Position{}}, nil, false, t0); err != nil {
						b.Fatal(err)
					}
				}
				batch := a.Drain(exampleCluster{}, nodes, 1<<30, t0, nil)[1][0]
				b.StartTimer()
				if err := batch.Close(comp); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				batch.Done(0, -1, nil)
				a.Deallocate(batch)
				b.StartTimer()
			}
		})
	}
}

// BenchmarkAppendRecords100B appends 100-byte records to one partition in
// runs of the records of one 256 KiB input buffer, and completes each
// batch that fills as BenchmarkAppend100B does: per record, reported one
// by one to a callback, or counted per batch with OnDelivered.
func BenchmarkAppendRecords100B(b *testing.B) {
	for _, mode := range []string{"callback", "ondelivered"} {
		b.Run(mode, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Linger = time.Hour
			cfg.Jitter = func() float64 { return 1 }
			delivered := 0
			if mode == "ondelivered" {
				cfg.OnDelivered = func(_ TopicPartition, _ int64, n int) { delivered += n }
			}
			a := New(cfg, func(*Result) { delivered++ })
			c := exampleCluster{}
			nodes := map[int32]struct{}{1: {}}
			tp := TopicPartition{Topic: "bench", Partition: 0}
			ctx := context.Background()
			run := make([]Record, (256<<10)/101)
			refs := make([]Position, len(run)) // pointers in the refs: a Position in an interface would allocate
			val := value(0, 100)
			ts := t0.UnixMilli()
			for i := range run {
				run[i] = Record{Timestamp: ts, Value: val}
			}
			b.SetBytes(int64(len(val)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; {
				k := min(len(run), b.N-i)
				for j := range run[:k] {
					refs[j].Record = int64(i + j)
					run[j].Ref = &refs[j]
				}
				n, res, err := a.AppendRecords(ctx, tp, run[:k], nil, false, t0)
				if err != nil || n != k {
					b.Fatal(n, err)
				}
				i += k
				if res.BatchIsFull {
					for _, batches := range a.Drain(c, nodes, 1<<30, t0, nil) {
						for _, batch := range batches {
							if err := batch.Close(nil); err != nil {
								b.Fatal(err)
							}
							batch.Done(int64(i), -1, nil)
							a.Deallocate(batch)
						}
					}
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/record")
		})
	}
}
