package main

import (
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestSignalsHangupMidStream sends SIGHUP (a closed terminal) to the real
// binary while records flow in and the brokers hold produce requests: as
// SIGTERM, it exits 130 after the flush, and every record read is
// reported exactly once, delivered (and stored) or failed as interrupted.
func TestSignalsHangupMidStream(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	produces := heldProduces(t, c, 3)
	var stdin io.WriteCloser
	proc := startProcess(t, func(cmd *exec.Cmd) {
		var err error
		stdin, err = cmd.StdinPipe()
		require.NoError(t, err)
	}, "-b", kafkatest.Brokers(c), "-t", "t", "--linger", "0s", "-o", "json", "--close-timeout", "1s")
	feed := startFeeder(stdin)
	defer feed.halt()
	kafkatest.WaitFor(t, streamWait, "a held produce request and records behind it", func() bool {
		return produces.Load() > 3 && feed.written.Load() > 50
	})
	proc.signal(t, syscall.SIGHUP)
	code, _ := proc.wait(t, time.Minute)
	feed.halt()
	assert.Equal(t, cmdutil.ExitInterrupted, code, "exit 130 as for SIGTERM, not death by SIGHUP (-1); stderr:\n%s", proc.stderr.String())
	delivered := assertEachReadRecordReported(t, proc, int(feed.written.Load()))
	assert.Equal(t, fmt.Sprintf("%d delivered, %d failed", delivered, countFailedJSON(t, proc)),
		strings.TrimSpace(proc.stderr.String()))
	kafkatest.ConsumeExactly(t, c, "t", delivered)
}

// TestSignalsHangupAbortsTransaction sends SIGHUP while a transaction is
// open: the run aborts it (nothing is visible read_committed), counts
// every record as failed in one line saying how to load them again, and
// exits 130.
func TestSignalsHangupAbortsTransaction(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	var stdin io.WriteCloser
	proc := startProcess(t, func(cmd *exec.Cmd) {
		var err error
		stdin, err = cmd.StdinPipe()
		require.NoError(t, err)
	}, "-b", kafkatest.Brokers(c), "-t", "t", "-p", "0", "--transactional-id", "hup-1", "--linger", "0s")
	defer stdin.Close()
	_, err := io.WriteString(stdin, kafkatest.NumberedLines("r", 5))
	require.NoError(t, err)
	kafkatest.WaitFor(t, streamWait, "the records at the broker, uncommitted", func() bool { return kafkatest.RecordCount(c, "t") >= 5 })
	proc.signal(t, syscall.SIGHUP)
	code, _ := proc.wait(t, time.Minute)
	stderr := proc.stderr.String()
	require.Equal(t, cmdutil.ExitInterrupted, code, "stderr: %s", stderr)
	assert.Contains(t, stderr, "transaction aborted: interrupted: 5 records not committed; nothing was committed: run the same command again to load them\n")
	assert.Zero(t, strings.Count(stderr, "transaction aborted: interrupted\n"), "no line per record: %s", stderr)
	assert.Empty(t, kafkatest.CommittedValues(t, c, "t", 0), "nothing visible read_committed")
}

// TestSignalsHangupCheck sends SIGHUP to kproduce check while the brokers
// hold its canaries: it ends as for SIGTERM, exit 130, with its report.
func TestSignalsHangupCheck(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			c := kafkatest.ProducerCluster(t)
			produces := heldProduces(t, c, 0)
			proc := startProcess(t, nil, "check", "-b", kafkatest.Brokers(c), "-t", "t", "--timeout", "1m")
			kafkatest.WaitFor(t, streamWait, "held canaries", func() bool { return produces.Load() > 0 })
			proc.signal(t, sig)
			code, _ := proc.wait(t, 30*time.Second)
			assert.Equal(t, cmdutil.ExitInterrupted, code, "stdout:\n%s\nstderr:\n%s", proc.stdout.String(), proc.stderr.String())
		})
	}
}
