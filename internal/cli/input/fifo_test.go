package input

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fifoWait bounds a wait that only a bug makes long.
const fifoWait = 10 * time.Second

// newFIFO makes a named pipe in a test directory.
func newFIFO(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(p, 0o600))
	return p
}

// openInputsAsync runs Open on its own goroutine, failing the test
// if it does not return: opening a named pipe must not wait for a writer.
func openInputsAsync(t *testing.T, files ...string) []Input {
	t.Helper()
	type result struct {
		ins []Input
		err error
	}
	done := make(chan result, 1)
	go func() {
		ins, err := Open(files, strings.NewReader(""))
		done <- result{ins, err}
	}()
	select {
	case r := <-done:
		require.NoError(t, r.err)
		return r.ins
	case <-time.After(fifoWait):
		t.Fatal("openInputs waited for a writer of the named pipe")
		return nil
	}
}

// TestOpenInputsFIFOWithoutWriter checks that a named pipe with no writer
// yet does not block Open, and that its data is read once a writer
// comes.
func TestOpenInputsFIFOWithoutWriter(t *testing.T) {
	fifo := newFIFO(t)
	ins := openInputsAsync(t, fifo)
	defer Close(ins)
	require.Len(t, ins, 1)
	assert.Equal(t, fifo, ins[0].Name)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return // the read below fails the test
		}
		defer w.Close()
		_, _ = io.WriteString(w, "a\nb\n")
	}()
	data, err := io.ReadAll(ins[0].R)
	require.NoError(t, err)
	assert.Equal(t, "a\nb\n", string(data))
}

// TestFIFOInputClosedBeforeOpen checks that closing a named pipe input
// that was never read succeeds, and that reading it then fails without
// waiting for a writer.
func TestFIFOInputClosedBeforeOpen(t *testing.T) {
	ins := openInputsAsync(t, newFIFO(t))
	require.NoError(t, ins[0].Close())
	_, err := ins[0].R.Read(make([]byte, 1))
	assert.ErrorIs(t, err, errInputClosed)
}

// TestFIFOInputClosedWhileOpening checks that Close does not wait for a
// first Read that may be blocked in the open, and that this Read fails:
// at once if it had not started the open, else once a writer comes.
func TestFIFOInputClosedWhileOpening(t *testing.T) {
	fifo := newFIFO(t)
	ins, err := Open([]string{fifo}, nil)
	require.NoError(t, err)
	in := ins[0].file
	readErr := make(chan error, 1)
	go func() {
		_, err := in.Read(make([]byte, 1))
		readErr <- err
	}()
	for range 100 {
		runtime.Gosched() // give the Read a chance to block in the open
	}
	require.NoError(t, in.Close()) // returns at once: no writer is needed
	deadline := time.Now().Add(fifoWait)
	for time.Now().Before(deadline) {
		select {
		case err := <-readErr:
			assert.ErrorIs(t, err, errInputClosed)
			return
		default:
		}
		// A writer that does not wait: it succeeds only while the Read
		// holds the pipe open for reading, which unblocks that open.
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			defer w.Close()
		}
		runtime.Gosched()
	}
	t.Fatal("the first Read did not end")
}

// TestOpenInputsUnreadableFIFO checks that a named pipe the process may not
// read is refused at once, like an unreadable file.
func TestOpenInputsUnreadableFIFO(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may read any named pipe (TestBadInputUnreadableFile covers unreadable inputs as nobody)")
	}
	fifo := newFIFO(t)
	require.NoError(t, os.Chmod(fifo, 0o000))
	_, err := Open([]string{fifo}, strings.NewReader(""))
	require.Error(t, err)
	assert.ErrorIs(t, err, os.ErrPermission)
	assert.Contains(t, err.Error(), fifo)
}
