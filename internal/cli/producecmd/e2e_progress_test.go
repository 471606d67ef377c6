package producecmd_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// screenLines is stderr as a terminal shows it: each line is what follows
// its last carriage return (the bar redraws over itself).
func screenLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if i := strings.LastIndexByte(l, '\r'); i >= 0 {
			l = l[i+1:]
		}
		out = append(out, strings.TrimRight(l, " "))
	}
	return out
}

// tenByteLines returns n lines of exactly 10 bytes each.
func tenByteLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %04d\n", i)
	}
	return b.String()
}

// TestE2EProgressAlwaysShowsFinalState: with --progress always the bar is
// drawn even into a pipe, and its last state, left on its own line above
// the summary, shows the whole file read and every record counted.
func TestE2EProgressAlwaysShowsFinalState(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	dir := t.TempDir()
	a := kafkatest.WriteFile(t, dir, "a.txt", []byte(tenByteLines(12)))
	b := kafkatest.WriteFile(t, dir, "b.txt", []byte(tenByteLines(8)))
	res := produceTo(t, c, nil, "-t", "t", "-o", "none", "--progress", "always", "--stats", a, b)
	require.Equal(t, 0, res.Code, res.Stderr)
	kafkatest.ConsumeExactly(t, c, "t", 20)
	screen := screenLines(res.Stderr)
	require.Len(t, screen, 7, "the bar, then the 6 summary lines: %q", res.Stderr)
	bar := screen[0]
	assert.Contains(t, bar, "100%")
	assert.Contains(t, bar, "(200/200 B", "bytes read of the total size")
	assert.Contains(t, bar, "20 delivered, 0 failed, ")
	assert.Contains(t, bar, " rec/s")
	for _, l := range screen[1:] {
		assert.True(t, strings.HasPrefix(l, "stats: "), "summary line %q", l)
	}
	assert.True(t, strings.HasPrefix(res.Stderr, "\r") || strings.HasPrefix(res.Stderr, " "), "drawn in place: %q", res.Stderr[:min(len(res.Stderr), 20)])
}

// TestE2EProgressKeepsErrorLinesApart: a failure report written while the
// bar is drawn erases the bar first, so every line on the screen is either
// the bar or a whole report.
func TestE2EProgressKeepsErrorLinesApart(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	in := tenByteLines(5) + strings.Repeat("x", 50) + "\n" + tenByteLines(5)
	f := kafkatest.WriteFile(t, t.TempDir(), "in.txt", []byte(in))
	// Paced, so that the bar is drawn (every 100 ms) before the bad record.
	res := produceTo(t, c, nil, "-t", "t", "-o", "none", "--progress", "always", "--rate", "25",
		"--max-record-bytes", "20", f)
	require.Equal(t, 1, res.Code, res.Stderr)
	kafkatest.ConsumeExactly(t, c, "t", 10)
	var errs, bars int
	for _, l := range screenLines(res.Stderr) {
		switch {
		case strings.HasPrefix(l, "error: "):
			errs++
			assert.NotContains(t, l, "delivered", "a report mixed with the bar")
		case strings.Contains(l, "% |"):
			bars++
		case l == "10 delivered, 1 failed":
		default:
			t.Errorf("unexpected line %q", l)
		}
	}
	assert.Equal(t, 1, errs, res.Stderr)
	assert.Equal(t, 1, bars, "one bar line at the end: %q", res.Stderr)
	assert.Contains(t, res.Stderr, "error: "+f+":6: t/-1: record too large")
	assert.Contains(t, screenLines(res.Stderr)[len(screenLines(res.Stderr))-2], "10 delivered, 1 failed, ")
}

// TestE2EProgressStdinAlwaysIsACounter: with an input of unknown size
// --progress always draws a counter: bytes read and the counts, no bar.
func TestE2EProgressStdinAlwaysIsACounter(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader(tenByteLines(20)), "-t", "t", "-o", "none", "--progress", "always")
	require.Equal(t, 0, res.Code, res.Stderr)
	screen := screenLines(res.Stderr)
	require.Len(t, screen, 1, "%q", res.Stderr)
	assert.Contains(t, screen[0], "(200 B")
	assert.Contains(t, screen[0], "20 delivered, 0 failed, ")
	assert.NotContains(t, screen[0], "%")
}

// TestE2EProgressAutoDrawsNothingWithoutTerminal: under auto (the default)
// nothing is drawn when stderr is not a terminal, for files and for stdin;
// nor ever under never.
func TestE2EProgressAutoDrawsNothingWithoutTerminal(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	f := kafkatest.WriteFile(t, t.TempDir(), "in.txt", []byte(tenByteLines(20)))
	for _, args := range [][]string{{f}, {"--progress", "auto", f}, {"--progress", "auto"}, {"--progress", "never", f}} {
		res := produceTo(t, c, strings.NewReader(tenByteLines(3)), append([]string{"-t", "t", "-o", "none"}, args...)...)
		require.Equal(t, 0, res.Code, res.Stderr)
		assert.Empty(t, res.Stderr, "%v", args)
	}
}

// TestE2EProgressAlone: --progress alone is --progress always (a bar
// drawn into a pipe too), before a FILE, before another flag, or last;
// --progress never and --progress=never still draw nothing. (kproduce
// config shows the same: configcmd's TestE2EConfigProgressAlone.)
func TestE2EProgressAlone(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	f := kafkatest.WriteFile(t, t.TempDir(), "in.txt", []byte(tenByteLines(20)))
	for _, args := range [][]string{{"--progress", f}, {"--progress", "--stats=false", f}, {f, "--progress"}, {"--progress", "always", f}} {
		res := produceTo(t, c, nil, append([]string{"-t", "t", "-o", "none"}, args...)...)
		require.Equal(t, cmdutil.ExitOK, res.Code, "%v: %s", args, res.Stderr)
		screen := screenLines(res.Stderr)
		require.NotEmpty(t, screen, "%v: a bar is drawn", args)
		assert.Contains(t, screen[len(screen)-1], "20 delivered, 0 failed", "%v", args)
	}
	for _, args := range [][]string{{"--progress", "never", f}, {"--progress=never", f}} {
		res := produceTo(t, c, nil, append([]string{"-t", "t", "-o", "none"}, args...)...)
		require.Equal(t, cmdutil.ExitOK, res.Code, "%v: %s", args, res.Stderr)
		assert.Empty(t, res.Stderr, "%v", args)
	}
}
