package interop

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// binary is the kproduce binary built once per test run.
var binary struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary.dir != "" {
		_ = os.RemoveAll(binary.dir)
	}
	os.Exit(code)
}

// kproduceBinary builds kproduce on first use and returns its path.
func kproduceBinary(t testing.TB) string {
	t.Helper()
	binary.once.Do(func() {
		binary.dir, binary.err = os.MkdirTemp("", "kproduce-interop-")
		if binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "kproduce")
		cmd := exec.Command("go", "build", "-o", binary.path, "github.com/kproduce/kproduce/cmd/kproduce")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		binary.out, binary.err = cmd.CombinedOutput()
	})
	require.NoError(t, binary.err, "go build: %s", binary.out)
	return binary.path
}

// result is how a kproduce run ended.
type result struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// lines returns the non-empty lines of s.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// runKproduce runs kproduce with args and stdin, and fails the test when it
// runs longer than within.
func runKproduce(t *testing.T, within time.Duration, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	cmd := exec.CommandContext(ctx, kproduceBinary(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "KPRODUCE_LOG_LEVEL=error")
	start := time.Now()
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	require.NoError(t, ctx.Err(), "kproduce %v did not end within %v; stderr:\n%s", args, within, res.stderr)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	case err != nil:
		require.NoError(t, err)
	}
	return res
}
