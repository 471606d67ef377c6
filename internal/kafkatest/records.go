package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
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

// sentinelPrefix starts the value of every sentinel record.
const sentinelPrefix = "kafkatest-sentinel-"

// ReadCommittedRecords produces a sentinel record to each partition of topic
// and returns, by partition in offset order, the records visible
// read_committed before them (earlier sentinels left out): what a
// read_committed consumer sees of the topic, all of it, since every
// transaction that wrote before a sentinel has ended when the sentinel is
// read.
func ReadCommittedRecords(t testing.TB, c *kfake.Cluster, topic string) map[int32][]*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*ConsumeDeadline)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), ReadCommitted())
	if err != nil {
		t.Fatalf("client of %s: %v", topic, err)
	}
	defer cl.Close()
	sentinel := fmt.Sprintf("%s%d", sentinelPrefix, time.Now().UnixNano())
	parts := c.PartitionInfos(topic)
	for _, p := range parts {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: p.Partition, Value: []byte(sentinel)}).FirstErr(); err != nil {
			t.Fatalf("producing a sentinel to %s/%d: %v", topic, p.Partition, err)
		}
	}
	out := map[int32][]*kgo.Record{}
	for seen := 0; seen < len(parts); {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("reading %s read_committed: %d of %d sentinels seen", topic, seen, len(parts))
		}
		for _, fe := range fetches.Errors() {
			t.Logf("reading %s: fetch %s/%d: %v (retried)", topic, fe.Topic, fe.Partition, fe.Err)
		}
		for _, r := range fetches.Records() {
			switch v := string(r.Value); {
			case v == sentinel:
				seen++
			case !strings.HasPrefix(v, sentinelPrefix):
				out[r.Partition] = append(out[r.Partition], r)
			}
		}
	}
	return out
}

// CommittedValues returns the values of the records of topic visible
// read_committed (ReadCommittedRecords), in partition and offset order,
// and fails the test unless there are want.
func CommittedValues(t testing.TB, c *kfake.Cluster, topic string, want int) []string {
	t.Helper()
	var recs []*kgo.Record
	for _, rs := range ReadCommittedRecords(t, c, topic) {
		recs = append(recs, rs...)
	}
	var out []string
	for _, r := range ByOffset(recs) {
		out = append(out, string(r.Value))
	}
	if len(out) != want {
		t.Fatalf("%d records of %s visible read_committed, want %d", len(out), topic, want)
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

// PartitionEnd is the end offset (read_uncommitted) of one partition of
// topic, 0 when the topic does not exist: the records and transaction
// markers written to it, as a consumer's ListOffsets sees them.
func PartitionEnd(t testing.TB, addrs []string, topic string, partition int32) int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	defer cl.Close()
	req := kmsg.NewPtrListOffsetsRequest()
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition, rp.Timestamp = partition, -1
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(context.Background(), cl)
	if errors.Is(err, kerr.UnknownTopicOrPartition) {
		return 0
	}
	if err != nil {
		t.Fatalf("ListOffsets %s/%d: %v", topic, partition, err)
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 || resp.Topics[0].Partitions[0].ErrorCode != 0 {
		return 0
	}
	return resp.Topics[0].Partitions[0].Offset
}
