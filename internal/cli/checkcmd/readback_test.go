package checkcmd_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestE2ECheckReadsBack: every canary is read back from its partition,
// and each partition's produce-to-consume latency is reported next to
// its acknowledgement latency; a canary is read after its
// acknowledgement, so the first is never the smaller.
func TestE2ECheckReadsBack(t *testing.T) {
	c := kafkatest.AdminCluster(t)
	var fetches []int32
	c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		for _, tp := range req.(*kmsg.FetchRequest).Topics {
			for _, p := range tp.Partitions {
				fetches = append(fetches, p.Partition)
			}
		}
		return nil, nil, false
	})
	res := runCheck(t, "-b", kafkatest.Brokers(c), "-t", "t", "--count", "2", "-o", "json")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	got := decodeCheck(t, res.Stdout)
	require.Len(t, got.Partitions, 6)
	for _, p := range got.Partitions {
		require.NotNil(t, p.ReadLatencyMs, "partition %d", p.Partition)
		require.NotNil(t, p.LatencyMs)
		assert.GreaterOrEqual(t, *p.ReadLatencyMs, *p.LatencyMs, "partition %d: read back after its acknowledgement", p.Partition)
		assert.Contains(t, fetches, p.Partition, "partition %d was fetched", p.Partition)
	}
	assert.Equal(t, 12, got.Summary.Delivered)
	assert.Equal(t, 12, got.Summary.ReadBack)
	l := got.Summary.ReadLatencyMs
	require.NotNil(t, l.Min)
	assert.LessOrEqual(t, *l.Min, *l.Median)
	assert.LessOrEqual(t, *l.Median, *l.P99)
	assert.LessOrEqual(t, *l.P99, *l.Max)
}

// TestE2ECheckFailsAPartitionNotReadBack: a partition whose leader accepts
// the canaries but cannot serve them back (its fetches fail, for good or
// until the timeout) fails the check with "not read back"; the others
// pass.
func TestE2ECheckFailsAPartitionNotReadBack(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  *kerr.Error
		want string
	}{
		{"permanent error", kerr.UnknownServerError, "UNKNOWN_SERVER_ERROR"},
		{"retried until the timeout", kerr.NotLeaderForPartition, "still failing when the deadline came: NOT_LEADER_OR_FOLLOWER"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := kafkatest.AdminCluster(t)
			c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Fetch}, Topic: "t", Partitions: []int32{4}, Err: tc.err, Count: -1})
			res := runCheck(t, "-b", kafkatest.Brokers(c), "-t", "t", "--timeout", "2s", "-o", "json")
			assert.Equal(t, cmdutil.ExitFailed, res.Code, res.Stderr)
			got := decodeCheck(t, res.Stdout)
			assert.False(t, got.OK)
			assert.Equal(t, 5, got.Summary.OK)
			assert.Equal(t, 1, got.Summary.Failed)
			assert.Equal(t, 6, got.Summary.Delivered, "every canary was acknowledged")
			assert.Equal(t, 5, got.Summary.ReadBack)
			for _, p := range got.Partitions {
				if p.Partition != 4 {
					assert.True(t, p.OK, "partition %d", p.Partition)
					continue
				}
				assert.False(t, p.OK)
				require.NotNil(t, p.Error)
				assert.Equal(t, "not read back", *p.Error)
				assert.Contains(t, p.Detail, tc.want)
				assert.Nil(t, p.ReadLatencyMs)
			}

			text := runCheck(t, "-b", kafkatest.Brokers(c), "-t", "t", "--timeout", "2s")
			assert.Equal(t, cmdutil.ExitFailed, text.Code)
			assert.Regexp(t, `(?m)^  4 +\d +- +- +- +FAILED: not read back$`, text.Stdout)
			assert.Regexp(t, `(?m)^error: t/4 \(leader \d\): not read back: `, text.Stderr)
		})
	}
}
