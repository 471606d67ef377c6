package producecmd_test

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// dryJSON is one json line of a dry run.
type dryJSON struct {
	Source    string  `json:"source"`
	Record    int64   `json:"record"`
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Key       *string `json:"key"`
	ValueSize *int    `json:"value_size"`
	Headers   []struct {
		Key   string  `json:"key"`
		Value *string `json:"value"`
	} `json:"headers"`
	Timestamp int64   `json:"timestamp"`
	Error     *string `json:"error"`
}

// parseDryJSON decodes every line of out, checking the keys and their order.
func parseDryJSON(t testing.TB, out string) []dryJSON {
	t.Helper()
	return kafkatest.ParseJSONLines(t, out, []string{"source", "record", "topic", "partition", "key", "value_size", "headers", "timestamp"},
		func(r *dryJSON) bool { return r.Error != nil })
}

// countingListener accepts connections on loopback and counts them.
func countingListener(t testing.TB) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			_ = c.Close()
		}
	}()
	return ln.Addr().String(), &n
}

// TestDryRunOfflineText routes keyed and unkeyed lines with --partitions
// and no cluster: nothing connects to the -b address, keyed records land
// where Java's murmur2 puts them, and each line names its position.
func TestDryRunOfflineText(t *testing.T) {
	addr, accepted := countingListener(t)
	in := "21:a\nfoobar:bb\n\nabc:\xff\x00\nno key here\n"
	res := runKproduce(t, strings.NewReader(in), "-b", addr, "-t", "t", "--dry-run", "--partitions", "7",
		"-K", ":", "--skip-empty", "-H", "h=1", "-H", "g=2", "--null", "")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	// "21" -> -973932308, "foobar" -> -790332482, "abc" -> 479470107 (Kafka's
	// vectors): (h & 0x7fffffff) % 7 = 3, 0, 4.
	got := kafkatest.Lines(res.Stdout)
	require.Len(t, got, 4)
	assert.Equal(t, `dry-run: -:1 t/3 key="21" value_bytes=1 headers=2`, got[0])
	assert.Equal(t, `dry-run: -:2 t/0 key="foobar" value_bytes=2 headers=2`, got[1])
	assert.Equal(t, `dry-run: -:4 t/4 key="abc" value_bytes=2 headers=2`, got[2])
	assert.Regexp(t, `^dry-run: -:5 t/[0-6] key=null value_bytes=11 headers=2$`, got[3])
	assert.Equal(t, "dry run: 4 routed, 0 failed, nothing sent\n", res.Stderr)
	assert.Zero(t, accepted.Load(), "connections to the -b address")
}

// TestDryRunFailuresOffline checks that records the producer would refuse
// fail on their own with their position: too large for a request, larger
// than --max-record-bytes, a partition out of range, no topic, malformed.
func TestDryRunFailuresOffline(t *testing.T) {
	big := strings.Repeat("x", 300)
	in := strings.Join([]string{
		`{"topic":"a","value":"ok"}`,
		`{"topic":"a","value":"` + big + `"}`,
		`{"topic":"a","partition":3,"value":"p3"}`,
		`{"topic":"a","partition":2,"value":"p2"}`,
		`{"value":"no topic"}`,
		`{"topic":"a","value":`,
		`{"topic":"a","value":"` + strings.Repeat("y", 600) + `"}`,
	}, "\n")
	res := runKproduce(t, strings.NewReader(in), "-b", networktest.ClosedAddr(t), "-f", "json", "--dry-run", "--partitions", "3",
		"--max-request-size", "300", "--max-record-bytes", "500")
	require.Equal(t, cmdutil.ExitFailed, res.Code, res.Stderr)
	assert.Len(t, kafkatest.Lines(res.Stdout), 2)
	assert.Regexp(t, `^dry-run: -:1 a/[0-2] key=null value_bytes=2 headers=0$`, kafkatest.Lines(res.Stdout)[0])
	assert.Equal(t, "dry-run: -:4 a/2 key=null value_bytes=2 headers=0", kafkatest.Lines(res.Stdout)[1])
	errs := kafkatest.Lines(res.Stderr)
	require.Len(t, errs, 6, res.Stderr)
	assert.Regexp(t, `^error: -:2: a/-1: not sent: record too large: \d+ bytes in a batch, more than the maximum request size of 300$`, errs[0])
	assert.Equal(t, "error: -:3: a/3: not sent: unknown partition: partition 3 of topic a, which has 3 partitions", errs[1])
	assert.Equal(t, "error: -:5: /-1: no topic: the record names none and --topic is not set", errs[2])
	assert.Regexp(t, `^error: -:6: /-1: malformed JSON`, errs[3])
	assert.Regexp(t, `^error: -:7: /-1: record too large: \d+ bytes, more than --max-record-bytes 500$`, errs[4])
	assert.Equal(t, "dry run: 2 routed, 5 failed, nothing sent", errs[5])
}

