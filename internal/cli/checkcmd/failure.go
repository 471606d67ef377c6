package checkcmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// With -o json, kproduce check prints exactly one JSON object on stdout,
// also when the check cannot start (bad flags, an unreachable cluster, a
// missing topic): {"topic":..., "ok":false, "error":"...", ...}, so that
// `kproduce check -o json | jq -e .ok` fails instead of reading nothing.

// wantsJSON reports whether -o json was given (as far as the flags were
// parsed).
func wantsJSON(cmd *cobra.Command) bool {
	f := cmd.Flags().Lookup("output")
	return f != nil && f.Value.String() == "json"
}

// failureReport is the report of a check that could not run.
func failureReport(topic string, err error) *checkReport {
	msg := err.Error()
	return &checkReport{Topic: topic, Error: &msg, Partitions: []partitionResult{}}
}

// jsonOnError wraps a RunE: an error it returns is also printed as the
// JSON report with -o json.
func jsonOnError(s cmdutil.Streams, run func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := run(cmd, args)
		if err != nil && !cmdutil.IsReported(err) && wantsJSON(cmd) {
			_ = failureReport(cmd.Flags().Lookup("topic").Value.String(), err).writeJSON(s.Out)
		}
		return err
	}
}

// jsonFlagError is the flag error function of check: the root's, and the
// JSON report with -o json (when parsed before the bad flag).
func jsonFlagError(s cmdutil.Streams) func(*cobra.Command, error) error {
	return func(cmd *cobra.Command, err error) error {
		if root := cmd.Root(); root != cmd {
			err = root.FlagErrorFunc()(cmd, err)
		}
		if wantsJSON(cmd) {
			_ = failureReport(cmd.Flags().Lookup("topic").Value.String(), err).writeJSON(s.Out)
		}
		return err
	}
}

// failCheck ends a check that could not run: the JSON report with -o
// json, the error on stderr; it returns the exit status.
func failCheck(parent context.Context, s cmdutil.Streams, f *Options, topic string, err error) int {
	if f.Output == "json" {
		_ = failureReport(topic, err).writeJSON(s.Out)
	}
	return cmdutil.FailureStatus(parent, s, err)
}
