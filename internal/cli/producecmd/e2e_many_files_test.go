package producecmd_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestManyFilesEachRecordOnce: 1,500 files produced with -f file are 1,500
// records, each a file's bytes, and as lines each line of each file, in
// the files' order within a partition: the files are opened one after the
// other, the small ones read ahead.
func TestManyFilesEachRecordOnce(t *testing.T) {
	t.Parallel()
	const n = 1500
	c := kafkatest.ProducerCluster(t)
	files := kafkatest.WriteFiles(t, t.TempDir(), n, func(i int) string {
		return strings.Repeat(fmt.Sprintf("%06d-", i), 1+i%5) + "\n" + fmt.Sprintf("%06d-second\n", i)
	})
	res := produceTo(t, c, nil, append([]string{"-t", "whole", "-f", "file", "-o", "none"}, files...)...)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	seen := map[string]bool{}
	for _, r := range kafkatest.ConsumeExactly(t, c, "whole", n) {
		name := string(r.Value[:6])
		require.False(t, seen[name], "file %s sent twice", name)
		seen[name] = true
		want, err := os.ReadFile(filepath.Join(filepath.Dir(files[0]), "f"+name))
		require.NoError(t, err)
		require.Equal(t, string(want), string(r.Value))
	}

	res = produceTo(t, c, nil, append([]string{"-t", "lines", "-p", "0", "-o", "none"}, files...)...)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	recs := kafkatest.ByOffset(kafkatest.ConsumeExactly(t, c, "lines", 2*n))
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
	c := kafkatest.ProducerCluster(t)
	files := kafkatest.WriteFiles(t, t.TempDir(), 3000, func(i int) string { return fmt.Sprintf("%d\n", i) })
	missing := files[2345]
	require.NoError(t, os.Remove(missing))
	res := produceTo(t, c, nil, append([]string{"-t", "t"}, files...)...)
	assert.Equal(t, cmdutil.ExitUsage, res.Code, res.Stderr)
	assert.Empty(t, res.Stdout)
	assert.True(t, strings.HasPrefix(res.Stderr, "error: input: open "+missing+": no such file or directory\n"), res.Stderr)
	kafkatest.RequireEmpty(t, c, "t")
}

// TestFileRemovedAfterTheCheck: a file removed once the run started (here
// while the run waits for a named pipe before it) fails on its own, named,
// when its turn comes; the inputs before and after it are produced, and
// the exit status is 1.
func TestFileRemovedAfterTheCheck(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	dir := t.TempDir()
	before := kafkatest.WriteFile(t, dir, "before.txt", []byte("b1\n"))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	gone := kafkatest.WriteFile(t, dir, "gone.txt", []byte("g1\n"))
	after := kafkatest.WriteFile(t, dir, "after.txt", []byte("a1\n"))
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
	recs := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", 3))
	for _, v := range []string{"b1", "p1", "a1"} {
		assert.Contains(t, recs, v)
	}
}
