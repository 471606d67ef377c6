package producecmd_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestE2EBrokerErrorFailsOnlyItsRecords checks that a partition whose
// writes the broker refuses for good fails only its own records, each
// reported with its position, while the other partitions' records are
// delivered.
func TestE2EBrokerErrorFailsOnlyItsRecords(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "t", Partitions: []int32{2},
		Err: kerr.InvalidRecord, Count: -1})
	part := kgo.StickyKeyPartitioner(nil).ForTopic("t")
	const n = 120
	var in strings.Builder
	failing := map[int]bool{}
	for i := range n {
		key := "k" + strconv.Itoa(i%13)
		if part.Partition(&kgo.Record{Key: []byte(key)}, 6) == 2 {
			failing[i+1] = true
		}
		fmt.Fprintf(&in, "%s=v%d\n", key, i+1)
	}
	require.NotEmpty(t, failing)
	res := produceTo(t, c, strings.NewReader(in.String()), "-t", "t", "-K", "=")
	require.Equal(t, 1, res.Code, res.Stderr)
	errs := kafkatest.Lines(res.Stderr)
	require.Len(t, errs, len(failing)+1, res.Stderr)
	for _, e := range errs[:len(failing)] {
		var num int
		_, err := fmt.Sscanf(e, "error: -:%d: t/2: ", &num)
		require.NoError(t, err, e)
		assert.True(t, failing[num], "record %d failed: %s", num, e)
		assert.Contains(t, e, "INVALID_RECORD")
	}
	assert.Equal(t, fmt.Sprintf("%d delivered, %d failed", n-len(failing), len(failing)), errs[len(failing)])
	recs := kafkatest.ConsumeExactly(t, c, "t", n-len(failing))
	for _, r := range recs {
		assert.NotEqual(t, int32(2), r.Partition)
	}
}

// TestE2ERetriesKeepOrderWithoutDuplicates checks that retriable errors,
// including timeouts answered after the batch was written, end with every
// record stored once, in input order per partition, and each report naming
// its record.
func TestE2ERetriesKeepOrderWithoutDuplicates(t *testing.T) {
	t.Parallel()
	faults := []*kerr.Error{kerr.NotLeaderForPartition, kerr.RequestTimedOut, kerr.NotEnoughReplicasAfterAppend}
	for _, fe := range faults {
		t.Run(fe.Message, func(t *testing.T) {
			t.Parallel()
			c := kafkatest.ProducerCluster(t)
			c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "t", Err: fe, Count: 5})
			const n = 2000
			res := produceTo(t, c, strings.NewReader(kafkatest.NumberedLines("r", n)), "-t", "t",
				"--batch-size", "1KiB", "--retry-backoff", "10ms", "-o", positionTemplate)
			require.Equal(t, 0, res.Code, res.Stderr)
			recs := kafkatest.ConsumeExactly(t, c, "t", n)
			got := positionsOf(t, res.Stdout, recs)
			require.Len(t, got, n)
			for pos, r := range got {
				num, err := strconv.Atoi(strings.TrimPrefix(pos, "-:"))
				require.NoError(t, err)
				assert.Equal(t, fmt.Sprintf("r-%d", num-1), string(r.Value), "report %s", pos)
			}
			last := map[int32]int{}
			for _, r := range kafkatest.ByOffset(recs) {
				i, err := strconv.Atoi(strings.TrimPrefix(string(r.Value), "r-"))
				require.NoError(t, err)
				if prev, ok := last[r.Partition]; ok {
					require.Greater(t, i, prev, "order in partition %d", r.Partition)
				}
				last[r.Partition] = i
			}
		})
	}
}
