package kafkatest

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// CommandResult is what one command, run alone, printed and returned.
type CommandResult struct {
	Result // Code: cmdutil.ExitCode(Err)
	// Err is what the command's RunE returned: nil, or the error that
	// gives the exit status.
	Err error
}

// RunCommand builds one command with newCommand and the streams of the
// run (as the command tree does), runs it alone with args and no stdin,
// and returns what it printed and the error it returned: a command is
// judged by what it returns, its exit status mapped once by the caller.
func RunCommand(t testing.TB, newCommand func(cmdutil.Streams) *cobra.Command, args ...string) CommandResult {
	t.Helper()
	var err error
	res := Run(t, context.Background(), func(ctx context.Context, args []string, s cmdutil.Streams) int {
		cmd := newCommand(s)
		cmd.SetArgs(args)
		err = cmd.ExecuteContext(ctx)
		return cmdutil.ExitCode(err)
	}, nil, args...)
	return CommandResult{Result: res, Err: err}
}

// Resolve builds a command with newCommand, buffers for its streams and a
// runF that keeps the options it is given, runs it with args, and returns
// those options (nil when runF was not called: the command refused its
// arguments), what the command printed (stdout, then stderr) and its
// error.
func Resolve[O any](t testing.TB, newCommand func(cmdutil.Streams, func(context.Context, *O) error) *cobra.Command,
	args ...string) (*O, string, error) {
	t.Helper()
	var got *O
	var out, errOut bytes.Buffer
	cmd := newCommand(cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, func(_ context.Context, o *O) error {
		got = o
		return nil
	})
	cmd.SetArgs(noArgs(args))
	err := cmd.ExecuteContext(context.Background())
	return got, out.String() + errOut.String(), err
}

// RunReportingCommand is RunCommand for a command that prints what went
// wrong itself (kproduce check, kproduce metadata): when it exits 1, the
// error it returned only gives the exit status (cmdutil.IsReported), or
// the test fails.
func RunReportingCommand(t testing.TB, newCommand func(cmdutil.Streams) *cobra.Command, args ...string) CommandResult {
	t.Helper()
	r := RunCommand(t, newCommand, args...)
	if r.Code == cmdutil.ExitFailed && !cmdutil.IsReported(r.Err) {
		t.Errorf("the command failed without reporting it: %v", r.Err)
	}
	return r
}
