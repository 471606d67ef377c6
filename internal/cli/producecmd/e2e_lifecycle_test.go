package producecmd_test

import (
	"context"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/cli"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestE2ECountEndsWithStdinOpen checks that -c N ends the run after the Nth
// record even though stdin is still open.
func TestE2ECountEndsWithStdinOpen(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	pr, pw := io.Pipe()
	t.Cleanup(func() { _ = pw.Close() })
	run := startKproduce(context.Background(), pr, "-b", kafkatest.Brokers(c), "-t", "t", "-c", "2")
	writeWithin(t, pw, "one\ntwo\n")
	require.Equal(t, 0, run.Wait(t, streamWait), run.Stderr.String())
	assert.Len(t, kafkatest.Lines(run.Stdout.String()), 2)
	kafkatest.ConsumeExactly(t, c, "t", 2)
}

// TestE2EInterruptExits130 checks that cancelling the run (what the first
// SIGINT does) while stdin is open exits 130, after the records read so
// far were delivered and reported.
func TestE2EInterruptExits130(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	pr, pw := io.Pipe()
	t.Cleanup(func() { _ = pw.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := startKproduce(ctx, pr, "-b", kafkatest.Brokers(c), "-t", "t", "--close-timeout", "2s")
	writeWithin(t, pw, "one\ntwo\n")
	run.WaitStdout(t, 2, streamWait)
	cancel()
	require.Equal(t, cmdutil.ExitInterrupted, run.Wait(t, streamWait), run.Stderr.String())
	kafkatest.ConsumeExactly(t, c, "t", 2)
}

// TestE2EInterruptBoundsTheFlush checks that after an interrupt, records
// that cannot be delivered (the brokers never answer a produce request)
// fail within --close-timeout, each reported with its position, and the
// run exits 130.
func TestE2EInterruptBoundsTheFlush(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	var produces atomic.Int32
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		produces.Add(1)
		return nil, nil, true // never answered
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	t.Cleanup(func() { _ = pw.Close() })
	run := startKproduce(ctx, pr, "-b", kafkatest.Brokers(c), "-t", "t", "--close-timeout", "300ms",
		"--delivery-timeout", "1m", "--linger", "0s", "--log-level", "error")
	writeWithin(t, pw, "one\ntwo\n")
	kafkatest.WaitFor(t, streamWait, "a produce request", func() bool { return produces.Load() > 0 })
	cancel()
	require.Equal(t, cmdutil.ExitInterrupted, run.Wait(t, streamWait), run.Stderr.String())
	assert.Empty(t, run.Stdout.String())
	errs := kafkatest.Lines(run.Stderr.String())
	require.Len(t, errs, 3, run.Stderr.String())
	sort.Strings(errs[:2]) // the two may fail in either order
	assert.Regexp(t, `^error: -:1: t/\d: \S`, errs[0])
	assert.Regexp(t, `^error: -:2: t/\d: \S`, errs[1])
	assert.Equal(t, "0 delivered, 2 failed", errs[2])
}

// epipeWriter accepts limit bytes, then fails every write with EPIPE, as
// stdout does when the reader of a pipe went away.
type epipeWriter struct {
	mu    sync.Mutex
	limit int
	n     int
}

func (w *epipeWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n+len(p) > w.limit {
		return 0, syscall.EPIPE
	}
	w.n += len(p)
	return len(p), nil
}

// endlessLines is an input that never ends: "line-N\n" forever.
type endlessLines struct {
	mu  sync.Mutex
	n   int
	buf []byte
}

func (e *endlessLines) Read(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for len(e.buf) < len(p) {
		e.buf = strconv.AppendInt(append(e.buf, "line-"...), int64(e.n), 10)
		e.buf = append(e.buf, '\n')
		e.n++
	}
	n := copy(p, e.buf)
	e.buf = e.buf[:copy(e.buf, e.buf[n:])]
	return n, nil
}

// TestE2EClosedStdoutStops checks that when stdout is closed the run stops
// reading an endless input, prints one line on stderr and exits 1.
func TestE2EClosedStdoutStops(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	out := &epipeWriter{limit: 0}
	var errOut kafkatest.LockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Execute(context.Background(), []string{"-b", kafkatest.Brokers(c), "-t", "t", "-o", "json"},
			cmdutil.Streams{In: &endlessLines{}, Out: out, Err: &errOut})
	}()
	select {
	case code := <-done:
		assert.Equal(t, 1, code)
	case <-time.After(30 * time.Second):
		t.Fatalf("the run did not stop after stdout was closed; stderr %q", errOut.String())
	}
	errs := kafkatest.Lines(errOut.String())
	require.NotEmpty(t, errs)
	assert.Len(t, kafkatest.Filter(errs, func(l string) bool { return strings.Contains(l, "stdout") }), 1, errOut.String())
	t.Logf("stderr: %q", errOut.String())
}

// TestE2EInputReadErrorExits1 checks that an input that fails mid-way
// keeps the records read before the failure, names the failure on stderr
// and makes the run exit 1, going on with the next input.
func TestE2EInputReadErrorExits1(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	next := kafkatest.WriteFile(t, t.TempDir(), "next.txt", []byte("c\n"))
	in := &lineFeeder{chunks: [][]byte{[]byte("a\n"), []byte("b\n"), []byte("never\n")}, allowed: 2}
	res := produceTo(t, c, in, "-t", "t", "-", next)
	require.Equal(t, 1, res.Code, res.Stderr)
	assert.Len(t, kafkatest.Lines(res.Stdout), 3)
	errs := kafkatest.Lines(res.Stderr)
	require.Len(t, errs, 1, res.Stderr)
	assert.Regexp(t, `^error: -: .*2.*read past chunk 2`, errs[0])
	recs := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", 3))
	for _, v := range []string{"a", "b", "c"} {
		assert.Contains(t, recs, v)
	}
}
