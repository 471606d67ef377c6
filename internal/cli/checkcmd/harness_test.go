package checkcmd_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli"
	"github.com/kproduce/kproduce/internal/cli/checkcmd"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// The tests build kproduce check alone with checkcmd.NewCommand, give it
// streams of their own and judge it by what it printed and the error its
// RunE returned, against kfake clusters; they read the canaries back with
// franz-go. What the command tree adds (the usage hint, flag errors) is
// tested through internal/cli's Execute (usage_e2e_test.go).

// checkRun is what one run of the check command printed and returned.
type checkRun struct {
	kafkatest.Result // Code: cmdutil.ExitCode(Err)
	// Err is what the command returned: nil, or the error that gives the
	// exit status.
	Err error
}

// runCheck runs kproduce check, built alone, with args. A check that
// failed has printed its report and its errors itself: the error it
// returns only gives the exit status (cmdutil.IsReported).
func runCheck(t *testing.T, args ...string) checkRun {
	t.Helper()
	var err error
	res := kafkatest.Run(t, context.Background(), func(ctx context.Context, args []string, s cmdutil.Streams) int {
		cmd := checkcmd.NewCommand(s, nil)
		cmd.SetArgs(args)
		err = cmd.ExecuteContext(ctx)
		return cmdutil.ExitCode(err)
	}, nil, args...)
	if res.Code == cmdutil.ExitFailed {
		assert.True(t, cmdutil.IsReported(err), "a failed check reports itself: %v", err)
	}
	return checkRun{Result: res, Err: err}
}

// runKproduce runs kproduce in-process with stdin and args, as main does.
func runKproduce(t testing.TB, stdin io.Reader, args ...string) kafkatest.Result {
	t.Helper()
	return kafkatest.Run(t, context.Background(), cli.Execute, stdin, args...)
}

// saslUser is the superuser of the SASL clusters.
const saslUser, saslPass = "alice", "wonder-land-7f3a"

// decodeJSONOutput decodes a subcommand's JSON output.
func decodeJSONOutput[T any](t *testing.T, out string) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	return v
}
