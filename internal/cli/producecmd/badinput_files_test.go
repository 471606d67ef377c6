package producecmd_test

import (
	"context"
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
)

// TestBadInputUnopenableFiles checks other files that cannot be opened
// (a symbolic link loop, a path through a regular file, a dangling link):
// exit 2, the file named, nothing produced.
func TestBadInputUnopenableFiles(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	dir := t.TempDir()
	good := kafkatest.WriteFile(t, dir, "good.txt", []byte("a\n"))
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
	kafkatest.RequireEmpty(t, c, "t")
}

// TestBadInputFIFO checks a named pipe as a FILE argument, after a
// regular file: records written to it are delivered and reported while
// its writer still holds it open, and the run ends when the writer closes.
func TestBadInputFIFO(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	dir := t.TempDir()
	plain := kafkatest.WriteFile(t, dir, "plain.txt", []byte("p1\np2\n"))
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
		"-b", kafkatest.Brokers(c), "-t", "t", "--linger", "0s", plain, fifo)
	var w *os.File
	select {
	case w = <-opened:
		require.NotNil(t, w)
	case <-time.After(streamWait):
		t.Fatal("kproduce did not open the fifo")
	}
	defer w.Close()
	writeWithin(t, w, "f1\nf2\n")
	run.WaitStdout(t, 4, streamWait) // while the writer holds the fifo open
	writeWithin(t, w, "f3\n")
	run.WaitStdout(t, 5, streamWait)
	require.NoError(t, w.Close())
	require.Equal(t, 0, run.Wait(t, streamWait), run.Stderr.String())
	recs := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", 5))
	for _, v := range []string{"p1", "p2", "f1", "f2", "f3"} {
		assert.Contains(t, recs, v)
	}
}
