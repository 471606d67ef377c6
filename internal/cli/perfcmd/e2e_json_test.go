package perfcmd_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/pkg/sender"
)

// TestJSONMatchesTheTopic checks -o json against what the topic holds:
// the records, their bytes, per partition and per broker.
func TestJSONMatchesTheTopic(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(6, "t"))
	res := perf(t, "-b", brokers(c), "-t", "t", "--num-records", "5000", "--record-size", "64", "--key-size", "6",
		"--headers", "2", "--header-size", "5", "--throughput", "-1", "-o", "json")
	require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
	require.Equal(t, 1, strings.Count(strings.TrimSpace(res.stdout), "\n")+1, "one JSON object, nothing else:\n%s", res.stdout)
	sum := summary(t, res.stdout)
	recs := consume(t, c, "t", int(sum.Records))
	assert.Equal(t, int64(5000), sum.Records)
	assert.Zero(t, sum.Failed)
	assert.Empty(t, sum.Errors)
	assert.Nil(t, sum.Error)
	perPartition := map[int32]int64{}
	var bytes int64
	for _, r := range recs {
		require.Len(t, r.Key, 6)
		require.Len(t, r.Value, 64)
		require.Len(t, r.Headers, 2)
		bytes += int64(len(r.Key) + len(r.Value))
		for i, h := range r.Headers {
			assert.Equal(t, "h"+strconv.Itoa(i), h.Key)
			require.Len(t, h.Value, 5)
			bytes += int64(len(h.Key) + len(h.Value))
		}
		perPartition[r.Partition]++
	}
	assert.Equal(t, bytes, sum.Bytes, "bytes: keys, values and headers")
	assert.Greater(t, sum.Seconds, 0.0)
	assert.InDelta(t, float64(sum.Records)/sum.Seconds, sum.RecordsPerSec, sum.RecordsPerSec*1e-6)
	assert.InDelta(t, float64(sum.Bytes)/(1<<20)/sum.Seconds, sum.MBPerSec, sum.MBPerSec*1e-6+1e-9)
	l := sum.LatencyMs
	require.NotNil(t, l)
	assert.True(t, l.Min <= l.P50 && l.P50 <= l.P90 && l.P90 <= l.P95 && l.P95 <= l.P99 && l.P99 <= l.P999 && l.P999 <= l.Max, "%+v", *l)
	assert.True(t, l.Min <= l.Avg && l.Avg <= l.Max, "%+v", *l)

	require.Len(t, sum.Partitions, len(perPartition))
	byBroker := map[int32]int64{}
	for _, p := range sum.Partitions {
		assert.Equal(t, perPartition[p.Partition], p.Records, "partition %d", p.Partition)
		assert.Equal(t, c.LeaderFor("t", p.Partition), p.Leader, "partition %d", p.Partition)
		require.NotNil(t, p.LatencyMs)
		byBroker[p.Leader] += p.Records
	}
	require.Len(t, sum.Brokers, len(byBroker))
	for _, b := range sum.Brokers {
		assert.Equal(t, byBroker[b.Broker], b.Records, "broker %d", b.Broker)
		require.NotNil(t, b.LatencyMs)
		assert.LessOrEqual(t, b.LatencyMs.Max, l.Max)
	}

	s := sum.Settings
	require.NotNil(t, s.NumRecords)
	assert.Equal(t, int64(5000), *s.NumRecords)
	assert.Nil(t, s.Throughput, "no limit")
	assert.Equal(t, "random", s.Payload)
	assert.Equal(t, 64, s.RecordSize)
	assert.Equal(t, "all", s.Acks)
	assert.True(t, s.Idempotence)
	assert.Positive(t, sum.Producer.Requests)
	assert.Positive(t, sum.Producer.Batches)
	assert.Positive(t, sum.Producer.WireBytes)
}

// TestKeysSpreadOverPartitions: --key-count keys, chosen uniformly, each
// always on the partition Java's murmur2 gives it.
func TestKeysSpreadOverPartitions(t *testing.T) {
	c := newCluster(t)
	murmur2, err := sender.NewPartitioner(sender.PartitionerMurmur2, nil)
	require.NoError(t, err)
	tests := []struct {
		count, size string
		records     int
		distinct    int
	}{
		{"6", "3", 3000, 6},
		{"1000", "8", 6000, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.count, func(t *testing.T) {
			topic := "keys-" + tt.count
			require.NoError(t, c.CreateTopic(topic, 3, nil))
			res := perf(t, "-b", brokers(c), "-t", topic, "--num-records", strconv.Itoa(tt.records), "--record-size", "10",
				"--key-count", tt.count, "--key-size", tt.size, "--throughput", "-1", "-o", "json")
			require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
			perKey, perPartition := map[string]int{}, map[int32]int{}
			for _, r := range consume(t, c, topic, tt.records) {
				size, _ := strconv.Atoi(tt.size)
				require.Len(t, r.Key, size)
				perKey[string(r.Key)]++
				perPartition[r.Partition]++
				require.Equal(t, murmur2.Partition(topic, r.Key, 3), r.Partition, "key %q", r.Key)
			}
			assert.LessOrEqual(t, len(perKey), tt.distinct)
			assert.GreaterOrEqual(t, len(perKey), tt.distinct*99/100, "nearly every key drawn")
			if tt.distinct < 10 {
				want := tt.records / tt.distinct
				for k, n := range perKey {
					assert.InDelta(t, want, n, float64(want)*0.2, "key %q: chosen uniformly", k)
				}
			} else {
				require.Len(t, perPartition, 3)
				for p, n := range perPartition {
					assert.Greater(t, n, tt.records/5, "partition %d gets its share of keyed traffic", p)
				}
			}
			for _, p := range summary(t, res.stdout).Partitions {
				assert.Equal(t, int64(perPartition[p.Partition]), p.Records)
			}
		})
	}
}

