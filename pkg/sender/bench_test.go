package sender

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// benchProducer is a Producer that knows a topic "bench" of 6 partitions
// and whose Sender never runs: the benchmark drains the accumulator
// itself, so what is measured is the append side (routing, partitioning,
// encoding into batches) and the batch work (close, CRC, promises).
func benchProducer(b *testing.B, cfg func(*config)) *Producer {
	b.Helper()
	c := testConfig()
	c.Idempotence = false
	c.Accumulator.ResultRecords = false
	c.Accumulator.Linger = time.Hour
	if cfg != nil {
		cfg(&c)
	}
	p, err := newProducer(c, networktest.NewMockSelector(), networktest.NewManualClock(time.Unix(1_700_000_000, 0)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.client.Close() })
	p.md.Update(clusterMetadata(1, map[string]int32{"bench": 6}), time.Unix(1_700_000_000, 0))
	return p
}

// drainFull sends nothing but completes, as if acknowledged, every batch
// of the accumulator when told to (all) or when a batch is full.
func drainFull(p *Producer, all bool) {
	if all {
		p.acc.BeginFlush()
		defer func() { _ = p.acc.AwaitFlushCompletion(context.Background()) }()
	}
	cluster := p.md.Fetch()
	now := time.Unix(1_700_000_000, 0)
	for {
		ready := p.acc.Ready(cluster, now)
		if len(ready.ReadyNodes) == 0 {
			return
		}
		for _, batches := range p.acc.Drain(cluster, ready.ReadyNodes, 1<<30, now, nil) {
			for _, batch := range batches {
				if err := batch.Close(nil); err != nil {
					panic(err)
				}
				batch.Done(0, -1, nil)
				p.acc.Deallocate(batch)
			}
		}
	}
}

// BenchmarkProduce100B produces 100-byte records (unkeyed, or keyed with
// distinct 9-byte keys) to 6 partitions, one Produce per record or one
// ProduceBatch per run of the records of a 256 KiB input buffer, with a
// promise per record (and each record's Opaque pointing into a slab, as
// the command line's positions do) or only a count of the delivered ones
// (SkipDeliveredPromises, what `-o none` needs).
func BenchmarkProduce100B(b *testing.B) {
	for _, keyed := range []bool{false, true} {
		for _, mode := range []string{"Produce", "ProduceBatch", "ProduceBatch/opaque", "ProduceBatch/skipdelivered"} {
			name := fmt.Sprintf("%s/keyed=%v", mode, keyed)
			b.Run(name, func(b *testing.B) { benchProduce(b, keyed, mode) })
		}
	}
}

func benchProduce(b *testing.B, keyed bool, mode string) {
	p := benchProducer(b, func(c *config) { c.SkipDeliveredPromises = strings.HasSuffix(mode, "/skipdelivered") })
	const perRun = (256 << 10) / 101
	run := make([]Record, perRun)
	ptrs := ptrsOf(run)
	val := make([]byte, 100)
	keys := make([]byte, 10*perRun)
	for i := range run {
		run[i] = Record{Topic: "bench", Partition: AnyPartition, Value: val}
		if keyed {
			run[i].Key = fmt.Appendf(keys[i*10:i*10], "%09d", i)
		}
	}
	promised := 0
	promise := func(_ *Record, err error) {
		if err != nil {
			b.Fatal(err)
		}
		promised++
	}
	ctx := context.Background()
	b.SetBytes(int64(len(val)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; {
		k := min(len(run), b.N-i)
		switch mode {
		case "Produce":
			for j := range run[:k] {
				p.Produce(ctx, &run[j], promise)
			}
		case "ProduceBatch/opaque":
			slab := make([]int64, k) // one allocation per run, as the command line's
			for j := range run[:k] {
				slab[j] = int64(i + j)
				run[j].Opaque = &slab[j]
			}
			fallthrough
		default:
			if n, err := p.ProduceBatch(ctx, ptrs[:k], promise); err != nil || n != k {
				b.Fatal(n, err)
			}
		}
		i += k
		drainFull(p, false)
	}
	drainFull(p, true)
	b.StopTimer()
	if delivered := p.Stats().Delivered; delivered != int64(b.N) {
		b.Fatalf("%d records delivered of %d", delivered, b.N)
	}
	if strings.HasSuffix(mode, "/skipdelivered") {
		promised = b.N
	}
	if promised != b.N {
		b.Fatalf("%d promises of %d records", promised, b.N)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/record")
}
