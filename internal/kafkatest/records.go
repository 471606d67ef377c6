package kafkatest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// RecordCount is the number of records stored in topic, summed over its
// partitions' high watermarks (0 when the topic does not exist).
func RecordCount(c *kfake.Cluster, topic string) int64 {
	var n int64
	for _, p := range c.PartitionInfos(topic) {
		n += p.HighWatermark - p.LogStartOffset
	}
	return n
}

// RequireEmpty fails the test when anything was produced to topic.
func RequireEmpty(t testing.TB, c *kfake.Cluster, topic string) {
	t.Helper()
	if n := RecordCount(c, topic); n != 0 {
		t.Fatalf("%d records stored in %s, want none", n, topic)
	}
}

// ConsumeExactly is ConsumeAll of c's topic that also fails the test when
// the topic holds more than n records.
func ConsumeExactly(t testing.TB, c *kfake.Cluster, topic string, n int, opts ...kgo.Opt) []*kgo.Record {
	t.Helper()
	recs := ConsumeAll(t, c.ListenAddrs(), topic, n, opts...)
	if stored := RecordCount(c, topic); stored != int64(n) {
		t.Fatalf("%d records stored in %s, want %d", stored, topic, n)
	}
	return recs
}

// CommittedValues produces a sentinel record to each of the topic's
// partitions and returns the values visible read_committed before them,
// in partition and offset order, failing the test unless there are want:
// the sentinels prove that nothing more is visible.
func CommittedValues(t testing.TB, c *kfake.Cluster, topic string, partitions int, want int) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatalf("producer of sentinels: %v", err)
	}
	defer cl.Close()
	for p := range partitions {
		r := &kgo.Record{Topic: topic, Partition: int32(p), Value: []byte("sentinel")}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatalf("producing a sentinel to %s: %v", topic, err)
		}
	}
	var out []string
	for _, r := range ByOffset(ConsumeAll(t, c.ListenAddrs(), topic, want+partitions, ReadCommitted())) {
		if string(r.Value) != "sentinel" {
			out = append(out, string(r.Value))
		}
	}
	return out
}

// ByOffset returns recs ordered by partition, then offset.
func ByOffset(recs []*kgo.Record) []*kgo.Record {
	out := append([]*kgo.Record(nil), recs...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Partition != out[j].Partition {
			return out[i].Partition < out[j].Partition
		}
		return out[i].Offset < out[j].Offset
	})
	return out
}

// ByValue indexes recs by their value, which tests keep unique; a value
// consumed twice fails the test.
func ByValue(t testing.TB, recs []*kgo.Record) map[string]*kgo.Record {
	t.Helper()
	m := make(map[string]*kgo.Record, len(recs))
	for _, r := range recs {
		if _, dup := m[string(r.Value)]; dup {
			t.Fatalf("value %q consumed twice", r.Value)
		}
		m[string(r.Value)] = r
	}
	return m
}

// NumberedLines returns n lines "PREFIX-i\n" for i in [0, n).
func NumberedLines(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s-%d\n", prefix, i)
	}
	return b.String()
}
