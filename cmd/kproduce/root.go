package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Exit statuses.
const (
	exitOK          = 0   // every record delivered
	exitFailed      = 1   // some record failed
	exitUsage       = 2   // bad flags, config or input files: nothing was sent
	exitInterrupted = 130 // SIGINT or SIGTERM
)

// Streams are the standard streams of one run.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// newRootCommand returns the kproduce command. Running it resolves the
// options and calls runProduce, whose exit status it stores in *code.
func newRootCommand(s Streams, code *int) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kproduce [flags] [FILE ...]",
		Short: "Produce records to Kafka from stdin or files",
		Long: `kproduce produces records to Kafka from FILEs, or from stdin when no FILE is
given or FILE is "-". Every option can also be set with an environment
variable (KPRODUCE_ and the long flag name in upper case, '-' as '_', e.g.
KPRODUCE_BROKERS), in a YAML --config file whose keys are the long flag names,
or as a Java producer property (-X or a .properties --config file).
Precedence: flag (and -X) > environment > config file > default.

Input formats (-f):
  lines  records split at -D (default newline; a last record needs none);
         -K splits a key off each line; CR is kept unless -D says '\r\n'
  json   one object per line: {"topic":..,"partition":..,"key":..,
         "value":.. (or "payload"),"headers":..,"timestamp":.. (or "ts", ms)};
         kcat -J output is read as is; strings are the raw bytes (no base64);
         null is a null key or value; other JSON values are sent as compact
         JSON text; blank lines are skipped
  file   each FILE (or all of stdin) is one record, byte for byte

One report per record goes to stdout (-o); failures go to stderr.
Exit status: 0 all delivered, 1 some record failed, 2 bad usage (nothing
sent), 130 interrupted.

The subcommands metadata and check inspect and smoke-test a cluster (see
kproduce metadata --help, kproduce check --help). A FILE named like a
subcommand (or help) is given as a path: kproduce -t t ./check`,
		Example:       usageExamples,
		Args:          cobra.ArbitraryArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := loadOptions(cmd.Flags(), args, s.Err)
			if err != nil {
				return err
			}
			*code = runProduce(cmd.Context(), opts, s)
			return nil
		},
	}
	cmd.SetIn(s.In)
	cmd.SetOut(s.Out)
	cmd.SetErr(s.Err)
	addFlags(cmd.Flags())
	cmd.CompletionOptions.DisableDefaultCmd = true
	cmd.AddCommand(newMetadataCommand(s, code), newCheckCommand(s, code))
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return asUsageError(err)
	})
	return cmd
}

// execute runs kproduce with args (without the program name) and returns
// the exit status. Errors before anything is produced are printed on
// stderr.
func execute(ctx context.Context, args []string, s Streams) int {
	code := exitOK
	cmd := newRootCommand(s, &code)
	cmd.SetArgs(args)
	if ran, err := cmd.ExecuteContextC(ctx); err != nil {
		path := "kproduce"
		if ran != nil {
			path = ran.CommandPath()
		}
		printErrorFor(s.Err, err, path)
		if isUsageError(err) {
			return exitUsage
		}
		return exitFailed
	}
	return code
}

// printError prints every line of err as "error: ..." and, for a usage
// error, a hint to kproduce --help.
func printError(w io.Writer, err error) { printErrorFor(w, err, "kproduce") }

// printErrorFor is printError for a usage error of command (its path, such
// as "kproduce check").
func printErrorFor(w io.Writer, err error, command string) {
	var b strings.Builder
	for _, line := range strings.Split(err.Error(), "\n") {
		b.WriteString("error: ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if isUsageError(err) {
		b.WriteString("Run '" + command + " --help' for usage.\n")
	}
	_, _ = fmt.Fprint(w, b.String())
}
