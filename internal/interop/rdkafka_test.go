//go:build cgo

package interop

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// These tests run kproduce against librdkafka's mock cluster (librdkafka
// 2.11, bundled statically by confluent-kafka-go v2.11.1): a second broker
// implementation, written independently of kfake, and read the records
// back with librdkafka's own consumer.

// mockPartitions is the partition count of every mock topic.
const mockPartitions = 3

// mockCluster starts a librdkafka mock cluster of n brokers with topics of
// mockPartitions partitions.
func mockCluster(t *testing.T, n int, topics ...string) *kafka.MockCluster {
	t.Helper()
	mc, err := kafka.NewMockCluster(n)
	require.NoError(t, err)
	t.Cleanup(mc.Close)
	for _, topic := range topics {
		require.NoError(t, mc.CreateTopic(topic, mockPartitions, 1))
	}
	return mc
}

// rdRecord is a record as librdkafka's consumer read it.
type rdRecord struct {
	key, value string
	partition  int32
	offset     int64
	headers    map[string]string
}

// consumeRdkafka reads n records of topic from the start of every
// partition with librdkafka's consumer (read_committed), and then makes
// sure no more follow.
func consumeRdkafka(t *testing.T, mc *kafka.MockCluster, topic string, n int) []rdRecord {
	t.Helper()
	c, err := kafka.NewConsumer(&kafka.ConfigMap{
		"bootstrap.servers":  mc.BootstrapServers(),
		"group.id":           "interop-" + topic,
		"enable.auto.commit": false,
		"isolation.level":    "read_committed",
		"log_level":          0,
	})
	require.NoError(t, err)
	defer c.Close()
	var parts []kafka.TopicPartition
	for p := range int32(mockPartitions) {
		parts = append(parts, kafka.TopicPartition{Topic: &topic, Partition: p, Offset: kafka.OffsetBeginning})
	}
	require.NoError(t, c.Assign(parts))
	var out []rdRecord
	deadline := time.Now().Add(30 * time.Second)
	for len(out) < n && time.Now().Before(deadline) {
		m, err := c.ReadMessage(time.Second)
		if err != nil {
			if kerr, ok := err.(kafka.Error); ok && kerr.IsTimeout() {
				continue
			}
			require.NoError(t, err)
		}
		out = append(out, toRdRecord(m))
	}
	require.Len(t, out, n, "records read back from %s", topic)
	if m, err := c.ReadMessage(500 * time.Millisecond); err == nil {
		t.Fatalf("more records than produced: %s@%d %q", topic, m.TopicPartition.Offset, m.Value)
	}
	return out
}

func toRdRecord(m *kafka.Message) rdRecord {
	r := rdRecord{key: string(m.Key), value: string(m.Value), partition: m.TopicPartition.Partition,
		offset: int64(m.TopicPartition.Offset), headers: map[string]string{}}
	for _, h := range m.Headers {
		r.headers[h.Key] = string(h.Value)
	}
	return r
}

// assertExactlyKeyed checks recs are exactly keyedInput(n): every value
// once, each key in one partition in input order, with the header h=1
// when headers is set.
func assertExactlyKeyed(t *testing.T, recs []rdRecord, n int, keyed, headers bool) {
	t.Helper()
	slices.SortFunc(recs, func(a, b rdRecord) int {
		if a.partition != b.partition {
			return int(a.partition - b.partition)
		}
		return int(a.offset - b.offset)
	})
	seen := map[int]bool{}
	part := map[string]int32{}
	last := map[string]int{}
	for _, r := range recs {
		var i int
		if keyed {
			_, err := fmt.Sscanf(r.value, "v%d", &i)
			require.NoError(t, err, r.value)
			assert.Equal(t, fmt.Sprintf("k%d", i%5), r.key)
			if p, ok := part[r.key]; ok {
				assert.Equal(t, p, r.partition, "key %s in one partition", r.key)
				assert.Greater(t, i, last[r.key], "key %s in order", r.key)
			}
			part[r.key], last[r.key] = r.partition, i
		} else {
			_, err := fmt.Sscanf(r.value, "k%d:v%d", new(int), &i)
			require.NoError(t, err, r.value)
			assert.Empty(t, r.key)
		}
		assert.False(t, seen[i], "record %d read twice", i)
		seen[i] = true
		if headers {
			assert.Equal(t, map[string]string{"h": "1"}, r.headers)
		}
	}
	assert.Len(t, seen, n)
}

