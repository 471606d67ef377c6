package cmdutil

import (
	"slices"

	"github.com/spf13/cobra"
)

// RegisterChoices makes shell completion offer, for each flag of cmd named
// in choices, the values it takes. Flags cmd does not have are skipped.
func RegisterChoices(cmd *cobra.Command, choices map[string][]string) {
	for name, values := range choices {
		if cmd.Flags().Lookup(name) == nil {
			continue
		}
		values := slices.Clone(values)
		// The only error is an unknown flag or one registered twice: both
		// are ruled out above and by registering each name once.
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
	}
}
