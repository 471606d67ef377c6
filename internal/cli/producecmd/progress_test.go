package producecmd

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/config"
	"github.com/kproduce/kproduce/internal/cli/input"
)

func TestProgressWanted(t *testing.T) {
	tests := []struct {
		mode     string
		terminal bool
		total    int64
		want     bool
	}{
		{config.ProgressAuto, true, 100, true},
		{config.ProgressAuto, true, 0, true},
		{config.ProgressAuto, true, -1, false}, // stdin, a FIFO: nothing under auto
		{config.ProgressAuto, false, 100, false},
		{config.ProgressAlways, false, -1, true},
		{config.ProgressAlways, false, 100, true},
		{config.ProgressNever, true, 100, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, progressWanted(tt.mode, tt.terminal, tt.total), "%+v", tt)
	}
}

func TestInputsSize(t *testing.T) {
	dir := t.TempDir()
	a, err := os.Open(writeTempFile(t, dir, "a", make([]byte, 1000)))
	require.NoError(t, err)
	defer a.Close()
	b, err := os.Open(writeTempFile(t, dir, "b", make([]byte, 234)))
	require.NoError(t, err)
	defer b.Close()
	_, err = b.Seek(34, io.SeekStart) // stdin redirected from a file may be part read
	require.NoError(t, err)
	assert.Equal(t, int64(1200), inputsSize([]input.Input{{R: a}, {R: b}}))

	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	ins, err := input.Open([]string{fifo}, nil)
	require.NoError(t, err)
	defer input.Close(ins)
	assert.Equal(t, int64(-1), inputsSize([]input.Input{{R: a}, ins[0]}), "a FIFO's size is unknown")
	assert.Equal(t, int64(-1), inputsSize([]input.Input{{R: strings.NewReader("x")}}), "a pipe's neither")
}

func TestCountingReaderCountsEveryRead(t *testing.T) {
	var n atomic.Int64
	r := &countingReader{r: strings.NewReader(strings.Repeat("z", 10_000)), n: &n}
	buf := make([]byte, 4096)
	reads := 0
	for {
		k, err := r.Read(buf)
		if k > 0 {
			reads++
		}
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
	}
	assert.Equal(t, int64(10_000), n.Load())
	assert.Equal(t, 3, reads)
}

// TestProgressLineFitsTheTerminal: the counts are shortened, then left
// out, so that the line never wraps (a wrapped line cannot be redrawn in
// place).
func TestProgressLineFitsTheTerminal(t *testing.T) {
	f, err := os.Open(writeTempFile(t, t.TempDir(), "in", make([]byte, 5000)))
	require.NoError(t, err)
	defer f.Close()
	var out strings.Builder
	p := newProgress(config.ProgressAlways, &out, []input.Input{{R: f}})
	require.NotNil(t, p)
	descs := []string{"123456 delivered, 0 failed, 98765 rec/s", "123456 ok, 0 failed", ""}
	for _, tt := range []struct {
		cols int
		want string
	}{{0, descs[0]}, {200, descs[0]}, {70, descs[1]}, {45, ""}} {
		p.draw(2500, tt.cols, descs)
		line := strings.TrimPrefix(p.bar.String(), "\r")
		assert.True(t, strings.HasSuffix(line, " "+tt.want+" "), "cols %d: %q", tt.cols, line)
		assert.Contains(t, line, " 50% ")
		if tt.cols > 0 {
			assert.Less(t, utf8.RuneCountInString(line), tt.cols, "cols %d: %q", tt.cols, line)
		}
	}
}

// writeTempFile writes data to dir/name and returns the path.
func writeTempFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}
