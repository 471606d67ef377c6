//go:build cgo

package interop

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// signalAndWait sends sig to the run and returns its exit status.
func (r *streamingRun) signalAndWait(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	require.NoError(t, r.cmd.Process.Signal(sig))
	select {
	case err := <-r.done:
		r.done <- err // for the cleanup
		if exit, ok := err.(*exec.ExitError); ok {
			return exit.ExitCode()
		}
		require.NoError(t, err)
		return 0
	case <-time.After(time.Minute):
		t.Fatalf("kproduce did not exit; stderr:\n%s", r.stderr.String())
	}
	return -1
}

// waitStderr waits until stderr holds want.
func (r *streamingRun) waitStderr(t *testing.T, want string) {
	t.Helper()
	if !kafkatest.Poll(30*time.Second, func() bool { return strings.Contains(r.stderr.String(), want) }) {
		t.Fatalf("%q never came; stderr:\n%s", want, r.stderr.String())
	}
}

// TestRdkafkaMockHangup sends SIGHUP to a run producing to librdkafka's
// mock cluster: what was delivered is reported and stored once, exit 130;
// in a transaction, SIGHUP aborts it (EndTxn sent and answered).
func TestRdkafkaMockHangup(t *testing.T) {
	t.Parallel()
	t.Run("stream", func(t *testing.T) {
		mc := mockCluster(t, 3, "hup")
		r := startStreaming(t, "error", "-b", mc.BootstrapServers(), "-t", "hup", "-K", ":", "--linger", "0s")
		r.write(t, 0, 50)
		r.waitReports(t, 50)
		assert.Equal(t, 130, r.signalAndWait(t, syscall.SIGHUP), r.stderr.String())
		assert.Len(t, kafkatest.Lines(r.stdout.String()), 50, "one report per record")
		assertExactlyKeyed(t, consumeRdkafka(t, mc, "hup", 50), 50, true, false)
	})
	t.Run("transaction", func(t *testing.T) {
		mc := mockCluster(t, 3, "hup-txn")
		r := startStreaming(t, "debug", "-b", mc.BootstrapServers(), "-t", "hup-txn", "-K", ":", "--linger", "0s",
			"--transactional-id", "hup-txn")
		r.write(t, 0, 5)
		r.waitStderr(t, "api=Produce")
		assert.Equal(t, 130, r.signalAndWait(t, syscall.SIGHUP))
		assert.Contains(t, r.stderr.String(), "transaction aborted: interrupted: 5 records not committed")
		// The mock cluster keeps no aborted-transaction index for
		// read_committed readers (its consumer then shows aborted records):
		// what is checked on the wire is that the abort was sent and
		// answered before the exit.
		after := r.stderr.String()[strings.Index(r.stderr.String(), "api=Produce"):]
		assert.Contains(t, after, "api=EndTxn", "the transaction was ended, not left to time out")
		assert.NotContains(t, r.stderr.String(), "transaction outcome unknown")
	})
}

// TestRdkafkaMockResumeRefusesChangedOptions commits half a load to
// librdkafka's mock cluster with --resume and resumes it with another
// topic: refused, exit 2, naming the option; the same options go on.
func TestRdkafkaMockResumeRefusesChangedOptions(t *testing.T) {
	t.Parallel()
	mc := mockCluster(t, 3, "ro", "ro-other", "cp")
	in := keyedInput(10)
	base := []string{"-b", mc.BootstrapServers(), "-K", ":", "--transactional-id", "interop-resume", "--resume", "--resume-topic", "cp",
		"--transaction-records", "2", "-o", "none"}
	res := runKproduce(t, time.Minute, in, append(base, "-t", "ro", "--count", "4")...)
	require.Equal(t, 0, res.code, res.stderr)
	res = runKproduce(t, time.Minute, in, append(base, "-t", "ro-other")...)
	assert.Equal(t, 2, res.code, res.stderr)
	assert.Contains(t, res.stderr, `--topic was "ro" in the earlier run, "ro-other" now`)
	res = runKproduce(t, time.Minute, in, append(base, "-t", "ro", "-z", "gzip")...)
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stderr, fmt.Sprintf("resumed after -:%d", 4))
	assertExactlyKeyed(t, consumeRdkafka(t, mc, "ro", 10), 10, true, false)
}

// TestRdkafkaMockResumeManyFiles stops a load of 60 files of two lines
// each inside the 35th with --count, on librdkafka's mock cluster, and
// resumes it: the 34 files read to their end are one folded entry of the
// checkpoint, checked again byte for byte, and the load goes on from the
// second line of the 35th, every record exactly once.
func TestRdkafkaMockResumeManyFiles(t *testing.T) {
	t.Parallel()
	mc := mockCluster(t, 3, "rf", "cp")
	lines := strings.SplitAfter(keyedInput(120), "\n")
	files := kafkatest.WriteFiles(t, t.TempDir(), 60, func(i int) string { return lines[2*i] + lines[2*i+1] })
	base := []string{"-b", mc.BootstrapServers(), "-t", "rf", "-K", ":", "--transactional-id", "interop-resume-files",
		"--resume", "--resume-topic", "cp", "--transaction-records", "3", "-o", "none"}
	res := runKproduce(t, time.Minute, "", append(append(base, "--count", "69"), files...)...)
	require.Equal(t, 0, res.code, res.stderr)
	res = runKproduce(t, time.Minute, "", append(base, files...)...)
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stderr, "resumed after "+files[34]+":1")
	assertExactlyKeyed(t, consumeRdkafka(t, mc, "rf", 120), 120, true, false)
}
