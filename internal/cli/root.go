package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/kproduce/kproduce/internal/cli/checkcmd"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/configcmd"
	"github.com/kproduce/kproduce/internal/cli/metadatacmd"
	"github.com/kproduce/kproduce/internal/cli/producecmd"
	"github.com/kproduce/kproduce/internal/cli/versioncmd"
)

// NewRootCommand returns the kproduce command tree: the produce command at
// the root, its subcommands below. Running a command stores its exit
// status in *code.
func NewRootCommand(s cmdutil.Streams, code *int) *cobra.Command {
	root := producecmd.NewCommand(s, code)
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.AddCommand(metadatacmd.NewCommand(s, code), checkcmd.NewCommand(s, code),
		configcmd.NewCommand(s, code), versioncmd.NewCommand(s, code))
	root.Version = versioncmd.Read().String()
	root.SetVersionTemplate("{{.Version}}")
	// cobra's completion command (bash, zsh, fish, powershell), added now
	// so that the generated reference pages show it.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args = cobra.ArbitraryArgs
			c.RunE = completionUsage
		}
	}
	root.SetFlagErrorFunc(flagError)
	return root
}

// Execute runs kproduce with args (without the program name) and returns
// the exit status. Errors found before anything is produced are printed
// on stderr, a usage error with a hint to the command's --help.
func Execute(ctx context.Context, args []string, s cmdutil.Streams) int {
	code := cmdutil.ExitOK
	cmd := NewRootCommand(s, &code)
	cmd.SetArgs(args)
	if ran, err := cmd.ExecuteContextC(ctx); err != nil {
		path := "kproduce"
		if ran != nil {
			path = ran.CommandPath()
		}
		cmdutil.PrintErrorFor(s.Err, err, path)
		if cmdutil.IsUsageError(err) {
			return cmdutil.ExitUsage
		}
		return cmdutil.ExitFailed
	}
	return code
}

// completionUsage is kproduce completion without a known shell: a usage
// error naming the shells.
func completionUsage(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return cmdutil.UsageErrorf("kproduce completion needs a shell: bash, zsh, fish or powershell")
	}
	return cmdutil.UsageErrorf("unknown shell %q: want bash, zsh, fish or powershell", args[0])
}