// TestDryRunAgainstCluster routes with the cluster's partition counts and
// checks that nothing is produced and no topic is created, although the
// cluster creates topics on demand: a record for an unknown topic fails on
// its own, naming the topic.
func TestDryRunAgainstCluster(t *testing.T) {
	c := kafkatest.ProducerCluster(t, kfake.SeedTopics(2, "two"))
	produced := observeProduce(c)
	in := strings.Join([]string{
		`{"topic":"two","partition":1,"key":"k","value":"v1","headers":{"a":"1","n":null},"timestamp":1700000000123}`,
		`{"topic":"nope","value":"v2"}`,
		`{"key":null,"value":null}`,
		`{"topic":"two","partition":5,"value":"v4"}`,
		`{"value":"v5"}`,
	}, "\n")
	res := produceTo(t, c, strings.NewReader(in), "-f", "json", "--config", defaultTopicConfig(t, "t"), "-p", "4", "--dry-run", "-o", "json")
	require.Equal(t, cmdutil.ExitFailed, res.Code, res.Stderr)
	reps := parseDryJSON(t, res.Stdout)
	require.Len(t, reps, 5)

	r := reps[0]
	assert.Equal(t, "two", r.Topic)
	assert.Equal(t, int32(1), r.Partition)
	assert.Equal(t, "k", *r.Key)
	assert.Equal(t, 2, *r.ValueSize)
	require.Len(t, r.Headers, 2)
	assert.Equal(t, "a", r.Headers[0].Key)
	assert.Equal(t, "1", *r.Headers[0].Value)
	assert.Equal(t, "n", r.Headers[1].Key)
	assert.Nil(t, r.Headers[1].Value)
	assert.Equal(t, int64(1700000000123), r.Timestamp)
	assert.Nil(t, r.Error)

	assert.Equal(t, "nope", reps[1].Topic)
	require.NotNil(t, reps[1].Error)
	assert.Contains(t, *reps[1].Error, "topic not present in metadata: nope: UNKNOWN_TOPIC_OR_PARTITION")

	assert.Equal(t, "t", reps[2].Topic, "-t is the default topic")
	assert.Equal(t, int32(4), reps[2].Partition, "-p is the default partition")
	assert.Nil(t, reps[2].Key)
	assert.Nil(t, reps[2].ValueSize, "a null value has no size")
	assert.NotNil(t, reps[2].Headers, "headers is a list even when empty")
	assert.Nil(t, reps[2].Error)

	require.NotNil(t, reps[3].Error)
	assert.Contains(t, *reps[3].Error, "partition 5 of topic two, which has 2 partitions")
	assert.Equal(t, int32(4), reps[4].Partition)
	for i, r := range reps {
		assert.Equal(t, int64(i+1), r.Record)
		assert.Equal(t, "-", r.Source)
	}
	assert.Equal(t, "dry run: 3 routed, 2 failed, nothing sent\n", res.Stderr)

	assert.Empty(t, produced.all(), "produce requests")
	kafkatest.RequireEmpty(t, c, "t")
	kafkatest.RequireEmpty(t, c, "two")
	assert.Empty(t, c.PartitionInfos("nope"), "the dry run created the topic")
}

