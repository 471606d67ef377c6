package main

import (
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestManyFilesUnderALowDescriptorLimit: the built binary produces 5,000
// files with a limit of 128 descriptors (100,000 files with 1,024 under
// KPRODUCE_LONG_TESTS; writing them takes most of a minute), hard and soft
// so that the Go runtime cannot raise it, one record each. Before, every
// input was opened before the run started, and it failed with "too many
// open files".
func TestManyFilesUnderALowDescriptorLimit(t *testing.T) {
	t.Parallel()
	n, limit := 5000, 128
	if kafkatest.LongTests() {
		n, limit = 100_000, 1024
	}
	c := kafkatest.ProducerCluster(t)
	dir := t.TempDir()
	kafkatest.WriteFiles(t, dir, n, func(i int) string { return fmt.Sprint(i) })
	proc := startProcess(t, withFileLimit(limit, dir, "f*"), "-b", kafkatest.Brokers(c), "-t", "t", "-f", "file", "-o", "none")
	code, _ := proc.wait(t, 5*time.Minute)
	stderr := proc.stderr.String()
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	assert.Equal(t, fmt.Sprintf("%d\n", limit), stderr, "the limit the run had, and nothing else on stderr")
	assert.EqualValues(t, n, kafkatest.RecordCount(c, "t"))
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
