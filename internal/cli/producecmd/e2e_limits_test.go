package producecmd_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestE2ERecordLargerThanBatchSize checks that a record larger than
// --batch-size (but within the request size) goes in a batch of its own.
func TestE2ERecordLargerThanBatchSize(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	big := strings.Repeat("B", 50<<10)
	in := "before\n" + big + "\nafter\n"
	res := produceTo(t, c, strings.NewReader(in), "-t", "t", "-p", "0", "--batch-size", "1KiB")
	require.Equal(t, 0, res.Code, res.Stderr)
	recs := kafkatest.ByOffset(kafkatest.ConsumeExactly(t, c, "t", 3))
	assert.Equal(t, "before", string(recs[0].Value))
	assert.Equal(t, big, string(recs[1].Value))
	assert.Equal(t, "after", string(recs[2].Value))
}

// tooLargeInput is 200 small lines with one line over a 4000-byte broker
// limit in the middle (record 102), so that batches holding it are split
// until it fails alone.
func tooLargeInput() string {
	var in strings.Builder
	for i := range 200 {
		fmt.Fprintf(&in, "small-%03d-%s\n", i, strings.Repeat("s", 60))
		if i == 100 {
			in.WriteString("huge-" + strings.Repeat("h", 6000) + "\n")
		}
	}
	return in.String()
}

// TestE2EBrokerMessageTooLarge checks the broker's own size limit: batches
// over it are split and retried, and a single record over it fails alone
// with its position.
func TestE2EBrokerMessageTooLarge(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t, kfake.BrokerConfigs(map[string]string{"message.max.bytes": "4000"}))
	res := produceTo(t, c, strings.NewReader(tooLargeInput()), "-t", "t", "-p", "0", "--linger", "50ms",
		"-o", positionTemplate)
	require.Equal(t, 1, res.Code, res.Stderr)
	errs := kafkatest.Lines(res.Stderr)
	require.Len(t, errs, 2, res.Stderr)
	assert.Regexp(t, `^error: -:102: t/0: .*MESSAGE_TOO_LARGE`, errs[0])
	assert.Equal(t, "200 delivered, 1 failed", errs[1])
	got := positionsOf(t, res.Stdout, kafkatest.ConsumeExactly(t, c, "t", 200))
	require.Len(t, got, 200)
	for pos, r := range got {
		var n int
		_, err := fmt.Sscanf(pos, "-:%d", &n)
		require.NoError(t, err)
		if n > 102 {
			n-- // after the huge line
		}
		assert.True(t, strings.HasPrefix(string(r.Value), fmt.Sprintf("small-%03d-", n-1)), "report %s: %.20s", pos, r.Value)
	}
}

// TestE2EIdempotentSplitKeepsPartitionOrder checks that an idempotent
// producer keeps a partition's input order when the broker refuses batches
// as too large and they are split: offsets must follow the input order.
func TestE2EIdempotentSplitKeepsPartitionOrder(t *testing.T) {
	t.Parallel()
	for _, maxInFlight := range []string{"1", "5"} {
		t.Run("max-in-flight="+maxInFlight, func(t *testing.T) {
			t.Parallel()
			c := kafkatest.ProducerCluster(t, kfake.BrokerConfigs(map[string]string{"message.max.bytes": "4000"}))
			res := produceTo(t, c, strings.NewReader(tooLargeInput()), "-t", "t", "-p", "0", "--linger", "50ms",
				"--max-in-flight", maxInFlight, "-o", "none")
			require.Equal(t, 1, res.Code, res.Stderr)
			var order []string
			for _, r := range kafkatest.ByOffset(kafkatest.ConsumeExactly(t, c, "t", 200)) {
				order = append(order, string(r.Value[len("small-"):len("small-000")]))
			}
			for i, got := range order {
				require.Equal(t, fmt.Sprintf("%03d", i), got, "offset %d; stored order: %v", i, order)
			}
		})
	}
}

// TestE2EMissingTopicFailsEachRecord checks that records for a topic the
// cluster does not have (and will not create) fail with their positions
// once the delivery timeout passes.
func TestE2EMissingTopicFailsEachRecord(t *testing.T) {
	t.Parallel()
	c := kafkatest.NewCluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	res := produceTo(t, c, strings.NewReader("a\nb\n"), "-t", "nope", "--delivery-timeout", "1s", "--log-level", "error")
	require.Equal(t, 1, res.Code, res.Stderr)
	errs := kafkatest.Lines(res.Stderr)
	require.Len(t, errs, 3, res.Stderr)
	assert.Regexp(t, `^error: -:1: nope/-1: .*nope`, errs[0])
	assert.Regexp(t, `^error: -:2: nope/-1: .*nope`, errs[1])
	assert.Equal(t, "0 delivered, 2 failed", errs[2])
}

// TestE2ETinyBufferMemory checks that a buffer memory far smaller than the
// input only slows the reader down: every record is delivered once, in
// order per partition, and a record that cannot fit the buffer at all
// fails alone with its position.
func TestE2ETinyBufferMemory(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	const n = 5000
	in := kafkatest.NumberedLines("m", 2500) + strings.Repeat("x", 20000) + "\n" + kafkatest.NumberedLines("n", n-2500)
	res := produceTo(t, c, strings.NewReader(in), "-t", "t", "--buffer-memory", "16KiB", "--batch-size", "2KiB",
		"-o", "none")
	require.Equal(t, 1, res.Code, res.Stderr)
	errs := kafkatest.Lines(res.Stderr)
	require.Len(t, errs, 2, res.Stderr)
	assert.Regexp(t, `^error: -:2501: t/-1: .*buffer memory`, errs[0])
	assert.Equal(t, fmt.Sprintf("%d delivered, 1 failed", n), errs[1])
	last := map[string]int{}
	for _, r := range kafkatest.ByOffset(kafkatest.ConsumeExactly(t, c, "t", n)) {
		prefix, num, ok := strings.Cut(string(r.Value), "-")
		require.True(t, ok, "%q", r.Value)
		var i int
		_, err := fmt.Sscanf(num, "%d", &i)
		require.NoError(t, err)
		key := fmt.Sprintf("%s/%d", prefix, r.Partition)
		if prev, ok := last[key]; ok {
			require.Greater(t, i, prev, "order of %s records in partition %d", prefix, r.Partition)
		}
		last[key] = i
	}
}
