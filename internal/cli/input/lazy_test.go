package input

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openFDs is the number of descriptors the process holds open.
func openFDs(t *testing.T) int {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("counts descriptors in /proc/self/fd")
	}
	entries, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(entries) - 1 // the directory being read
}

// manyFiles writes n files into a new directory, file i holding
// fileContent(i), and returns their names in order.
func manyFiles(t *testing.T, n int) []string {
	t.Helper()
	dir := t.TempDir()
	names := make([]string, n)
	for i := range names {
		names[i] = filepath.Join(dir, fmt.Sprintf("f%05d", i))
		require.NoError(t, os.WriteFile(names[i], fileContent(i), 0o600))
	}
	return names
}

// fileContent is what manyFiles writes into file i: a few lines, of
// sizes that differ from file to file.
func fileContent(i int) []byte {
	return []byte(strings.Repeat(fmt.Sprintf("file %d line\n", i), 1+i%7))
}

// TestOpenHoldsNoDescriptor: checking the inputs opens none of them, and
// reading them as a run does (the read ahead on, each input opened in
// turn and closed at its end) holds a few descriptors at most, however
// many files there are.
func TestOpenHoldsNoDescriptor(t *testing.T) {
	names := manyFiles(t, 3000)
	before := openFDs(t)
	ins, err := Open(names, nil)
	require.NoError(t, err)
	defer Close(ins)
	assert.Equal(t, before, openFDs(t), "descriptors held after the check")
	stop := ReadAhead(ins)
	defer stop()
	most := 0
	for i, in := range ins {
		require.NoError(t, in.Open())
		most = max(most, openFDs(t))
		data, err := io.ReadAll(in.R)
		require.NoError(t, err)
		require.Equal(t, fileContent(i), data, in.Name)
		require.NoError(t, in.Close())
	}
	assert.LessOrEqual(t, most-before, 2, "descriptors held while reading: the file being read and one read ahead")
	stop()
	assert.Equal(t, before, openFDs(t), "descriptors held after the run")
}

// TestOpenReportsTheFirstBadFile: among files checked by several
// goroutines, the error names the first bad one in input order.
func TestOpenReportsTheFirstBadFile(t *testing.T) {
	names := manyFiles(t, 4*checkShare)
	first, second := names[checkShare+100], names[3*checkShare+5]
	require.NoError(t, os.Remove(second))
	require.NoError(t, os.Remove(first))
	_, err := Open(names, nil)
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), first)
	assert.NotContains(t, err.Error(), second)

	require.NoError(t, os.Mkdir(first, 0o700))
	_, err = Open(names[:checkShare+200], nil)
	require.Error(t, err)
	assert.EqualError(t, err, "input: "+first+" is a directory")
}

// TestFileGoneAfterTheCheck: a file removed between the check and its
// turn fails then, naming itself, whether it is opened explicitly or by
// its first read; the inputs around it are read.
func TestFileGoneAfterTheCheck(t *testing.T) {
	names := manyFiles(t, 3)
	ins, err := Open(names, nil)
	require.NoError(t, err)
	defer Close(ins)
	require.NoError(t, os.Remove(names[1]))
	data, err := io.ReadAll(ins[0].R)
	require.NoError(t, err)
	assert.Equal(t, fileContent(0), data)

	err = ins[1].Open()
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Equal(t, "open "+names[1]+": no such file or directory (it could be read when the run started)", err.Error())
	_, readErr := ins[1].R.Read(make([]byte, 10))
	assert.Equal(t, err, readErr, "a read fails the same way")

	data, err = io.ReadAll(ins[2].R)
	require.NoError(t, err)
	assert.Equal(t, fileContent(2), data)
}

// TestReadAheadOfAGrownFile: a small file that grew after the check is
// read whole, what was read ahead and then the rest.
func TestReadAheadOfAGrownFile(t *testing.T) {
	names := manyFiles(t, 2)
	ins, err := Open(names, nil)
	require.NoError(t, err)
	defer Close(ins)
	grown := bytes.Repeat([]byte("0123456789abcdef"), 20_000) // 320 kB
	require.NoError(t, os.WriteFile(names[1], grown, 0o600))
	stop := ReadAhead(ins)
	defer stop()
	for i, want := range [][]byte{fileContent(0), grown} {
		data, err := io.ReadAll(ins[i].R)
		require.NoError(t, err)
		assert.Equal(t, want, data, names[i])
	}
}

