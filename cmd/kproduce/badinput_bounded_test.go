package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// sparseFile makes a file of size bytes of zeros that takes no disk space.
func sparseFile(t *testing.T, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.bin")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(size))
	require.NoError(t, f.Close())
	return path
}

// TestBoundedRecordLimitAboveWhatCanBeSent: a --max-record-bytes above the
// request size or the buffer memory is refused before anything is read,
// naming both limits.
func TestBoundedRecordLimitAboveWhatCanBeSent(t *testing.T) {
	t.Parallel()
	big := sparseFile(t, 2<<30)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--max-record-bytes", "3GiB"}, []string{"--max-record-bytes 3221225472", "--max-request-size 1048576"}},
		{[]string{"--max-record-bytes", "3GiB", "--max-request-size", "2000MiB"}, []string{"--max-record-bytes 3221225472", "--max-request-size 2097152000"}},
		{[]string{"--max-record-bytes", "64MiB", "--max-request-size", "100MiB"}, []string{"--max-record-bytes 67108864", "--buffer-memory 8388608"}},
	} {
		proc := startProcess(t, nil, append([]string{"-b", networktest.ClosedAddr(t), "-t", "t", big}, tc.args...)...)
		code, took := proc.wait(t, time.Minute)
		assert.Equal(t, cmdutil.ExitUsage, code, proc.stderr.String())
		assert.Less(t, took, 5*time.Second)
		for _, w := range tc.want {
			assert.Contains(t, proc.stderr.String(), w)
		}
	}
}

// TestBoundedTwoGiBRecord reads a 2 GiB file of zeros with no delimiter as
// lines and as json, with --max-record-bytes raised as far as a request
// allows (256 MiB): the record is reported failed at once, the rest of it
// skipped, and the peak memory stays far below the record's size.
func TestBoundedTwoGiBRecord(t *testing.T) {
	t.Parallel()
	big := sparseFile(t, 2<<30)
	c := kafkatest.ProducerCluster(t)
	for _, format := range []string{"lines", "json"} {
		t.Run(format, func(t *testing.T) {
			proc := startProcess(t, nil, "-b", kafkatest.Brokers(c), "-t", "t", "-f", format, "--max-record-bytes", "256MiB",
				"--max-request-size", "256MiB", "--buffer-memory", "256MiB", big)
			peak := proc.trackPeakRSS(t)
			code, took := proc.wait(t, 2*time.Minute)
			rss := peak()
			t.Logf("%s: exit %d in %v, peak RSS %d MiB; stderr %q", format, code, took.Round(time.Millisecond), rss>>20, proc.stderr.String())
			assert.Equal(t, cmdutil.ExitFailed, code)
			assert.Contains(t, proc.stderr.String(), "big.bin:1: t/-1: ")
			if format == "json" {
				assert.Contains(t, proc.stderr.String(), "malformed JSON at byte 1")
				assert.Less(t, rss, int64(100<<20), "json fails at its first invalid byte, without reading the record")
			} else {
				assert.Contains(t, proc.stderr.String(), "record too large: more than --max-record-bytes 268435456")
				assert.Less(t, rss, int64(256<<20+64<<20), "at most the limit and the buffers")
			}
		})
	}
}

// TestBoundedDevZero produces /dev/zero, an endless record: its failure
// is reported within a second (lines, json, a format string), and SIGTERM
// then ends the run with 130.
func TestBoundedDevZero(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	c := kafkatest.ProducerCluster(t)
	for _, format := range []string{"lines", "json", `%v\n`} {
		t.Run(format, func(t *testing.T) {
			proc := startProcess(t, nil, "-b", kafkatest.Brokers(c), "-t", "t", "-f", format, "--close-timeout", "1s", "/dev/zero")
			start := time.Now()
			kafkatest.WaitFor(t, 10*time.Second, "the failure of record 1", func() bool {
				return strings.Contains(proc.stderr.String(), "/dev/zero:1: t/-1: ")
			})
			took := time.Since(start)
			t.Logf("%s: reported after %v: %q", format, took.Round(time.Millisecond), proc.stderr.String())
			assert.Less(t, took, time.Second, "reported within a second")
			proc.signal(t, syscall.SIGTERM)
			code, _ := proc.wait(t, time.Minute)
			assert.Equal(t, cmdutil.ExitInterrupted, code)
		})
	}
}
