package metadatacmd_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
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

// metadataRun is what one run of the metadata command printed and
// returned.
type metadataRun struct {
	kafkatest.Result // Code: cmdutil.ExitCode(Err)
	// Err is what the command returned: nil, or the error that gives the
	// exit status.
	Err error
}

// runMetadata runs kproduce metadata, built alone, with args. A run that
// failed has printed its errors itself: the error it returns only gives
// the exit status (cmdutil.IsReported).
func runMetadata(t *testing.T, args ...string) metadataRun {
	t.Helper()
	var err error
	res := kafkatest.Run(t, context.Background(), func(ctx context.Context, args []string, s cmdutil.Streams) int {
		cmd := metadatacmd.NewCommand(s, nil)
		cmd.SetArgs(args)
		err = cmd.ExecuteContext(ctx)
		return cmdutil.ExitCode(err)
	}, nil, args...)
	if res.Code == cmdutil.ExitFailed {
		assert.True(t, cmdutil.IsReported(err), "a failed run reports itself: %v", err)
	}
	return metadataRun{Result: res, Err: err}
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
