package metadatacmd_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/metadatacmd"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// The tests build kproduce metadata alone with metadatacmd.NewCommand,
// give it streams of their own and judge it by what it printed and the
// error its RunE returned, against kfake clusters, with franz-go's view of
// the cluster as the oracle. What the command tree adds (the usage hint,
// flag errors) is tested through internal/cli's Execute
// (usage_e2e_test.go).

// runMetadata runs kproduce metadata, built alone, with args.
func runMetadata(t *testing.T, args ...string) kafkatest.CommandResult {
	t.Helper()
	return kafkatest.RunReportingCommand(t, func(s cmdutil.Streams) *cobra.Command { return metadatacmd.NewCommand(s, nil) }, args...)
}

// runKproduce runs kproduce in-process with stdin and args, as main does.
func runKproduce(t testing.TB, stdin io.Reader, args ...string) kafkatest.Result {
	t.Helper()
	return kafkatest.Run(t, context.Background(), cli.Execute, stdin, args...)
}

// decodeMetadata decodes kproduce metadata -o json.
func decodeMetadata(t *testing.T, out string) jsonMetadata {
	t.Helper()
	var v jsonMetadata
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	return v
}
