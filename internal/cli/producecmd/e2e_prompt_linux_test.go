//go:build linux

package producecmd_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// openPTY opens a pseudo-terminal: the master end, which the test types
// into, and the terminal end kproduce reads as stdin.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	require.NoError(t, unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetUint32(int(m.Fd()), unix.TIOCGPTN)
	require.NoError(t, err)
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return m, s
}

// TestE2ETerminalPrompt: typing records at a terminal, one line on stderr
// says kproduce reads them and how to finish; a pipe gets no such line.
func TestE2ETerminalPrompt(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	master, tty := openPTY(t)
	_, err := master.Write([]byte("typed-1\ntyped-2\n\x04"))
	require.NoError(t, err)
	res := produceTo(t, c, tty, "-t", "t")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Equal(t, "kproduce: reading records from the terminal, one record per line (Ctrl-D to finish)\n", res.Stderr)
	kafkatest.ConsumeExactly(t, c, "t", 2)

	res = produceTo(t, c, strings.NewReader("piped\n"), "-t", "t")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Empty(t, res.Stderr)
}
