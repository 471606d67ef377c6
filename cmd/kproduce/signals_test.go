package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// signalMargin is what an interrupted run may take beyond its
// --close-timeout: the forced close and printing. Generous: the point is
// that the run ends in bounded time.
const signalMargin = 3 * time.Second

// heldProduces makes c answer its first free Produce requests as usual and
// hold every later one until the test ends, so that records stay in
// flight. It returns the number of Produce requests received so far.
func heldProduces(t *testing.T, c *kfake.Cluster, free int32) *atomic.Int32 {
	t.Helper()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // before the cluster closes: cleanups run last in, first out
	var n atomic.Int32
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if n.Add(1) > free {
			c.SleepControl(func() { <-release })
		}
		return nil, nil, false
	})
	return &n
}

// feeder writes "rec-N\n" lines into a process's stdin, one every few
// milliseconds, until it is stopped or the pipe breaks.
type feeder struct {
	w       io.WriteCloser
	written atomic.Int64
	stop    chan struct{}
	done    chan struct{}
}

// startFeeder starts writing records into w.
func startFeeder(w io.WriteCloser) *feeder {
	f := &feeder{w: w, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-f.stop:
				return
			case <-tick.C:
			}
			if _, err := fmt.Fprintf(f.w, "rec-%d\n", f.written.Load()+1); err != nil {
				return
			}
			f.written.Add(1)
		}
	}()
	return f
}

// halt stops the feeder, leaving the pipe open.
func (f *feeder) halt() {
	select {
	case <-f.stop:
	default:
		close(f.stop)
	}
	<-f.done
}

// TestSignalsInterruptMidStream sends SIGINT, then SIGTERM in another run,
// to the real binary while records flow in through an open pipe and the
// brokers hold the produce requests after the first few: the flush after
// the signal waits for --close-timeout (1 s given for SIGINT, the default
// 5 s for SIGTERM), not less and not much more; the run exits 130; and
// every record read is reported exactly once, delivered (and stored) or
// failed with a reason saying the run was interrupted.
func TestSignalsInterruptMidStream(t *testing.T) {
	t.Parallel()
	cases := []struct {
		sig          syscall.Signal
		closeTimeout time.Duration
		args         []string
	}{
		{syscall.SIGINT, time.Second, []string{"--close-timeout", "1s"}},
		{syscall.SIGTERM, 5 * time.Second, nil}, // the default
	}
	for _, tc := range cases {
		t.Run(tc.sig.String(), func(t *testing.T) {
			t.Parallel()
			c := kafkatest.ProducerCluster(t)
			produces := heldProduces(t, c, 3)
			var stdin io.WriteCloser
			proc := startProcess(t, func(cmd *exec.Cmd) {
				var err error
				stdin, err = cmd.StdinPipe()
				require.NoError(t, err)
			}, append([]string{"-b", kafkatest.Brokers(c), "-t", "t", "--linger", "0s", "-o", "json"}, tc.args...)...)
			feed := startFeeder(stdin)
			defer feed.halt()
			kafkatest.WaitFor(t, streamWait, "a held produce request and records behind it", func() bool {
				return produces.Load() > 3 && feed.written.Load() > 50
			})
			sent := time.Now()
			proc.signal(t, tc.sig)
			code, _ := proc.wait(t, time.Minute)
			took := time.Since(sent)
			feed.halt()
			t.Logf("%v: exit %d %v after the signal; %d records written", tc.sig, code, took.Round(time.Millisecond), feed.written.Load())
			assert.Equal(t, cmdutil.ExitInterrupted, code, proc.stderr.String())
			assert.Greater(t, took, tc.closeTimeout-100*time.Millisecond, "the flush waits for the close timeout")
			assert.Less(t, took, tc.closeTimeout+signalMargin, "and no longer")
			delivered := assertEachReadRecordReported(t, proc, int(feed.written.Load()))
			assert.Equal(t, fmt.Sprintf("%d delivered, %d failed", delivered, countFailedJSON(t, proc)),
				strings.TrimSpace(proc.stderr.String()))
			kafkatest.ConsumeExactly(t, c, "t", delivered)
		})
	}
}

// assertEachReadRecordReported checks that the json reports of an
// interrupted run number the records 1..K, each once, for some K of at
// most written, that the failures say why, and returns how many were
// delivered.
func assertEachReadRecordReported(t *testing.T, proc *process, written int) int {
	t.Helper()
	reps := kafkatest.ParseJSONReports(t, proc.stdout.String())
	require.NotEmpty(t, reps)
	seen := make(map[int64]int)
	delivered := 0
	for _, r := range reps {
		seen[r.Record]++
		if r.Error == nil {
			delivered++
			continue
		}
		assert.Regexp(t, `interrupted|producer closed before the record was delivered`, *r.Error)
	}
	t.Logf("%d records reported, %d delivered, %d written", len(reps), delivered, written)
	assert.LessOrEqual(t, len(seen), written)
	for n := int64(1); n <= int64(len(seen)); n++ {
		assert.Equal(t, 1, seen[n], "reports of record %d", n)
	}
	assert.Len(t, reps, len(seen), "one report per record")
	assert.Positive(t, delivered, "the first records were answered before the signal")
	assert.Less(t, delivered, len(reps), "records were in flight at the signal")
	return delivered
}

// countFailedJSON counts the failure reports of a json run.
func countFailedJSON(t *testing.T, proc *process) int {
	t.Helper()
	n := 0
	for _, r := range kafkatest.ParseJSONReports(t, proc.stdout.String()) {
		if r.Error != nil {
			n++
		}
	}
	return n
}

