package interop

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// result is how a kproduce run ended.
type result struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// runKproduce runs kproduce with args and stdin, and fails the test when it
// runs longer than within.
func runKproduce(t *testing.T, within time.Duration, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	cmd := exec.CommandContext(ctx, kafkatest.Binary(t), args...)
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
