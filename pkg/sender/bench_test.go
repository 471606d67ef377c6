package sender

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// benchProducer is a Producer that knows a topic "bench" of 6 partitions
// and whose Sender never runs: the benchmark drains the accumulator
// itself, so what is measured is the append side (routing, partitioning,
// encoding into batches) and the batch work (close, CRC, completion).
func benchProducer(b *testing.B, cfg func(*Config)) (*Producer, *int) {
	b.Helper()
	c := testConfig()
	c.Idempotence = false
	c.Accumulator.ResultRecords = false
	c.Accumulator.Linger = time.Hour
	if cfg != nil {
		cfg(&c)
	}
	delivered := new(int)
	p, err := newProducer(c, networktest.NewMockSelector(), networktest.NewManualClock(time.Unix(1_700_000_000, 0)),
		func(*accumulator.Result) { *delivered++ })
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.client.Close() })
	p.md.Update(clusterMetadata(1, map[string]int32{"bench": 6}), time.Unix(1_700_000_000, 0))
	return p, delivered
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

// BenchmarkSend100B produces 100-byte records (unkeyed, or keyed with
// distinct 9-byte keys) to 6 partitions, one Send per record or one
// SendBatch per run of the records of a 256 KiB input buffer (or one
// SendRun, with the records converted to the accumulator's form in the
// loop), with a callback per record or a count per batch (OnDelivered,
// what `-o none` needs).
func BenchmarkSend100B(b *testing.B) {
	for _, keyed := range []bool{false, true} {
		for _, mode := range []string{"Send", "SendBatch", "SendBatch/ondelivered", "SendRun/ondelivered"} {
			name := fmt.Sprintf("%s/keyed=%v", mode, keyed)
			b.Run(name, func(b *testing.B) { benchSend(b, keyed, mode) })
		}
	}
}

func benchSend(b *testing.B, keyed bool, mode string) {
	counted := 0
	p, delivered := benchProducer(b, func(c *Config) {
		if strings.HasSuffix(mode, "/ondelivered") {
			c.Accumulator.OnDelivered = func(_ accumulator.TopicPartition, _ int64, n int) { counted += n }
		}
	})
	const perRun = (256 << 10) / 101
	run := make([]Record, perRun)
	accRun := make([]accumulator.Record, perRun) // SendRun's form, built in the loop as the command line does
	val := make([]byte, 100)
	keys := make([]byte, 10*perRun)
	readAt := time.Unix(1_700_000_000, 0)
	for i := range run {
		run[i] = Record{Topic: "bench", Partition: -1, Value: val, ReadAt: readAt}
		if keyed {
			run[i].Key = fmt.Appendf(keys[i*10:i*10], "%09d", i)
		}
	}
	ctx := context.Background()
	b.SetBytes(int64(len(val)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; {
		k := min(len(run), b.N-i)
		for j := range run[:k] {
			run[j].Position.Record = int64(i + j)
		}
		switch mode {
		case "Send":
			for j := range run[:k] {
				if err := p.Send(ctx, &run[j], run[j].Position); err != nil {
					b.Fatal(err)
				}
			}
		case "SendRun/ondelivered":
			for j := range run[:k] {
				accRun[j] = accumulator.Record{Key: run[j].Key, Value: run[j].Value, Position: run[j].Position}
			}
			if n, err := p.SendRun(ctx, "bench", -1, readAt, accRun[:k], nil); err != nil || n != k {
				b.Fatal(n, err)
			}
		default:
			if n, err := p.SendBatch(ctx, run[:k], nil); err != nil || n != k {
				b.Fatal(n, err)
			}
		}
		i += k
		drainFull(p, false)
	}
	drainFull(p, true)
	b.StopTimer()
	if *delivered+counted != b.N {
		b.Fatalf("%d records delivered of %d", *delivered+counted, b.N)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/record")
}
