package producecmd_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/accumulator"
)

// topicsCluster is a cluster with topics of different partition counts and
// no auto-creation: "two" (2 partitions), "five" (5) and "t" (6).
func topicsCluster(t *testing.T) *kfake.Cluster {
	t.Helper()
	c := kafkatest.NewCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(2, "two"), kfake.SeedTopics(5, "five"), kfake.SeedTopics(6, "t"))
	return c
}

// TestTopicPerRecord produces JSON records naming their own topics in one
// run, with and without a default topic: every report names the record's
// topic, every record is read back from its topic, and keyed records are
// placed with their own topic's partition count.
func TestTopicPerRecord(t *testing.T) {
	for _, withDefault := range []bool{false, true} {
		t.Run(fmt.Sprintf("default=%v", withDefault), func(t *testing.T) {
			c := topicsCluster(t)
			var in strings.Builder
			want := map[string]string{} // value -> topic
			for i := range 90 {
				topic := []string{"two", "five", "t"}[i%3]
				if withDefault && topic == "t" {
					fmt.Fprintf(&in, `{"key":"k%d","value":"v%d"}`+"\n", i, i)
				} else {
					fmt.Fprintf(&in, `{"topic":%q,"key":"k%d","value":"v%d"}`+"\n", topic, i, i)
				}
				want[fmt.Sprintf("v%d", i)] = topic
			}
			args := []string{"-f", "json", "-o", "json"}
			if withDefault {
				// A default topic from a config file: records naming
				// their own keep it (-t would send every record to t).
				args = append(args, "--config", defaultTopicConfig(t, "t"))
			}
			res := produceTo(t, c, strings.NewReader(in.String()), args...)
			require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
			reps := kafkatest.ParseJSONReports(t, res.Stdout)
			require.Len(t, reps, 90)
			at := map[string]string{} // topic/partition@offset -> topic
			for _, r := range reps {
				assert.Equal(t, []string{"two", "five", "t"}[(r.Record-1)%3], r.Topic, "record %d", r.Record)
				at[fmt.Sprintf("%s/%d@%d", r.Topic, r.Partition, r.Offset)] = r.Topic
			}
			counts := map[string]int32{"two": 2, "five": 5, "t": 6}
			for topic, n := range counts {
				recs := kafkatest.ConsumeExactly(t, c, topic, 30)
				for _, r := range recs {
					assert.Equal(t, topic, want[string(r.Value)], "value %s read from %s", r.Value, topic)
					assert.Equal(t, (accumulator.Murmur2(r.Key)&0x7fffffff)%n, r.Partition, "key %s in %s", r.Key, topic)
					assert.Contains(t, at, fmt.Sprintf("%s/%d@%d", r.Topic, r.Partition, r.Offset), "a report for %s", r.Value)
				}
			}
		})
	}
}

// TestTopicPerRecordPartitionCounts checks explicit partitions against each
// topic's own count: partition 4 exists in "five", not in "two".
func TestTopicPerRecordPartitionCounts(t *testing.T) {
	c := topicsCluster(t)
	in := `{"topic":"five","partition":4,"value":"a"}
{"topic":"two","partition":4,"value":"b"}
{"topic":"two","partition":1,"value":"c"}
`
	res := produceTo(t, c, strings.NewReader(in), "-f", "json")
	require.Equal(t, cmdutil.ExitFailed, res.Code, res.Stderr)
	// Reports come as partitions complete: no order across partitions.
	assert.ElementsMatch(t, []string{"five/4@0", "two/1@0"}, kafkatest.Lines(res.Stdout))
	assert.Equal(t, []string{
		"error: -:2: two/4: not sent: unknown partition: partition 4 of topic two, which has 2 partitions",
		"2 delivered, 1 failed",
	}, kafkatest.Lines(res.Stderr))
	kafkatest.ConsumeExactly(t, c, "five", 1)
	kafkatest.ConsumeExactly(t, c, "two", 1)
}

// TestTopicPerRecordUnknownTopic checks that records for a topic the
// cluster does not have (and does not create) fail on their own, naming the
// topic, while the records for the other topics are delivered.
func TestTopicPerRecordUnknownTopic(t *testing.T) {
	c := topicsCluster(t)
	var in strings.Builder
	for i := range 12 {
		topic := []string{"two", "missing", "five"}[i%3]
		fmt.Fprintf(&in, `{"topic":%q,"value":"v%d"}`+"\n", topic, i)
	}
	res := produceTo(t, c, strings.NewReader(in.String()), "-f", "json", "-o", "json",
		"--delivery-timeout", "1500ms", "--request-timeout", "1s")
	require.Equal(t, cmdutil.ExitFailed, res.Code, res.Stderr)
	reps := kafkatest.ParseJSONReports(t, res.Stdout)
	require.Len(t, reps, 12)
	for _, r := range reps {
		if r.Topic == "missing" {
			require.NotNil(t, r.Error, "record %d", r.Record)
			assert.Contains(t, *r.Error, "topic not present in metadata")
			assert.Contains(t, *r.Error, "missing")
			assert.Equal(t, int64(2), r.Record%3)
			continue
		}
		assert.Nil(t, r.Error, "record %d to %s", r.Record, r.Topic)
	}
	assert.Contains(t, res.Stderr, "8 delivered, 4 failed")
	kafkatest.ConsumeExactly(t, c, "two", 4)
	kafkatest.ConsumeExactly(t, c, "five", 4)
	assert.Empty(t, c.PartitionInfos("missing"), "the topic was created")
}
