package cli

import (
	"context"
	"fmt"

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
	addVersionFlag(root, s)
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

// addVersionFlag gives the root --version, which prints what kproduce
// version prints. (cobra's own version flag would link text/template,
// and with it most of the standard library, into the binary.)
func addVersionFlag(root *cobra.Command, s cmdutil.Streams) {
	root.Flags().Bool("version", false, "print kproduce's version, commit and Go version (as kproduce version) and exit")
	run := root.RunE
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if v, _ := cmd.Flags().GetBool("version"); v { // defined above
			_, err := fmt.Fprint(s.Out, versioncmd.Read().String())
			return err
		}
		return run(cmd, args)
	}
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