// TestReadAheadWaitsAtAPipe: no file after a named pipe is read before the
// pipe's reader is done with it, so a file removed meanwhile fails when
// its turn comes rather than being sent as it was long before.
func TestReadAheadWaitsAtAPipe(t *testing.T) {
	names := manyFiles(t, 2)
	fifo := newFIFO(t)
	ins, err := Open([]string{names[0], fifo, names[1]}, nil)
	require.NoError(t, err)
	defer Close(ins)
	stop := ReadAhead(ins)
	defer stop()
	data, err := io.ReadAll(ins[0].R)
	require.NoError(t, err)
	assert.Equal(t, fileContent(0), data)

	// The read ahead reaches the pipe: it holds a slot until it is read.
	deadline := time.Now().Add(fifoWait)
	for !holdsSlot(ins[1].file) {
		require.True(t, time.Now().Before(deadline), "the read ahead never reached the pipe")
		runtime.Gosched()
	}
	require.NoError(t, os.Remove(names[1]))
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return // the read below fails the test
		}
		defer w.Close()
		_, _ = io.WriteString(w, "piped\n")
	}()
	data, err = io.ReadAll(ins[1].R)
	require.NoError(t, err)
	assert.Equal(t, "piped\n", string(data))
	err = ins[2].Open()
	assert.ErrorIs(t, err, fs.ErrNotExist, "the file after the pipe was read ahead before the pipe was done")
}

// holdsSlot reports whether l holds a slot of the read ahead.
func holdsSlot(l *lazyFile) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rd != nil && l.rd.slot != nil
}

// TestCloseDuringReadAhead: inputs closed while the read ahead runs, some
// read ahead and not yet read, leave no descriptor open and cannot be read
// any more.
func TestCloseDuringReadAhead(t *testing.T) {
	names := manyFiles(t, 200)
	before := openFDs(t)
	ins, err := Open(names, nil)
	require.NoError(t, err)
	stop := ReadAhead(ins)
	for _, in := range ins[:3] {
		_, err := io.ReadAll(in.R)
		require.NoError(t, err)
	}
	require.NoError(t, ins[3].Open())
	Close(ins)
	stop()
	assert.Equal(t, before, openFDs(t))
	for _, in := range ins[3:6] {
		_, err := in.R.Read(make([]byte, 1))
		assert.ErrorIs(t, err, errInputClosed, in.Name)
	}
}

// TestInputSize: a file's size is the one checked until it is read, then
// what is left of it; a pipe's is unknown.
func TestInputSize(t *testing.T) {
	names := manyFiles(t, 1)
	ins, err := Open([]string{names[0], newFIFO(t)}, nil)
	require.NoError(t, err)
	defer Close(ins)
	size := int64(len(fileContent(0)))
	assert.Equal(t, size, ins[0].Size())
	_, err = ins[0].R.Read(make([]byte, 5))
	require.NoError(t, err)
	assert.Equal(t, size-5, ins[0].Size())
	_, err = io.ReadAll(ins[0].R)
	require.NoError(t, err)
	assert.Zero(t, ins[0].Size())
	assert.Equal(t, int64(-1), ins[1].Size())
}

// TestReadOnAfterACheckedPrefix: a file whose start was read (a resumed
// run checks the part an earlier run committed that way) stays open, and
// the read ahead leaves it alone: replacing the file afterwards does not
// change what is read on, which is the rest of the file that was checked.
func TestReadOnAfterACheckedPrefix(t *testing.T) {
	names := manyFiles(t, 3)
	original := []byte(strings.Repeat("original\n", 10_000))
	require.NoError(t, os.WriteFile(names[1], original, 0o600))
	ins, err := Open(names, nil)
	require.NoError(t, err)
	defer Close(ins)
	prefix := make([]byte, 1000)
	_, err = io.ReadFull(ins[1].R, prefix)
	require.NoError(t, err)

	replacement := filepath.Join(t.TempDir(), "replacement")
	require.NoError(t, os.WriteFile(replacement, []byte("replaced\n"), 0o600))
	require.NoError(t, os.Rename(replacement, names[1]))
	stop := ReadAhead(ins)
	defer stop()
	for i := range ins {
		require.NoError(t, ins[i].Open())
		data, err := io.ReadAll(ins[i].R)
		require.NoError(t, err)
		if i == 1 {
			assert.Equal(t, original[1000:], data, "the rest of the file checked")
			continue
		}
		assert.Equal(t, fileContent(i), data)
	}
}
