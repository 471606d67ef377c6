// Package versioncmd is kproduce version (and kproduce --version): the
// version, commit, date and Go version of the binary. A release build
// stamps them at link time (-ldflags -X, see Stamp), which holds whatever
// GOFLAGS say (-buildvcs=false included); otherwise they are read from the
// build information: a binary built with go install module@version shows
// that version, one built in a checkout the commit it was built from.
package versioncmd

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config"
)

// Info is what a kproduce binary says of itself.
type Info struct {
	// Version is the module version (v1.2.3, a pseudo-version, or
	// "(devel)" for a build that has none).
	Version string `json:"version"`
	// Commit is the VCS revision built; "" when unknown.
	Commit string `json:"commit"`
	// Modified says the work tree had changes not committed.
	Modified bool `json:"modified"`
	// Date is the time of that commit (vcs.time); "" when unknown.
	Date string `json:"date"`
	// Go is the Go version and the platform built for.
	Go string `json:"go"`
}

// Read returns what the binary says of itself: what the linker stamped,
// else its build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = &debug.BuildInfo{}
	}
	return fromBuildInfo(bi).stamped(linkerStamp())
}

// fromBuildInfo reads the build information of a binary.
func fromBuildInfo(bi *debug.BuildInfo) Info {
	info := Info{Version: "(devel)", Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH}
	if v := bi.Main.Version; v != "" {
		info.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Commit = s.Value
		case "vcs.time":
			info.Date = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// stamped returns i with what a release build stamped in place of what
// the build information says: each stamped value replaces its own, and a
// stamped version or commit says whether the tree was modified too.
func (i Info) stamped(s Stamp) Info {
	if s.Version != "" {
		i.Version = s.Version
	}
	if s.Commit != "" {
		i.Commit = s.Commit
		i.Modified = s.TreeState == "dirty"
	}
	if s.Date != "" {
		i.Date = s.Date
	}
	return i
}

// String is the text of kproduce version.
func (i Info) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kproduce %s\n", i.Version)
	if i.Commit != "" {
		commit := i.Commit
		if i.Modified {
			commit += " (modified)"
		}
		fmt.Fprintf(&b, "commit  %s\n", commit)
	}
	if i.Date != "" {
		fmt.Fprintf(&b, "date    %s\n", i.Date)
	}
	fmt.Fprintf(&b, "go      %s\n", i.Go)
	return b.String()
}

// NewCommand returns kproduce version; its error gives the exit status.
func NewCommand(s cmdutil.Streams) *cobra.Command {
	cmd := cmdutil.NewSubcommand("version [flags]", "Show kproduce's version, commit, date and Go version",
		`kproduce version shows the version of the binary (the module version of a
go install'ed one), the commit it was built from and that commit's date,
and the Go version, from the binary's build information. kproduce
--version prints the same.`,
		`  kproduce version
  kproduce version -o json | jq -r .version`)
	cmd.Flags().StringP("output", "o", "text", "output `format`: text | json")
	cmdutil.RegisterChoices(cmd, map[string][]string{"output": {"text", "json"}})
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		r := config.NewFlagReader(cmd.Flags())
		output := r.Output()
		if err := r.Err(); err != nil {
			return err
		}
		info := Read()
		var err error
		if output == "json" {
			err = json.NewEncoder(s.Out).Encode(info)
		} else {
			_, err = fmt.Fprint(s.Out, info.String())
		}
		if err != nil {
			return fmt.Errorf("writing the version: %w", err)
		}
		return nil
	}
	return cmd
}
