package producecmd_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// keyedTxnInput is n lines "kK:vNNNNN" over ten keys, so per-key order can
// be checked across partitions.
func keyedTxnInput(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "k%d:v%05d\n", i%10, i)
	}
	return b.String()
}

// requireCommittedOnceInOrder checks that the committed view holds every
// value of keyedTxnInput(n) exactly once, each key's values in input order.
func requireCommittedOnceInOrder(t *testing.T, c *kfake.Cluster, topic string, n int) {
	t.Helper()
	recs := kafkatest.ByOffset(kafkatest.ConsumeAll(t, c.ListenAddrs(), topic, n, kafkatest.ReadCommitted()))
	seen := make(map[string]bool, n)
	last := map[string]string{}
	for _, r := range recs {
		v := string(r.Value)
		require.False(t, seen[v], "value %s stored twice", v)
		seen[v] = true
		k := string(r.Key)
		assert.Less(t, last[k], v, "key %s out of order", k)
		last[k] = v
	}
	require.Len(t, seen, n)
}

// TestTransactionSurvivesRetriableFaults: retriable Produce errors and
// coordinator errors during a transaction are retried inside it; the
// commit makes every record visible exactly once, in order per key.
func TestTransactionSurvivesRetriableFaults(t *testing.T) {
	const n = 3000
	c := kafkatest.ProducerCluster(t)
	faults := []*kfake.FaultHandle{
		c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "t", Partitions: []int32{0, 3}, Err: kerr.NotLeaderForPartition, Count: 3}),
		// REQUEST_TIMED_OUT is answered after the batch was appended: the
		// retry is a duplicate the sequence numbers must drop.
		c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "t", Partitions: []int32{1}, Err: kerr.RequestTimedOut, Count: 2}),
		c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.AddPartitionsToTxn}, Err: kerr.CoordinatorLoadInProgress, Count: 2}),
		c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.EndTxn}, Err: kerr.ConcurrentTransactions, Count: 1}),
	}
	res := produceTo(t, c, strings.NewReader(keyedTxnInput(n)), "-t", "t", "-K", ":", "--linger", "1ms", "--batch-size", "4KiB",
		"--transactional-id", "faults-1", "-o", "none")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	assert.Contains(t, res.Stderr, fmt.Sprintf("transaction committed: %d records\n", n))
	for i, want := range []int{3, 2, 2, 1} {
		assert.Equal(t, want, faults[i].Hits(), "fault %d injected", i)
	}
	requireCommittedOnceInOrder(t, c, "t", n)
}

// TestTransactionSurvivesLeaderMoves: partitions changing leaders while a
// transaction is open are retried at the new leaders and still committed.
func TestTransactionSurvivesLeaderMoves(t *testing.T) {
	const n = 3000
	c := kafkatest.ProducerCluster(t)
	var moved atomic.Int32 // written on kfake's goroutine
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if moved.Load() < 3 {
			p := moved.Add(1)
			c.MoveTopicPartition("t", p, (c.LeaderFor("t", p)+1)%3)
		}
		return nil, nil, false
	})
	res := produceTo(t, c, strings.NewReader(keyedTxnInput(n)), "-t", "t", "-K", ":", "--linger", "1ms", "--batch-size", "4KiB",
		"--transactional-id", "moves-1", "-o", "none")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.EqualValues(t, 3, moved.Load(), "three partitions moved during the run")
	assert.Contains(t, res.Stderr, fmt.Sprintf("transaction committed: %d records\n", n))
	requireCommittedOnceInOrder(t, c, "t", n)
}