// TestRdkafkaMockCodecs produces keyed (idempotent, with a header) and
// unkeyed (acks=1, no idempotence) records with every codec and reads them
// back exactly.
func TestRdkafkaMockCodecs(t *testing.T) {
	t.Parallel()
	const n = 300
	for _, codec := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		t.Run(codec, func(t *testing.T) {
			t.Parallel()
			mc := mockCluster(t, 3, "keyed", "unkeyed")
			b := mc.BootstrapServers()
			res := runKproduce(t, time.Minute, keyedInput(n), "-b", b, "-t", "keyed", "-K", ":", "-H", "h=1", "-z", codec, "-o", "none")
			require.Equal(t, 0, res.code, res.stderr)
			res = runKproduce(t, time.Minute, keyedInput(n), "-b", b, "-t", "unkeyed", "-a", "1", "--idempotence=false",
				"-z", codec, "--linger", "0s", "-o", "none")
			require.Equal(t, 0, res.code, res.stderr)
			assertExactlyKeyed(t, consumeRdkafka(t, mc, "keyed", n), n, true, true)
			assertExactlyKeyed(t, consumeRdkafka(t, mc, "unkeyed", n), n, false, false)
		})
	}
}

// TestRdkafkaMockTransaction commits a transaction of keyed records; a
// read_committed consumer reads them all.
func TestRdkafkaMockTransaction(t *testing.T) {
	t.Parallel()
	const n = 200
	mc := mockCluster(t, 3, "txn")
	res := runKproduce(t, time.Minute, keyedInput(n), "-b", mc.BootstrapServers(), "-t", "txn", "-K", ":", "-H", "h=1",
		"--transactional-id", "interop-txn", "-o", "none")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stderr, fmt.Sprintf("transaction committed: %d records", n))
	assertExactlyKeyed(t, consumeRdkafka(t, mc, "txn", n), n, true, true)
}

// TestRdkafkaMockMetadataAndCheck runs the metadata and check subcommands.
func TestRdkafkaMockMetadataAndCheck(t *testing.T) {
	t.Parallel()
	mc := mockCluster(t, 3, "t")
	res := runKproduce(t, time.Minute, "", "metadata", "-b", mc.BootstrapServers(), "-o", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var md struct {
		Brokers []struct {
			ID   int32  `json:"id"`
			Host string `json:"host"`
		} `json:"brokers"`
		Topics []struct {
			Name       string `json:"name"`
			Partitions []struct {
				Leader int32 `json:"leader"`
			} `json:"partitions"`
		} `json:"topics"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &md), res.stdout)
	require.Len(t, md.Brokers, 3)
	var names []string
	for _, tp := range md.Topics {
		names = append(names, tp.Name)
		if tp.Name == "t" {
			assert.Len(t, tp.Partitions, mockPartitions)
		}
	}
	assert.Contains(t, names, "t")

	res = runKproduce(t, time.Minute, "", "check", "-b", mc.BootstrapServers(), "-t", "t", "--count", "2", "-o", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var check struct {
		OK         bool `json:"ok"`
		Partitions []struct {
			OK bool `json:"ok"`
		} `json:"partitions"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &check), res.stdout)
	assert.True(t, check.OK, res.stdout)
	assert.Len(t, check.Partitions, mockPartitions)
	recs := consumeRdkafka(t, mc, "t", 2*mockPartitions)
	for _, r := range recs {
		assert.Contains(t, r.headers, "kproduce-canary")
	}

	// The mock names controller 0, which is not one of its brokers, and
	// serves no CreateTopics: the check says so at once.
	res = runKproduce(t, time.Minute, "", "check", "-b", mc.BootstrapServers(), "-t", "missing", "--create", "--timeout", "30s")
	assert.Equal(t, 1, res.code, res.stderr)
	assert.Less(t, res.took, 10*time.Second)
	assert.Contains(t, res.stderr, "create topic missing: CreateTopics: broker 1 (")
	assert.Contains(t, res.stderr, "the broker does not support CreateTopics (kproduce speaks v2-v7)")
}

// streamingRun is a kproduce process fed through a pipe.
type streamingRun struct {
	cmd            *exec.Cmd
	in             io.WriteCloser
	stdout, stderr *kafkatest.LockedBuffer
	done           chan error
	started        time.Time
}

// startStreaming starts kproduce with args; logLevel is its log level
// (notices are printed at warn and below).
func startStreaming(t *testing.T, logLevel string, args ...string) *streamingRun {
	t.Helper()
	r := &streamingRun{cmd: exec.Command(kafkatest.Binary(t), args...), stdout: &kafkatest.LockedBuffer{}, stderr: &kafkatest.LockedBuffer{}, done: make(chan error, 1)}
	r.cmd.Stdout, r.cmd.Stderr = r.stdout, r.stderr
	r.cmd.Env = append(os.Environ(), "KPRODUCE_LOG_LEVEL="+logLevel)
	var err error
	r.in, err = r.cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, r.cmd.Start())
	r.started = time.Now()
	go func() { r.done <- r.cmd.Wait() }()
	t.Cleanup(func() {
		_ = r.cmd.Process.Kill()
		<-r.done
	})
	return r
}

// write sends lines from..to-1 of keyedInput.
func (r *streamingRun) write(t *testing.T, from, to int) {
	t.Helper()
	var b strings.Builder
	for i := from; i < to; i++ {
		fmt.Fprintf(&b, "k%d:v%d\n", i%5, i)
	}
	_, err := io.WriteString(r.in, b.String())
	require.NoError(t, err)
}

