package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// writeManyFiles writes n files into dir, file i holding content(i), and
// returns their paths in order.
func writeManyFiles(t testing.TB, dir string, n int, content func(i int) string) []string {
	t.Helper()
	paths := make([]string, n)
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprintf("f%06d", i))
		require.NoError(t, os.WriteFile(paths[i], []byte(content(i)), 0o644))
	}
	return paths
}

// TestManyFilesEachRecordOnce: 1,500 files produced with -f file are 1,500
// records, each a file's bytes, and as lines each line of each file, in
// the files' order within a partition: the files are opened one after the
// other, the small ones read ahead.
func TestManyFilesEachRecordOnce(t *testing.T) {
	t.Parallel()
	const n = 1500
	c := e2eCluster(t)
	files := writeManyFiles(t, t.TempDir(), n, func(i int) string {
		return strings.Repeat(fmt.Sprintf("%06d-", i), 1+i%5) + "\n" + fmt.Sprintf("%06d-second\n", i)
	})
	res := produceTo(t, c, nil, append([]string{"-t", "whole", "-f", "file", "-o", "none"}, files...)...)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	seen := map[string]bool{}
	for _, r := range consumeExactly(t, c, "whole", n) {
		name := string(r.Value[:6])
		require.False(t, seen[name], "file %s sent twice", name)
		seen[name] = true
		want, err := os.ReadFile(filepath.Join(filepath.Dir(files[0]), "f"+name))
		require.NoError(t, err)
		require.Equal(t, string(want), string(r.Value))
	}

	res = produceTo(t, c, nil, append([]string{"-t", "lines", "-p", "0", "-o", "none"}, files...)...)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	recs := byOffset(consumeExactly(t, c, "lines", 2*n))
	for i := range n {
		first, second := string(recs[2*i].Value), string(recs[2*i+1].Value)
		assert.Equal(t, strings.Repeat(fmt.Sprintf("%06d-", i), 1+i%5), first)
		assert.Equal(t, fmt.Sprintf("%06d-second", i), second)
	}
}

// TestManyFilesOneMissing: one missing file among 3,000 is a usage error
// naming it, and nothing is produced, not even the files before it.
func TestManyFilesOneMissing(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	files := writeManyFiles(t, t.TempDir(), 3000, func(i int) string { return fmt.Sprintf("%d\n", i) })
	missing := files[2345]
	require.NoError(t, os.Remove(missing))
	res := produceTo(t, c, nil, append([]string{"-t", "t"}, files...)...)
	assert.Equal(t, cmdutil.ExitUsage, res.Code, res.Stderr)
	assert.Empty(t, res.Stdout)
	assert.True(t, strings.HasPrefix(res.Stderr, "error: input: open "+missing+": no such file or directory\n"), res.Stderr)
	requireTopicEmpty(t, c, "t")
}

// TestFileRemovedAfterTheCheck: a file removed once the run started (here
// while the run waits for a named pipe before it) fails on its own, named,
// when its turn comes; the inputs before and after it are produced, and
// the exit status is 1.
func TestFileRemovedAfterTheCheck(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	dir := t.TempDir()
	before := e2eWriteFile(t, dir, "before.txt", []byte("b1\n"))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	gone := e2eWriteFile(t, dir, "gone.txt", []byte("g1\n"))
	after := e2eWriteFile(t, dir, "after.txt", []byte("a1\n"))
	writerDone := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // until kproduce opens it: the check is over
		if err != nil {
			writerDone <- err
			return
		}
		if err := os.Remove(gone); err != nil {
			writerDone <- err
			return
		}
		_, err = w.WriteString("p1\n")
		writerDone <- errors.Join(err, w.Close())
	}()
	res := produceTo(t, c, nil, "-t", "t", "-o", "none", before, fifo, gone, after)
	require.NoError(t, <-writerDone)
	assert.Equal(t, cmdutil.ExitFailed, res.Code, res.Stderr)
	assert.Equal(t, "error: "+gone+": open "+gone+": no such file or directory (it could be read when the run started)\n", res.Stderr)
	recs := recordByValue(t, consumeExactly(t, c, "t", 3))
	for _, v := range []string{"b1", "p1", "a1"} {
		assert.Contains(t, recs, v)
	}
}

// longFileCount is whether KPRODUCE_LONG_TESTS was set when the tests
// started (TestMain clears the KPRODUCE_* environment before they run).
var longFileCount = os.Getenv("KPRODUCE_LONG_TESTS") != ""

// TestManyFilesUnderALowDescriptorLimit: the built binary produces 5,000
// files with a limit of 128 descriptors (100,000 files with 1,024 under
// KPRODUCE_LONG_TESTS; writing them takes most of a minute), hard and soft
// so that the Go runtime cannot raise it, one record each. Before, every
// input was opened before the run started, and it failed with "too many
// open files".
func TestManyFilesUnderALowDescriptorLimit(t *testing.T) {
	t.Parallel()
	n, limit := 5000, 128
	if longFileCount {
		n, limit = 100_000, 1024
	}
	c := e2eCluster(t)
	dir := t.TempDir()
	writeManyFiles(t, dir, n, func(i int) string { return fmt.Sprint(i) })
	proc := startProcess(t, withFileLimit(limit, dir, "f*"), "-b", brokersFlag(c), "-t", "t", "-f", "file", "-o", "none")
	code, _ := proc.wait(t, 5*time.Minute)
	stderr := proc.stderr.String()
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	assert.Equal(t, fmt.Sprintf("%d\n", limit), stderr, "the limit the run had, and nothing else on stderr")
	assert.EqualValues(t, n, topicRecordCount(c, "t"))
}

// withFileLimit runs the command through sh with a limit of limit open
// descriptors, hard and soft, so that the Go runtime cannot raise it; in
// dir, with the files glob matches there after its arguments (the shell
// expands them: a command line of 100,000 paths is longer than the kernel
// takes as one exec argument). The shell prints the limit on stderr first.
func withFileLimit(limit int, dir, glob string) func(*exec.Cmd) {
	script := fmt.Sprintf(`ulimit -n %d && ulimit -n >&2 && cd "$1" && shift && exec "$@" %s`, limit, glob)
	return func(cmd *exec.Cmd) {
		cmd.Args = append([]string{"sh", "-c", script, "sh", dir, cmd.Path}, cmd.Args[1:]...)
		cmd.Path = "/bin/sh"
	}
}
