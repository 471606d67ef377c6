package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kproduce/kproduce/internal/cli/checkcmd"
	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/configcmd"
	"github.com/kproduce/kproduce/internal/cli/metadatacmd"
	"github.com/kproduce/kproduce/internal/cli/perfcmd"
	"github.com/kproduce/kproduce/internal/cli/producecmd"
	"github.com/kproduce/kproduce/internal/cli/versioncmd"
)

// NewRootCommand returns the kproduce command tree: the produce command at
// the root, its subcommands below. A command's error gives the exit status
// (cmdutil.ExitCode).
func NewRootCommand(s cmdutil.Streams) *cobra.Command {
	root := producecmd.NewCommand(s, nil)
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.AddCommand(metadatacmd.NewCommand(s, nil), checkcmd.NewCommand(s, nil), perfcmd.NewCommand(s, nil),
		configcmd.NewCommand(s, nil), versioncmd.NewCommand(s))
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
// the exit status: the one place where a command's error becomes one. An
// error the command has not printed yet (one found before anything was
// produced, a usage error with a hint to the command's --help) is printed
// on stderr.
func Execute(ctx context.Context, args []string, s cmdutil.Streams) int {
	cmd := NewRootCommand(s)
	cmd.SetArgs(subcommandArgs(cmd, args))
	ran, err := cmd.ExecuteContextC(ctx)
	if err != nil && !cmdutil.IsReported(err) {
		path := "kproduce"
		if ran != nil {
			path = ran.CommandPath()
		}
		cmdutil.PrintErrorFor(s.Err, err, path)
	}
	return cmdutil.ExitCode(err)
}

// subcommandArgs lets the subcommand about to run rewrite its command
// line first: kproduce perf takes kafka-producer-perf-test's flags of
// several values (--producer-props a=1 b=2).
func subcommandArgs(root *cobra.Command, args []string) []string {
	if c, _, err := root.Find(args); err == nil && c.Name() == perfcmd.Name {
		return perfcmd.ExpandArgs(args)
	}
	return args
}

// completionUsage is kproduce completion without a known shell: a usage
// error naming the shells.
func completionUsage(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return cmdutil.UsageErrorf("kproduce completion needs a shell: bash, zsh, fish or powershell")
	}
	return cmdutil.UsageErrorf("unknown shell %q: want bash, zsh, fish or powershell", args[0])
}