// TestSignalsSecondInterruptExitsAtOnce checks that a second SIGINT ends
// the run at once, with 130, while the flush after the first waits for
// produce requests the brokers hold (with a long --close-timeout).
func TestSignalsSecondInterruptExitsAtOnce(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	produces := heldProduces(t, c, 0)
	var stdin io.WriteCloser
	proc := startProcess(t, func(cmd *exec.Cmd) {
		var err error
		stdin, err = cmd.StdinPipe()
		require.NoError(t, err)
	}, "-b", kafkatest.Brokers(c), "-t", "t", "--linger", "0s", "--close-timeout", "1m")
	feed := startFeeder(stdin)
	defer feed.halt()
	kafkatest.WaitFor(t, streamWait, "held produce requests", func() bool { return produces.Load() > 0 })
	proc.signal(t, syscall.SIGINT)
	kafkatest.WaitFor(t, streamWait, "the first signal to be delivered", func() bool { return !proc.signalPending(syscall.SIGINT) })
	// The flush is bounded by a minute: the run must still be waiting a
	// while after the signal. (Waiting here is what is checked: that
	// nothing happens for 300 ms; it synchronises nothing.)
	time.Sleep(300 * time.Millisecond)
	require.False(t, proc.exited(), "the first signal must not end the run while the flush waits; stderr:\n%s", proc.stderr.String())
	sent := time.Now()
	proc.signal(t, syscall.SIGINT)
	code, _ := proc.wait(t, time.Minute)
	assert.Equal(t, cmdutil.ExitInterrupted, code)
	assert.Less(t, time.Since(sent), signalMargin, "the second signal exits at once")
}

// TestSignalsInterruptWhileWaitingForAFIFOWriter checks that SIGINT ends a
// run whose input is a named pipe no writer has opened yet.
func TestSignalsInterruptWhileWaitingForAFIFOWriter(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	proc := startProcess(t, nil, "-b", kafkatest.Brokers(c), "-t", "t", "--close-timeout", "1s", fifo)
	kafkatest.WaitFor(t, streamWait, "kproduce to wait for a writer of the fifo", proc.waitingForFIFOWriter)
	sent := time.Now()
	proc.signal(t, syscall.SIGINT)
	code, _ := proc.wait(t, time.Minute)
	assert.Equal(t, cmdutil.ExitInterrupted, code, proc.stderr.String())
	assert.Less(t, time.Since(sent), time.Second+signalMargin)
	assert.Empty(t, proc.stdout.String())
	kafkatest.RequireEmpty(t, c, "t")
}

// TestSignalsClosedStdout closes the reading end of stdout after the first
// report, as `kproduce ... | head -1` does, while input keeps coming: the
// run must stop reading, print one line about stdout on stderr and exit 1,
// not die of SIGPIPE, panic or read forever.
func TestSignalsClosedStdout(t *testing.T) {
	t.Parallel()
	for _, output := range []string{"text", "json"} {
		t.Run(output, func(t *testing.T) {
			t.Parallel()
			c := kafkatest.ProducerCluster(t)
			var stdin io.WriteCloser
			var stdout io.ReadCloser
			proc := startProcess(t, func(cmd *exec.Cmd) {
				var err error
				stdin, err = cmd.StdinPipe()
				require.NoError(t, err)
				cmd.Stdout = nil
				stdout, err = cmd.StdoutPipe()
				require.NoError(t, err)
			}, "-b", kafkatest.Brokers(c), "-t", "t", "--linger", "0s", "-o", output)
			feed := startFeeder(stdin)
			defer feed.halt()
			first, err := bufio.NewReader(stdout).ReadString('\n')
			require.NoError(t, err)
			require.NoError(t, stdout.Close())
			closed := time.Now()
			code, _ := proc.wait(t, 2*streamWait)
			t.Logf("exit %d %v after stdout closed; first report %q; stderr %q", code,
				time.Since(closed).Round(time.Millisecond), first, proc.stderr.String())
			assert.Equal(t, cmdutil.ExitFailed, code, "exit 1, not death by SIGPIPE (-1)")
			assert.Less(t, time.Since(closed), streamWait)
			errs := kafkatest.Lines(proc.stderr.String())
			assert.Len(t, kafkatest.Filter(errs, func(l string) bool { return strings.Contains(l, "stdout") }), 1, proc.stderr.String())
			assert.NotContains(t, proc.stderr.String(), "panic")
			assert.NotContains(t, proc.stderr.String(), "goroutine ")
		})
	}
}

// TestSignalsClosedStdoutAndStderr is `kproduce ... 2>&1 | head -1` when
// every record fails: nothing is ever written to stdout, and the failure
// reports on stderr go into the closed pipe. The run must notice that its
// reports cannot be written, stop reading the endless input and exit 1.
func TestSignalsClosedStdoutAndStderr(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	var stdin io.WriteCloser
	var out io.ReadCloser
	proc := startProcess(t, func(cmd *exec.Cmd) {
		var err error
		stdin, err = cmd.StdinPipe()
		require.NoError(t, err)
		cmd.Stdout = nil
		out, err = cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = cmd.Stdout // 2>&1
	}, "-b", kafkatest.Brokers(c), "-t", "t", "-p", "99")
	feed := startFeeder(stdin)
	defer feed.halt()
	first, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	assert.Regexp(t, `^error: -:1: t/99: `, first)
	require.NoError(t, out.Close())
	closed := time.Now()
	code, _ := proc.wait(t, 2*streamWait)
	t.Logf("exit %d %v after the pipe closed; %d records written", code, time.Since(closed).Round(time.Millisecond), feed.written.Load())
	assert.Equal(t, cmdutil.ExitFailed, code, "exit 1, not death by SIGPIPE (-1)")
	assert.Less(t, time.Since(closed), streamWait, "reading stops")
}