// TestDryRunMetadataOncePerTopic checks that a run asks the cluster for
// metadata once per new topic (a request names every topic known so far),
// never allowing auto-creation, and that a topic it does not have fails
// its records at once.
func TestDryRunMetadataOncePerTopic(t *testing.T) {
	c := kafkatest.ProducerCluster(t, kfake.SeedTopics(3, "u"))
	var mu sync.Mutex
	var asked []string
	requests := 0
	var autoCreate atomic.Bool
	c.ControlKey(int16(kmsg.Metadata), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		m := req.(*kmsg.MetadataRequest)
		mu.Lock()
		defer mu.Unlock()
		if len(m.Topics) > 0 { // not the first fetch, which may come before any topic
			requests++
		}
		for _, t := range m.Topics {
			asked = append(asked, *t.Topic)
		}
		if m.AllowAutoTopicCreation {
			autoCreate.Store(true)
		}
		return nil, nil, false
	})
	in := strings.Repeat(`{"topic":"u","value":"x"}`+"\n"+`{"value":"y"}`+"\n"+`{"topic":"gone","value":"z"}`+"\n", 50)
	res := produceTo(t, c, strings.NewReader(in), "-f", "json", "--config", defaultTopicConfig(t, "t"), "--dry-run", "-o", "none")
	require.Equal(t, cmdutil.ExitFailed, res.Code)
	assert.Empty(t, res.Stdout)
	mu.Lock()
	assert.ElementsMatch(t, []string{"u", "t", "gone"}, slices.Compact(slices.Sorted(slices.Values(asked))))
	assert.LessOrEqual(t, requests, 3, "one request per new topic: %v", asked)
	mu.Unlock()
	assert.False(t, autoCreate.Load(), "a metadata request allowed auto-creation")
	errs := kafkatest.Lines(res.Stderr)
	require.Len(t, errs, 51)
	assert.Equal(t, "error: -:3: gone/-1: not sent: topic not present in metadata: gone: UNKNOWN_TOPIC_OR_PARTITION: the broker does not host this topic-partition", errs[0])
	assert.Equal(t, "dry run: 100 routed, 50 failed, nothing sent", errs[50])
	assert.Empty(t, c.PartitionInfos("gone"))
}

// TestDryRunUnreachableCluster checks that a dry run without --partitions
// fails (exit 1) when no broker answers, every record as a real run's
// would (not sent, naming the address and why), after the notice of the
// address's first failure, and that the topic's wait is paid once.
func TestDryRunUnreachableCluster(t *testing.T) {
	start := time.Now()
	res := runKproduce(t, strings.NewReader("a\nb\nc\n"), "-b", networktest.ClosedAddr(t), "-t", "t", "--dry-run",
		"--request-timeout", "500ms", "--delivery-timeout", "1s")
	assert.Equal(t, cmdutil.ExitFailed, res.Code)
	assert.Less(t, time.Since(start), 5*time.Second, "one wait for the topic, not one per record")
	assert.Empty(t, res.Stdout)
	errs := kafkatest.Lines(res.Stderr)
	require.Len(t, errs, 5, res.Stderr)
	assert.Regexp(t, `^kproduce: bootstrap broker .*connection refused`, errs[0])
	for i, line := range errs[1:4] {
		assert.Regexp(t, fmt.Sprintf(`^error: -:%d: t/-1: not sent: topic not present in metadata after .*: t: bootstrap broker .*connection refused`, i+1), line)
	}
	assert.Equal(t, "dry run: 0 routed, 3 failed, nothing sent", errs[4])
}

// TestDryRunTemplateAndCount checks the template output (offset -1, the
// record's own timestamp) and that --count stops reading.
func TestDryRunTemplateAndCount(t *testing.T) {
	res := runKproduce(t, strings.NewReader(kafkatest.NumberedLines("v", 10)), "-b", networktest.ClosedAddr(t), "-t", "t", "--dry-run",
		"--partitions", "3", "--partitioner", "round-robin", "-k", "K", "-c", "4", "-o", `%s:%n %t/%p@%o %k=%v [%e]\n`)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Equal(t, "-:1 t/0@-1 K=v-0 []\n-:2 t/1@-1 K=v-1 []\n-:3 t/2@-1 K=v-2 []\n-:4 t/0@-1 K=v-3 []\n", res.Stdout)
	assert.Equal(t, "dry run: 4 routed, 0 failed, nothing sent\n", res.Stderr)
}

// TestDryRunPartitionsNeedsDryRun checks that --partitions alone is a
// usage error.
func TestDryRunPartitionsNeedsDryRun(t *testing.T) {
	res := runKproduce(t, strings.NewReader("a\n"), "-b", networktest.ClosedAddr(t), "-t", "t", "--partitions", "3")
	assert.Equal(t, cmdutil.ExitUsage, res.Code)
	assert.Contains(t, res.Stderr, "error: --partitions: ")
	assert.Contains(t, res.Stderr, "--dry-run")
}

// dryPartitions runs a dry run with -o json and returns each record's
// partition by record number.
func dryPartitions(t *testing.T, c *kfake.Cluster, in string, args ...string) map[int64]int32 {
	t.Helper()
	res := produceTo(t, c, strings.NewReader(in), append([]string{"--dry-run", "-o", "json"}, args...)...)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	got := map[int64]int32{}
	for _, r := range parseDryJSON(t, res.Stdout) {
		got[r.Record] = r.Partition
	}
	return got
}