// waitReports waits until stdout holds n report lines.
func (r *streamingRun) waitReports(t *testing.T, n int) {
	t.Helper()
	if !kafkatest.Poll(30*time.Second, func() bool { return len(kafkatest.Lines(r.stdout.String())) >= n }) {
		t.Fatalf("%d reports never came; stderr:\n%s", n, r.stderr.String())
	}
}

// finish closes stdin and returns the exit status.
func (r *streamingRun) finish(t *testing.T) int {
	t.Helper()
	require.NoError(t, r.in.Close())
	select {
	case err := <-r.done:
		r.done <- err // for the cleanup
		if exit, ok := err.(*exec.ExitError); ok {
			return exit.ExitCode()
		}
		require.NoError(t, err)
		return 0
	case <-time.After(time.Minute):
		t.Fatalf("kproduce did not exit; stderr:\n%s", r.stderr.String())
	}
	return -1
}

// TestRdkafkaMockBrokerDownAndUp: the brokers go down mid-run and come
// back; kproduce retries, says once per broker that it lost it (how many
// records wait) and that it is back, and every record is delivered
// exactly once.
func TestRdkafkaMockBrokerDownAndUp(t *testing.T) {
	t.Parallel()
	const n = 200
	mc := mockCluster(t, 3, "t")
	r := startStreaming(t, "warn", "-b", mc.BootstrapServers(), "-t", "t", "-K", ":", "--linger", "0s", "--delivery-timeout", "1m")
	r.write(t, 0, n/2)
	r.waitReports(t, n/2)
	for id := 1; id <= 3; id++ {
		require.NoError(t, mc.SetBrokerDown(id))
	}
	r.write(t, n/2, n)
	for id := 1; id <= 3; id++ { // the run has found every broker down, records waiting
		r.waitStderr(t, fmt.Sprintf("kproduce: lost broker %d (", id))
	}
	assert.Len(t, kafkatest.Lines(r.stdout.String()), n/2, "nothing delivered while every broker is down")
	down := time.Now()
	for id := 1; id <= 3; id++ {
		require.NoError(t, mc.SetBrokerUp(id))
	}
	code := r.finish(t)
	t.Logf("exit %d, %v after the brokers came back; stderr:\n%s", code, time.Since(down).Round(time.Millisecond), r.stderr.String())
	require.Equal(t, 0, code, r.stderr.String())
	assert.Len(t, kafkatest.Lines(r.stdout.String()), n)
	for id := 1; id <= 3; id++ {
		var lost, back []string
		for _, l := range kafkatest.Lines(r.stderr.String()) {
			switch {
			case strings.HasPrefix(l, fmt.Sprintf("kproduce: lost broker %d (", id)):
				lost = append(lost, l)
			case strings.HasPrefix(l, fmt.Sprintf("kproduce: broker %d (", id)) && strings.Contains(l, " is back after "):
				back = append(back, l)
			}
		}
		require.Len(t, lost, 1, "one notice per outage of broker %d:\n%s", id, r.stderr.String())
		assert.Regexp(t, `retrying until it is back or the records time out \(\d+ records waiting\)$`, lost[0])
		assert.Len(t, back, 1, "broker %d back", id)
	}
	assertExactlyKeyed(t, consumeRdkafka(t, mc, "t", n), n, true, false)
}

// TestRdkafkaMockSlowBroker: brokers slower than the request timeout.
// While they stay slow, records fail at the delivery timeout saying the
// requests timed out; once they are fast again, records are delivered.
func TestRdkafkaMockSlowBroker(t *testing.T) {
	t.Parallel()
	const n = 20
	mc := mockCluster(t, 3, "t")
	r := startStreaming(t, "error", "-b", mc.BootstrapServers(), "-t", "t", "-K", ":", "--linger", "0s",
		"--request-timeout", "500ms", "--delivery-timeout", "3s")
	r.write(t, 0, n)
	r.waitReports(t, n)
	for id := 1; id <= 3; id++ {
		require.NoError(t, mc.SetRoundtripDuration(id, 2*time.Second))
	}
	r.write(t, n, 2*n)
	code := r.finish(t)
	t.Logf("exit %d; stderr:\n%s", code, r.stderr.String())
	assert.Equal(t, 1, code)
	assert.Len(t, kafkatest.Lines(r.stdout.String()), n, "only the records sent before the brokers slowed down")
	failed := 0
	for _, l := range kafkatest.Lines(r.stderr.String()) {
		if strings.HasPrefix(l, "error: -:") {
			failed++
			assert.Contains(t, l, "delivery timeout expired")
			assert.Contains(t, l, "request timed out")
		}
	}
	assert.Equal(t, n, failed, "each slow record fails once")

	// Fast again: delivered.
	for id := 1; id <= 3; id++ {
		require.NoError(t, mc.SetRoundtripDuration(id, 0))
	}
	res := runKproduce(t, time.Minute, keyedInput(n), "-b", mc.BootstrapServers(), "-t", "t", "-K", ":", "-o", "none")
	require.Equal(t, 0, res.code, res.stderr)
}
