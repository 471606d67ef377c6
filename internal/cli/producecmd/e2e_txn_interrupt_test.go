package producecmd_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// interruptedLoad runs a transactional load of the lines numbered 1..n
// from a pipe that stays open, waits until partition 0 of topic ends at
// end (records and commit markers at the broker), then interrupts it as
// SIGINT does and returns what it printed.
func interruptedLoad(t *testing.T, c *kfake.Cluster, n int, end int64, args ...string) kafkatest.Result {
	t.Helper()
	pr, pw := io.Pipe()
	t.Cleanup(func() { _ = pw.Close() })
	go func() {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "r%d\n", i)
		}
		_, _ = io.WriteString(pw, b.String()) // then the pipe stays open
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan kafkatest.Result, 1)
	go func() {
		done <- runKproduceCtx(t, ctx, pr, append([]string{"-b", kafkatest.Brokers(c), "-p", "0", "--linger", "1ms"}, args...)...)
	}()
	kafkatest.WaitFor(t, time.Minute, fmt.Sprintf("%d records and markers at the broker", end), func() bool {
		return kafkatest.PartitionEnd(t, c.ListenAddrs(), "t", 0) >= end
	})
	cancel()
	return <-done
}

// TestInterruptedLargeTransactionIsOneLine: a signal during a transaction
// of 200,000 records aborts it and says so in one line (how many were not
// committed, that nothing was, how to load them), then the run's summary:
// no line per record on stderr, nothing visible read_committed, exit 130.
func TestInterruptedLargeTransactionIsOneLine(t *testing.T) {
	c := oneBrokerCluster(t)
	const n = 200000
	r := interruptedLoad(t, c, n, n, "-t", "t", "--transactional-id", "big")
	require.Equal(t, cmdutil.ExitInterrupted, r.Code, r.Stderr)
	assert.Empty(t, r.Stdout)
	assert.Equal(t, fmt.Sprintf("transaction aborted: interrupted: %d records not committed; nothing was committed: run the same command again to load them\n"+
		"0 delivered, %d failed\n", n, n), r.Stderr)
	assert.Zero(t, countCommitted(t, c, "t"))
}

// TestInterruptedTransactionJSONReportsEachRecord: with -o json each
// record of the aborted transaction is still reported, on stdout, with
// the reason; stderr has the same two lines as in text mode.
func TestInterruptedTransactionJSONReportsEachRecord(t *testing.T) {
	c := oneBrokerCluster(t)
	r := interruptedLoad(t, c, 1000, 1000, "-t", "t", "--transactional-id", "json", "-o", "json")
	require.Equal(t, cmdutil.ExitInterrupted, r.Code, r.Stderr)
	reports := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
	require.Len(t, reports, 1000)
	for i, line := range reports {
		var rep struct {
			Record int64  `json:"record"`
			Offset int64  `json:"offset"`
			Error  string `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &rep), line)
		assert.Equal(t, int64(i+1), rep.Record)
		assert.Equal(t, int64(-1), rep.Offset)
		assert.Equal(t, "transaction aborted: interrupted", rep.Error)
	}
	assert.Equal(t, 2, strings.Count(r.Stderr, "\n"), r.Stderr)
	assert.Contains(t, r.Stderr, "transaction aborted: interrupted: 1000 records not committed; nothing was committed")
}

// TestInterruptedChunkedLoadSaysWhereToGoOn: an interrupt after two of
// --transaction-records' chunks were committed names the last record
// committed; with --resume it says to run the same command again, and
// that run loads exactly the rest.
func TestInterruptedChunkedLoadSaysWhereToGoOn(t *testing.T) {
	c := oneBrokerCluster(t)
	// 250 records: two committed chunks of 100 (each with its commit
	// marker), 50 in the open transaction.
	r := interruptedLoad(t, c, 250, 252, "-t", "t", "--transactional-id", "chunks", "--transaction-records", "100", "-o", "none")
	require.Equal(t, cmdutil.ExitInterrupted, r.Code, r.Stderr)
	assert.Equal(t, "transaction aborted: interrupted: 50 records not committed; the records up to -:200 were committed: "+
		"load only those after it (--resume does that by itself)\n2 transactions committed: 200 records\n200 delivered, 50 failed\n", r.Stderr)
	assert.Equal(t, 200, countCommitted(t, c, "t"))

	c = oneBrokerCluster(t)
	args := []string{"-t", "t", "--transactional-id", "resumed", "--transaction-records", "100", "-o", "none", "--resume"}
	r = interruptedLoad(t, c, 250, 252, args...)
	require.Equal(t, cmdutil.ExitInterrupted, r.Code, r.Stderr)
	assert.Equal(t, "transaction aborted: interrupted: 50 records not committed; run the same command again to go on after the last commit\n"+
		"2 transactions committed: 200 records\n200 delivered, 50 failed\n", r.Stderr)
	var in strings.Builder
	for i := 1; i <= 250; i++ {
		fmt.Fprintf(&in, "r%d\n", i)
	}
	r = runKproduceCtx(t, context.Background(), strings.NewReader(in.String()), append([]string{"-b", kafkatest.Brokers(c), "-p", "0"}, args...)...)
	require.Equal(t, cmdutil.ExitOK, r.Code, r.Stderr)
	assert.Equal(t, 250, countCommitted(t, c, "t"), "the rerun committed the 50 left, once")
}

// goroutineIn reports whether a goroutine of the test binary is in the
// function named fn (a run in process waiting there).
func goroutineIn(fn string) bool {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Contains(string(buf[:n]), fn)
		}
		buf = make([]byte, 2*len(buf))
	}
}

// TestInterruptedWaitForMemoryNamesTheInterrupt: a record waiting for
// buffer memory when the run is interrupted fails saying it was not sent
// because of the interrupt, in the run's words, not the producer's
// internals (the records held at the broker fail as not delivered when
// --close-timeout ends).
func TestInterruptedWaitForMemoryNamesTheInterrupt(t *testing.T) {
	c := oneBrokerCluster(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	var produces atomic.Int32
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		produces.Add(1)
		c.SleepControl(func() { <-release }) // every produce request held
		return nil, nil, false
	})
	pr, pw := io.Pipe()
	t.Cleanup(func() { _ = pw.Close() })
	go func() {
		line := []byte(strings.Repeat("x", 99) + "\n")
		for {
			if _, err := pw.Write(line); err != nil {
				return
			}
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan kafkatest.Result, 1)
	go func() {
		done <- runKproduceCtx(t, ctx, pr, "-b", kafkatest.Brokers(c), "-t", "t", "--buffer-memory", "64KiB", "--linger", "0s", "-o", "none", "--close-timeout", "100ms")
	}()
	kafkatest.WaitFor(t, time.Minute, "a held produce request and a record waiting for buffer memory", func() bool {
		return produces.Load() > 0 && goroutineIn("accumulator.(*bufferPool).wait")
	})
	cancel()
	r := <-done
	require.Equal(t, cmdutil.ExitInterrupted, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "interrupted before the record was sent", "the record waiting for memory")
	assert.NotContains(t, r.Stderr, "accumulator")
}