// realPartitions produces for real with -o json and returns each record's
// partition by record number.
func realPartitions(t *testing.T, c *kfake.Cluster, in string, args ...string) map[int64]int32 {
	t.Helper()
	res := produceTo(t, c, strings.NewReader(in), append([]string{"-o", "json"}, args...)...)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	got := map[int64]int32{}
	for _, r := range kafkatest.ParseJSONReports(t, res.Stdout) {
		got[r.Record] = r.Partition
	}
	return got
}

// TestDryRunMatchesRealRun routes the same input with a dry run and with a
// real run against the same cluster, for every choice that does not depend
// on when batches are sent: murmur2 and crc32 keys, round-robin (keyed or
// not) and explicit partitions. The reported partitions must be equal.
func TestDryRunMatchesRealRun(t *testing.T) {
	var keyed, mixed strings.Builder
	for i := range 300 {
		fmt.Fprintf(&keyed, "user-%d:v%d\n", i%97, i)
		if i%3 == 0 {
			fmt.Fprintf(&mixed, "v%d\n", i)
		} else {
			fmt.Fprintf(&mixed, "k%d:v%d\n", i, i)
		}
	}
	var explicit strings.Builder
	for i := range 60 {
		fmt.Fprintf(&explicit, `{"partition":%d,"key":"k%d","value":"v"}`+"\n", (i*7)%6, i)
	}
	for _, tc := range []struct {
		name, in string
		args     []string
	}{
		{"murmur2", keyed.String(), []string{"-t", "dr", "-K", ":"}},
		{"crc32", keyed.String(), []string{"-t", "dr", "-K", ":", "--partitioner", "crc32"}},
		{"round-robin", mixed.String(), []string{"-t", "dr", "-K", ":", "--partitioner", "round-robin", "--batch-size", "200"}},
		{"explicit", explicit.String(), []string{"-t", "dr", "-f", "json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := kafkatest.ProducerCluster(t, kfake.SeedTopics(6, "dr"))
			dry := dryPartitions(t, c, tc.in, tc.args...)
			kafkatest.RequireEmpty(t, c, "dr")
			real := realPartitions(t, c, tc.in, tc.args...)
			require.Len(t, real, len(kafkatest.Lines(tc.in)))
			assert.Equal(t, real, dry)
			spread := map[int32]bool{}
			for _, p := range dry {
				spread[p] = true
			}
			assert.Len(t, spread, 6, "the records spread over every partition")
		})
	}
}

// TestDryRunStickyBatches checks the sticky partitioner end to end: N
// unkeyed 100-byte records stay on one partition per batch of --batch-size
// (8 records in 1000 bytes: see TestDryRouterStickySwitches) and move to a
// different partition when a batch would be full.
func TestDryRunStickyBatches(t *testing.T) {
	in := strings.Repeat(strings.Repeat("x", 100)+"\n", 50)
	res := runKproduce(t, strings.NewReader(in), "-b", networktest.ClosedAddr(t), "-t", "t", "--dry-run", "--partitions", "6",
		"--batch-size", "1000")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	re := regexp.MustCompile(`^dry-run: -:(\d+) t/(\d) key=null value_bytes=100 headers=0$`)
	var parts []int32
	for i, l := range kafkatest.Lines(res.Stdout) {
		m := re.FindStringSubmatch(l)
		require.NotNil(t, m, l)
		require.Equal(t, strconv.Itoa(i+1), m[1])
		p, _ := strconv.Atoi(m[2])
		parts = append(parts, int32(p))
	}
	var switches []int // the records that start on another partition
	for i := 1; i < len(parts); i++ {
		if parts[i] != parts[i-1] {
			switches = append(switches, i)
		}
	}
	assert.Equal(t, []int{8, 16, 24, 32, 40, 48}, switches)
}

// TestDryRunPartitionSpread checks that murmur2 spreads many keys evenly,
// as a user checking a key scheme would look at it.
func TestDryRunPartitionSpread(t *testing.T) {
	var in strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&in, "order-%d:x\n", i)
	}
	res := runKproduce(t, strings.NewReader(in.String()), "-b", networktest.ClosedAddr(t), "-t", "t", "--dry-run", "--partitions", "6",
		"-K", ":", "-o", `%p\n`)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	count := map[string]int{}
	for _, l := range kafkatest.Lines(res.Stdout) {
		count[l]++
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	require.Equal(t, []string{"0", "1", "2", "3", "4", "5"}, keys)
	for k, n := range count {
		assert.InDelta(t, 1000, n, 150, "partition %s", k)
	}
}