// TestLatencyOfADelayedBroker: a broker that answers every Produce 50 ms
// late gives every record a latency of at least 50 ms.
func TestLatencyOfADelayedBroker(t *testing.T) {
	c := newCluster(t)
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		c.SleepControl(func() { time.Sleep(50 * time.Millisecond) })
		return nil, nil, false
	})
	res := perf(t, "-b", brokers(c), "-t", "t", "--num-records", "300", "--record-size", "10", "--throughput", "3000")
	require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
	m := formatRE(totalFormat).FindStringSubmatch(res.stdout)
	require.NotNil(t, m, res.stdout)
	p50, _ := strconv.Atoi(m[6])
	assert.GreaterOrEqual(t, p50, 50, "p50 in whole ms:\n%s", res.stdout)

	res = perf(t, "-b", brokers(c), "-t", "t", "--num-records", "300", "--record-size", "10", "--throughput", "3000", "-o", "json")
	require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
	l := summary(t, res.stdout).LatencyMs
	require.NotNil(t, l)
	assert.GreaterOrEqual(t, l.P50, 50.0)
	assert.GreaterOrEqual(t, l.Min, 50.0, "from hand-over to acknowledgement")
}

func TestProgressJSON(t *testing.T) {
	c := newCluster(t)
	res := perf(t, "-b", brokers(c), "-t", "t", "--num-records", "2000", "--record-size", "10", "--throughput", "5000",
		"--reporting-interval", "50ms", "-o", "json", "--progress-json", "--warmup-records", "500", "--histogram")
	require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	require.GreaterOrEqual(t, len(lines), 3, res.stdout)
	steady := 0
	for _, l := range lines[:len(lines)-1] {
		var w struct {
			Type          string                       `json:"type"`
			SteadyState   bool                         `json:"steady_state"`
			Records       *int64                       `json:"records"`
			RecordsPerSec *float64                     `json:"records_per_sec"`
			LatencyMs     *struct{ Avg, Max *float64 } `json:"latency_ms"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &w), l)
		assert.Equal(t, "window", w.Type)
		require.NotNil(t, w.Records, l)
		require.NotNil(t, w.RecordsPerSec, l)
		require.NotNil(t, w.LatencyMs, l)
		if w.SteadyState {
			steady++
		}
	}
	assert.Positive(t, steady, "windows of the steady state say so")
	sum := summary(t, res.stdout)
	require.NotNil(t, sum.SteadyState)
	assert.Equal(t, int64(1500), sum.SteadyState.Records)
	assert.Equal(t, int64(2000), sum.Records)
	var charted int64
	for _, row := range sum.Histogram {
		assert.Less(t, row.FromMs, row.ToMs)
		charted += row.Records
	}
	assert.Equal(t, sum.Records, charted, "--histogram: every record in a row")
}

func TestDuration(t *testing.T) {
	c := newCluster(t)
	start := time.Now()
	res := perf(t, "-b", brokers(c), "-t", "t", "--duration", "300ms", "--record-size", "10", "--throughput", "1000", "-o", "json")
	require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
	assert.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond)
	sum := summary(t, res.stdout)
	assert.Positive(t, sum.Records)
	assert.LessOrEqual(t, sum.Records, int64(301), "at most 1,000 records/s for 300 ms")
	require.NotNil(t, sum.Settings.DurationMs)
	assert.Equal(t, int64(300), *sum.Settings.DurationMs)
	consume(t, c, "t", int(sum.Records))
}

// TestThroughputIsHeld is the loose end-to-end check of --throughput (the
// pacer's accuracy is tested on a manual clock in internal/pace): a run
// cannot go faster than the rate, and on a loaded machine it does not lag
// far behind.
func TestThroughputIsHeld(t *testing.T) {
	c := newCluster(t)
	const rate, n = 4000.0, 4000
	res := perf(t, "-b", brokers(c), "-t", "t", "--num-records", strconv.Itoa(n), "--record-size", "10",
		"--throughput", strconv.FormatFloat(rate, 'f', -1, 64), "-o", "json")
	require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
	sum := summary(t, res.stdout)
	assert.LessOrEqual(t, sum.RecordsPerSec, rate*1.01, "never faster than --throughput")
	assert.GreaterOrEqual(t, sum.RecordsPerSec, rate*0.5, "nor far slower")
	require.NotNil(t, sum.Settings.Throughput)
	assert.Equal(t, rate, *sum.Settings.Throughput)
}

// TestProducerFlags: the produce run's producer flags apply, -p among them.
func TestProducerFlags(t *testing.T) {
	c := newCluster(t)
	res := perf(t, "-b", brokers(c), "-t", "t", "--num-records", "500", "--record-size", "10", "-p", "2", "-z", "zstd",
		"--linger", "1ms", "-a", "1", "-o", "json")
	require.Equal(t, cmdutil.ExitOK, res.code, res.stderr)
	sum := summary(t, res.stdout)
	require.Len(t, sum.Partitions, 1)
	assert.Equal(t, int32(2), sum.Partitions[0].Partition)
	assert.Equal(t, "zstd", sum.Settings.Compression)
	assert.Equal(t, "1", sum.Settings.Acks)
	for _, r := range consume(t, c, "t", 500) {
		assert.Equal(t, int32(2), r.Partition)
	}
}
