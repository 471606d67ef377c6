package checkcmd_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/spf13/cobra"
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

// runCheck runs kproduce check, built alone, with args.
func runCheck(t *testing.T, args ...string) kafkatest.CommandResult {
	t.Helper()
	return kafkatest.RunReportingCommand(t, func(s cmdutil.Streams) *cobra.Command { return checkcmd.NewCommand(s, nil) }, args...)
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
