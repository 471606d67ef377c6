// Package configcmd is kproduce config: the settings the produce command
// would use, with the flags given, and where each came from (a flag, a
// property, the environment, the config file and line, a profile, or the
// default), secrets redacted.
package configcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config"
)

// Options are what kproduce config shows: the settings described, as
// text or JSON.
type Options struct {
	Description *config.Description
	JSON        bool
}

// NewCommand returns kproduce config. Running it describes the settings
// and hands them to runF, or, when runF is nil, prints them and returns an
// error that gives the exit status.
func NewCommand(s cmdutil.Streams, runF func(*Options) error) *cobra.Command {
	if runF == nil {
		runF = func(opts *Options) error {
			if err := write(s.Out, opts.Description, opts.JSON); err != nil {
				return fmt.Errorf("writing the settings: %w", err)
			}
			return nil
		}
	}
	cmd := cmdutil.NewSubcommand("config [flags]", "Show the effective settings and where each came from",
		`kproduce config resolves the settings as kproduce would with the same flags
(flags and -X, the environment, the config file and its profile, the
defaults), checks them, and prints each with its value and where it came
from: "flag --linger", "-X linger.ms", "env KPRODUCE_LINGER", the config
file and line (with the profile), or "default". Secrets (passwords, keys,
client secrets, tokens, the password of a JAAS config) are shown as
[redacted].

The config file is --config (-F), else KPRODUCE_CONFIG, else
~/.config/kproduce/config.yaml ($XDG_CONFIG_HOME/kproduce/config.yaml) when
it exists. A topic is not required here.

Exit status: 0 the settings are valid; 2 they are not (each problem named).`,
		`  kproduce config
  kproduce config --profile prod -X linger.ms=20
  kproduce config --json | jq -r '.settings[] | select(.origin != "default") | .name'`)
	config.AddFlags(cmd.Flags())
	cmd.Flags().Bool("json", false, "print the settings as one JSON object")
	cmdutil.RegisterChoices(cmd, config.Choices())
	// --progress never: the word after a flag whose value is optional
	// arrives as an argument (see config.ClaimOptionalValues).
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if rest := config.ClaimOptionalValues(cmd.Flags(), args); len(rest) > 0 {
			return cmdutil.UsageErrorf("unexpected argument %q: kproduce config takes none", rest[0])
		}
		d, err := config.Describe(cmd.Flags(), s.Err)
		if err != nil {
			return err
		}
		asJSON, _ := cmd.Flags().GetBool("json") // defined above
		return runF(&Options{Description: d, JSON: asJSON})
	}
	return cmd
}

// write prints the description as text or JSON.
func write(w io.Writer, d *config.Description, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(d)
	}
	file := "none"
	if d.ConfigFile != "" {
		file = d.ConfigFile + " (" + d.ConfigOrigin + ")"
	}
	profile := d.Profile
	if profile == "" {
		profile = "none"
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "config file:\t%s\n", file)
	fmt.Fprintf(tw, "profile:\t%s\n\n", profile)
	fmt.Fprintln(tw, "NAME\tVALUE\tORIGIN")
	for _, st := range d.Settings {
		value := st.Value
		if value == "" {
			value = `""`
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", st.Name, value, st.Origin)
	}
	return tw.Flush()
}
