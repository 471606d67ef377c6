package producecmd_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// The read_committed view is the oracle of these tests: kgo consumes with
// the ReadCommitted isolation level. "Nothing visible" is proven by
// sentinels: after the run, one record is produced (outside any
// transaction) to every partition, and consuming read_committed from the
// start must yield exactly the sentinels.

// txnTopicArgs send every record to partition 0, so their order is one
// sequence.
const txnTopicArgs = "-t t -p 0"

func TestTransactionCommitted(t *testing.T) {
	c := kafkatest.ProducerCluster(t)
	input := kafkatest.NumberedLines("r", 200)
	res := produceTo(t, c, strings.NewReader(input), append(strings.Fields(txnTopicArgs), "--transactional-id", "load-1", "-o", "json")...)
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	assert.Equal(t, "transaction committed: 200 records\n", res.Stderr)

	reps := kafkatest.ParseJSONReports(t, res.Stdout)
	require.Len(t, reps, 200)
	recs := kafkatest.ByOffset(kafkatest.ConsumeAll(t, c.ListenAddrs(), "t", 200, kafkatest.ReadCommitted()))
	for i, rec := range recs {
		assert.Equal(t, fmt.Sprintf("r-%d", i), string(rec.Value), "record %d in order", i)
	}
	for i, rep := range reps {
		require.Nil(t, rep.Error, "report %d", i)
		assert.Equal(t, int64(i+1), rep.Record)
		assert.Equal(t, recs[i].Offset, rep.Offset, "report %d has the stored offset", i)
	}
}

func TestTransactionCommittedManyPartitions(t *testing.T) {
	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader(kafkatest.NumberedLines("k", 300)), "-t", "t", "--partitioner", "round-robin",
		"--transactional-id", "load-2", "-o", "none")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	got := kafkatest.CommittedValues(t, c, "t", 300)
	assert.Len(t, got, 300)
}

func TestTransactionAbortedOnRecordTooLarge(t *testing.T) {
	c := kafkatest.ProducerCluster(t)
	var input strings.Builder
	for i := 1; i <= 100; i++ {
		if i == 60 {
			input.WriteString(strings.Repeat("x", 200) + "\n")
			continue
		}
		fmt.Fprintf(&input, "r%d\n", i)
	}
	res := produceTo(t, c, strings.NewReader(input.String()), append(strings.Fields(txnTopicArgs),
		"--transactional-id", "load-3", "--max-record-bytes", "100", "-o", "json")...)
	require.Equal(t, 1, res.Code, "stderr: %s", res.Stderr)
	reps := kafkatest.ParseJSONReports(t, res.Stdout)
	require.Len(t, reps, 60, "reading stops at the failed record")
	for i, rep := range reps {
		require.NotNil(t, rep.Error, "report %d", i)
		assert.True(t, strings.HasPrefix(*rep.Error, "transaction aborted: "), "report %d: %s", i, *rep.Error)
		assert.Equal(t, int64(-1), rep.Offset)
	}
	assert.Contains(t, *reps[59].Error, "100")
	assert.Contains(t, res.Stderr, "transaction aborted: -:60: ")
	assert.Contains(t, res.Stderr, ": 60 records not committed\n")
	assert.Empty(t, kafkatest.CommittedValues(t, c, "t", 0), "nothing visible read_committed")
}

func TestTransactionAbortedOnBrokerError(t *testing.T) {
	c := kafkatest.ProducerCluster(t)
	fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "t", Partitions: []int32{3}, Err: kerr.InvalidRecord, Count: -1})
	res := produceTo(t, c, strings.NewReader(kafkatest.NumberedLines("r", 120)), "-t", "t", "--partitioner", "round-robin",
		"--transactional-id", "load-4")
	require.Equal(t, 1, res.Code, "stderr: %s", res.Stderr)
	assert.Empty(t, res.Stdout, "nothing reported delivered")
	errLines := 0
	for _, l := range kafkatest.Lines(res.Stderr) {
		if strings.HasPrefix(l, "error: ") {
			errLines++
			assert.Contains(t, l, "transaction aborted: ")
		}
	}
	assert.Equal(t, 120, errLines, "every record reported failed")
	assert.Contains(t, res.Stderr, "INVALID_RECORD")
	assert.Contains(t, res.Stderr, ": 120 records not committed\n")
	fault.Remove() // for the sentinels
	assert.Empty(t, kafkatest.CommittedValues(t, c, "t", 0), "nothing visible read_committed")
}

