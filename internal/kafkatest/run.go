package kafkatest

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// RunFunc runs kproduce, or one of its commands, in-process with args
// (without the program name) and the streams, and returns the exit
// status: internal/cli's Execute, or a test's own around one command.
// Cancelling ctx is what the first SIGINT or SIGTERM does.
type RunFunc func(ctx context.Context, args []string, s cmdutil.Streams) int

// RunDeadline bounds one in-process run: a run that hangs fails its test
// instead of the whole test binary.
const RunDeadline = 2 * time.Minute

// Result is what one in-process run printed and returned.
type Result struct {
	Stdout, Stderr string
	Code           int
	Took           time.Duration
}

// Run runs run with stdin (nil: empty) and args, and returns what it
// printed and its exit status; a run that does not end within RunDeadline
// fails the test.
func Run(t testing.TB, ctx context.Context, run RunFunc, stdin io.Reader, args ...string) Result {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	r := Start(ctx, run, stdin, args...)
	code := r.Wait(t, RunDeadline)
	return Result{Stdout: r.Stdout.String(), Stderr: r.Stderr.String(), Code: code, Took: time.Since(r.started)}
}

// Running is an in-process run in progress, for a test that interacts
// with it while it runs.
type Running struct {
	Stdout, Stderr LockedBuffer
	args           []string
	started        time.Time
	done           chan int // receives the exit status once
}

// Start starts run with stdin and args in a goroutine of its own.
func Start(ctx context.Context, run RunFunc, stdin io.Reader, args ...string) *Running {
	args = noArgs(args)
	r := &Running{args: args, started: time.Now(), done: make(chan int, 1)}
	go func() { r.done <- run(ctx, args, cmdutil.Streams{In: stdin, Out: &r.Stdout, Err: &r.Stderr}) }()
	return r
}

// exited reports whether the run has ended, and its exit status.
func (r *Running) exited() (int, bool) {
	select {
	case code := <-r.done:
		r.done <- code
		return code, true
	default:
		return 0, false
	}
}

// WaitStdout waits until stdout holds n non-empty lines and returns them;
// the test fails when the run ends first or within passes.
func (r *Running) WaitStdout(t testing.TB, n int, within time.Duration) []string {
	t.Helper()
	var got []string
	held := Poll(within, func() bool {
		got = Lines(r.Stdout.String())
		_, ended := r.exited()
		return len(got) >= n || ended
	})
	if len(got) >= n {
		return got
	}
	if code, ended := r.exited(); ended {
		t.Fatalf("kproduce %q exited with %d before printing %d lines; stdout %q stderr %q", r.args, code, n, r.Stdout.String(), r.Stderr.String())
	}
	if !held {
		t.Fatalf("no %d lines on stdout within %s; stdout %q stderr %q", n, within, r.Stdout.String(), r.Stderr.String())
	}
	return got
}

// Wait returns the exit status, failing the test when the run does not
// end within the time given.
func (r *Running) Wait(t testing.TB, within time.Duration) int {
	t.Helper()
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case code := <-r.done:
		r.done <- code
		return code
	case <-timer.C:
		t.Fatalf("kproduce %q did not end within %s; stderr so far:\n%s", r.args, within, r.Stderr.String())
		return -1
	}
}

// Lines returns the non-empty lines of s.
func Lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// LinesWith returns the lines of s that start with prefix.
func LinesWith(s, prefix string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// Filter returns the lines that keep accepts, in order.
func Filter(lines []string, keep func(string) bool) []string {
	var out []string
	for _, l := range lines {
		if keep(l) {
			out = append(out, l)
		}
	}
	return out
}

// noArgs returns args, an empty list for none: cobra reads a command's
// arguments from os.Args, the test binary's own, when they are nil.
func noArgs(args []string) []string {
	if args == nil {
		return []string{}
	}
	return args
}
