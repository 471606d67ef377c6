package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
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
	c := kafkatest.ProducerCluster(t)
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
			}, "-b", kafkatest.Brokers(c), "-t", "t", first, unreadable, last)
			code, _ := proc.wait(t, time.Minute)
			assert.Equal(t, cmdutil.ExitUsage, code, proc.stderr.String())
			assert.Empty(t, proc.stdout.String())
			assert.Regexp(t, `^error: input: open `+regexp.QuoteMeta(unreadable)+`: permission denied\n`, proc.stderr.String())
		})
	}
	kafkatest.RequireEmpty(t, c, "t")
}

// writeShared writes a file with mode perm in dir and returns its path.
func writeShared(t *testing.T, dir, name, data string, perm os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(data), 0o600))
	require.NoError(t, os.Chmod(p, perm))
	return p
}
