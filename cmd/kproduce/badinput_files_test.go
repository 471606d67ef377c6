package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// nobody is the user and group id of the unprivileged "nobody" user.
const nobody = 65534

// sharedTempDir is a temporary directory every user can enter and read,
// removed when the test ends.
func sharedTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "kproduce-shared-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	return dir
}

// TestBadInputUnreadableFile checks that a file or named pipe that cannot
// be read, among readable files, is a usage error (exit 2) naming it, and
// that nothing is produced, not even the records of the files before it.
// The run is the real binary; as root it runs as nobody, since root can
// read anything of mode 000.
func TestBadInputUnreadableFile(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	dir := sharedTempDir(t)
	first := writeShared(t, dir, "first.txt", "a\nb\n", 0o644)
	last := writeShared(t, dir, "last.txt", "z\n", 0o644)
	secret := writeShared(t, dir, "secret.txt", "s\n", 0o000)
	fifo := filepath.Join(dir, "secret.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o000))
	require.NoError(t, os.Chmod(fifo, 0o000)) // whatever the umask
	for _, unreadable := range []string{secret, fifo} {
		t.Run(filepath.Base(unreadable), func(t *testing.T) {
			proc := startProcess(t, func(cmd *exec.Cmd) {
				if os.Geteuid() == 0 {
					cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
				}
			}, "-b", brokersFlag(c), "-t", "t", first, unreadable, last)
			code, _ := proc.wait(t, time.Minute)
			assert.Equal(t, cmdutil.ExitUsage, code, proc.stderr.String())
			assert.Empty(t, proc.stdout.String())
			assert.Regexp(t, `^error: input: open `+regexp.QuoteMeta(unreadable)+`: permission denied\n`, proc.stderr.String())
		})
	}
	requireTopicEmpty(t, c, "t")
}

// writeShared writes a file with mode perm in dir and returns its path.
func writeShared(t *testing.T, dir, name, data string, perm os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(data), 0o600))
	require.NoError(t, os.Chmod(p, perm))
	return p
}

// TestBadInputUnopenableFiles checks other files that cannot be opened
// (a symbolic link loop, a path through a regular file, a dangling link):
// exit 2, the file named, nothing produced.
func TestBadInputUnopenableFiles(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	dir := t.TempDir()
	good := e2eWriteFile(t, dir, "good.txt", []byte("a\n"))
	loop := filepath.Join(dir, "loop")
	require.NoError(t, os.Symlink(loop, loop))
	dangling := filepath.Join(dir, "dangling")
	require.NoError(t, os.Symlink(filepath.Join(dir, "nowhere"), dangling))
	cases := []struct{ name, path, cause string }{
		{"symlink loop", loop, "too many levels of symbolic links"},
		{"path through a file", filepath.Join(good, "x"), "not a directory"},
		{"dangling symlink", dangling, "no such file or directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := produceTo(t, c, nil, "-t", "t", good, tc.path)
			assert.Equal(t, cmdutil.ExitUsage, res.Code, res.Stderr)
			assert.Empty(t, res.Stdout)
			assert.Contains(t, res.Stderr, tc.path+": "+tc.cause)
		})
	}
	requireTopicEmpty(t, c, "t")
}

// TestBadInputFIFO checks a named pipe as a FILE argument, after a
// regular file: records written to it are delivered and reported while
// its writer still holds it open, and the run ends when the writer closes.
func TestBadInputFIFO(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	dir := t.TempDir()
	plain := e2eWriteFile(t, dir, "plain.txt", []byte("p1\np2\n"))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	opened := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until kproduce opens it
		if err != nil {
			t.Errorf("open the fifo for writing: %v", err)
			close(opened)
			return
		}
		opened <- w
	}()
	run := startKproduce(context.Background(), strings.NewReader(""),
		"-b", brokersFlag(c), "-t", "t", "--linger", "0s", plain, fifo)
	var w *os.File
	select {
	case w = <-opened:
		require.NotNil(t, w)
	case <-time.After(streamWait):
		t.Fatal("kproduce did not open the fifo")
	}
	defer w.Close()
	writeWithin(t, w, "f1\nf2\n")
	run.waitStdout(t, 4, streamWait) // while the writer holds the fifo open
	writeWithin(t, w, "f3\n")
	run.waitStdout(t, 5, streamWait)
	require.NoError(t, w.Close())
	require.Equal(t, 0, run.wait(t, streamWait), run.errOut.String())
	recs := recordByValue(t, consumeExactly(t, c, "t", 5))
	for _, v := range []string{"p1", "p2", "f1", "f2", "f3"} {
		assert.Contains(t, recs, v)
	}
}
