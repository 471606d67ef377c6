package cmdutil

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// NewSubcommand returns a subcommand that takes no arguments, with
// kproduce's conventions: errors and usage are printed by the caller of
// Execute, not by cobra, and flags are listed in the order defined. The
// caller adds its flags and RunE.
func NewSubcommand(use, short, long, example string) *cobra.Command {
	name, _, _ := strings.Cut(use, " ")
	cmd := &cobra.Command{
		Use:           use,
		Short:         short,
		Long:          long,
		Example:       example,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return UsageErrorf("unexpected argument %q: kproduce %s takes none", args[0], name)
			}
			return nil
		},
	}
	cmd.Flags().SortFlags = false
	return cmd
}

// DefaultSubcommandTimeout bounds a subcommand's wait for the cluster
// unless --timeout says otherwise.
const DefaultSubcommandTimeout = 10 * time.Second

// FailureStatus prints err, which ended a subcommand, and returns its exit
// status: 130 when the run was interrupted, 1 otherwise.
func FailureStatus(parent context.Context, s Streams, err error) int {
	PrintError(s.Err, err)
	if parent.Err() != nil || errors.Is(err, context.Canceled) {
		return ExitInterrupted
	}
	return ExitFailed
}
