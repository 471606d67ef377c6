// Command benchpeer is a stdin line producer built on franz-go's kgo, the
// reference Go client, used by scripts/bench.sh to compare kproduce with
// the fastest Go producer on the same workload.
//
// Usage: benchpeer -b HOST:PORT -t TOPIC [-z none|gzip|snappy|lz4|zstd] [-K SEP] < lines
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	brokers := flag.String("b", "127.0.0.1:9092", "bootstrap broker")
	topic := flag.String("t", "test", "topic")
	codec := flag.String("z", "none", "compression: none, gzip, snappy, lz4 or zstd")
	keySep := flag.String("K", "", "split each line at the first SEP into key and value")
	flag.Parse()
	if err := run(*brokers, *topic, *codec, *keySep); err != nil {
		fmt.Fprintln(os.Stderr, "benchpeer:", err)
		os.Exit(1)
	}
}

func run(brokers, topic, codec, keySep string) error {
	comp, err := compression(codec)
	if err != nil {
		return err
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers), kgo.DefaultProduceTopic(topic),
		kgo.ProducerBatchCompression(comp), kgo.MaxBufferedRecords(1<<20))
	if err != nil {
		return err
	}
	defer cl.Close()
	var failed atomic.Int64
	count := func(_ *kgo.Record, err error) {
		if err != nil {
			failed.Add(1)
		}
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	ctx := context.Background()
	for {
		line, err := in.ReadSlice('\n')
		if len(line) > 0 {
			cl.Produce(ctx, record(bytes.TrimSuffix(line, []byte("\n")), keySep), count)
		}
		if err != nil {
			break
		}
	}
	if err := cl.Flush(ctx); err != nil {
		return err
	}
	if n := failed.Load(); n > 0 {
		return fmt.Errorf("%d records failed", n)
	}
	return nil
}

// record copies line (ReadSlice reuses its buffer) into a record.
func record(line []byte, keySep string) *kgo.Record {
	line = bytes.Clone(line)
	if keySep != "" {
		if k, v, ok := bytes.Cut(line, []byte(keySep)); ok {
			return &kgo.Record{Key: k, Value: v}
		}
	}
	return &kgo.Record{Value: line}
}

func compression(name string) (kgo.CompressionCodec, error) {
	switch name {
	case "none":
		return kgo.NoCompression(), nil
	case "gzip":
		return kgo.GzipCompression(), nil
	case "snappy":
		return kgo.SnappyCompression(), nil
	case "lz4":
		return kgo.Lz4Compression(), nil
	case "zstd":
		return kgo.ZstdCompression(), nil
	}
	return kgo.CompressionCodec{}, fmt.Errorf("unknown codec %q", name)
}