func TestTransactionAbortedOnInterrupt(t *testing.T) {
	c := kafkatest.ProducerCluster(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	run := startKproduce(ctx, pr, "-b", kafkatest.Brokers(c), "-t", "t", "-p", "0", "--transactional-id", "load-5", "--linger", "0s")
	_, err := io.WriteString(pw, kafkatest.NumberedLines("r", 5))
	require.NoError(t, err)
	kafkatest.Poll(20*time.Second, func() bool { return kafkatest.RecordCount(c, "t") >= 5 })
	require.EqualValues(t, 5, kafkatest.RecordCount(c, "t"), "the records reached the broker, uncommitted")
	assert.Empty(t, run.Stdout.String(), "reports wait for the transaction's outcome")
	cancel()
	require.Equal(t, cmdutil.ExitInterrupted, run.Wait(t, 20*time.Second), "stderr: %s", run.Stderr.String())
	stderr := run.Stderr.String()
	assert.Contains(t, stderr, "transaction aborted: interrupted: 5 records not committed; nothing was committed: run the same command again to load them\n")
	assert.Zero(t, strings.Count(stderr, "transaction aborted: interrupted\n"), "no line per record: %s", stderr)
	assert.Empty(t, kafkatest.CommittedValues(t, c, "t", 0), "nothing visible read_committed")
}

func TestTransactionRecordsChunks(t *testing.T) {
	c := kafkatest.ProducerCluster(t)
	var input strings.Builder
	for i := 1; i <= 45; i++ {
		if i == 25 {
			input.WriteString(strings.Repeat("x", 200) + "\n")
			continue
		}
		fmt.Fprintf(&input, "r%d\n", i)
	}
	res := produceTo(t, c, strings.NewReader(input.String()), append(strings.Fields(txnTopicArgs),
		"--transactional-id", "load-6", "--transaction-records", "10", "--max-record-bytes", "100", "-o", "json")...)
	require.Equal(t, 1, res.Code, "stderr: %s", res.Stderr)
	reps := kafkatest.ParseJSONReports(t, res.Stdout)
	require.Len(t, reps, 25, "two committed chunks, then the aborted one up to its failed record")
	for i, rep := range reps[:20] {
		assert.Nil(t, rep.Error, "report %d", i)
	}
	for i, rep := range reps[20:] {
		require.NotNil(t, rep.Error, "report %d", 20+i)
		assert.Contains(t, *rep.Error, "transaction aborted: ")
	}
	assert.Contains(t, res.Stderr, "2 transactions committed: 20 records\n")
	assert.Contains(t, res.Stderr, ": 5 records not committed\n")

	recs := kafkatest.ByOffset(kafkatest.ConsumeAll(t, c.ListenAddrs(), "t", 20, kafkatest.ReadCommitted()))
	for i := range 20 {
		assert.Equal(t, fmt.Sprintf("r%d", i+1), string(recs[i].Value), "record %d in order", i)
		assert.Equal(t, recs[i].Offset, reps[i].Offset, "report %d has the stored offset", i)
	}
	var want []string
	for i := 1; i <= 20; i++ {
		want = append(want, fmt.Sprintf("r%d", i))
	}
	assert.Equal(t, want, kafkatest.CommittedValues(t, c, "t", 20), "chunks 1-2 visible, the third not")
}

func TestTransactionUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"acks 1", []string{"--transactional-id", "x", "-a", "1"}, "--transactional-id needs --acks all"},
		{"no idempotence", []string{"--transactional-id", "x", "--idempotence=false"}, "--transactional-id needs idempotence"},
		{"records without id", []string{"--transaction-records", "5"}, "--transaction-records needs --transactional-id"},
		{"bad timeout", []string{"--transactional-id", "x", "--transaction-timeout", "0s"}, "transaction-timeout"},
		{"resume without id", []string{"--resume"}, "--resume needs --transactional-id: an idempotent producer deduplicates retries within one run only"},
		{"resume dry run", []string{"--resume", "--transactional-id", "x", "--dry-run", "--partitions", "3"}, "--resume cannot be used with --dry-run"},
		{"resume empty topic", []string{"--resume", "--transactional-id", "x", "--resume-topic", " "}, "--resume-topic must name a topic"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := runKproduce(t, strings.NewReader("a\n"), append([]string{"-b", "127.0.0.1:1", "-t", "t"}, tt.args...)...)
			assert.Equal(t, cmdutil.ExitUsage, res.Code)
			assert.Contains(t, res.Stderr, tt.want)
		})
	}
}

// TestTransactionCommitUnanswered: a commit the coordinator does not
// answer in time may still stand, so its records are reported as of
// unknown outcome, not as aborted, and no abort is sent after it. The
// coordinator then handles the held commit: the records become visible,
// which an "aborted" report would have denied.
func TestTransactionCommitUnanswered(t *testing.T) {
	c := kafkatest.ProducerCluster(t)
	wake := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(wake) }) }
	t.Cleanup(release)
	var ends atomic.Int32
	c.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		ends.Add(1)
		if !req.(*kmsg.EndTxnRequest).Commit {
			t.Errorf("EndTxn(abort) sent after the commit")
		}
		c.SleepControl(func() { <-wake })
		return nil, nil, false
	})
	res := produceTo(t, c, strings.NewReader(kafkatest.NumberedLines("r", 5)), "-t", "t", "-p", "0", "--transactional-id", "load-unanswered",
		"--delivery-timeout", "1s", "--request-timeout", "400ms")
	require.Equal(t, 1, res.Code, "stderr: %s", res.Stderr)
	assert.Empty(t, res.Stdout)
	assert.Contains(t, res.Stderr, "transaction outcome unknown: ")
	assert.Contains(t, res.Stderr, ": 5 records may or may not have been committed\n")
	assert.Equal(t, 5, strings.Count(res.Stderr, "the records may or may not have been committed\n"), res.Stderr)
	assert.NotContains(t, res.Stderr, "transaction aborted")
	require.Positive(t, ends.Load(), "the commit was sent")
	release()
	assert.Equal(t, kafkatest.Lines(kafkatest.NumberedLines("r", 5)), kafkatest.CommittedValues(t, c, "t", 5), "the held commit stood")
}
