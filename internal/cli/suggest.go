package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config"
	"github.com/kproduce/kproduce/internal/cli/producecmd"
)

// flagError makes a flag error a usage error and, for an unknown flag,
// says what to use: the subcommand a misspelt one meant, what kproduce
// offers for another tool's flag, or the nearest flag of the command.
func flagError(cmd *cobra.Command, err error) error {
	// kproduce pref --num-records 10: the subcommand is misspelt, which
	// made its flags the produce command's unknown ones.
	if !cmd.HasParent() {
		if a, sub := producecmd.SubcommandTypo(cmd, cmd.Flags().Args()); a != "" {
			return cmdutil.UsageErrorf("%w; %q is not a subcommand: did you mean kproduce %s?", err, a, sub)
		}
	}
	if hint := unknownFlagHint(cmd, err.Error()); hint != "" {
		return cmdutil.UsageErrorf("%w; %s", err, hint)
	}
	return cmdutil.AsUsageError(err)
}

// unknownFlagHint is the hint for pflag's unknown flag message, "" when
// there is none.
func unknownFlagHint(cmd *cobra.Command, msg string) string {
	var name string
	switch {
	case strings.HasPrefix(msg, "unknown flag: --"):
		name = strings.TrimPrefix(msg, "unknown flag: ")
		name, _, _ = strings.Cut(name, "=")
	case strings.HasPrefix(msg, "unknown shorthand flag: '") && len(msg) > len("unknown shorthand flag: 'x"):
		if long := singleDashLongFlag(cmd, msg); long != "" {
			return fmt.Sprintf("did you mean --%s? (a long flag takes two dashes)", long)
		}
		name = "-" + string(msg[len("unknown shorthand flag: '")])
	default:
		return ""
	}
	if hint := config.FlagHint(name); hint != "" {
		return hint
	}
	if !strings.HasPrefix(name, "--") {
		return ""
	}
	// Other tools' spellings count: kproduce accepts them
	// (--bootstrap-servers is near --bootstrap-server).
	names := config.AliasNames()
	cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if near := cmdutil.Nearest(strings.TrimPrefix(name, "--"), names, 2); near != "" {
		return fmt.Sprintf("did you mean --%s?", near)
	}
	return ""
}

// singleDashLongFlag returns the long flag a word of shorthands was
// meant to be (-help: -h, then an unknown -e "in -elp"), "" when it is
// none: a flag whose name is a boolean flag's shorthand followed by the
// rest pflag could not read.
func singleDashLongFlag(cmd *cobra.Command, msg string) string {
	_, rest, ok := strings.Cut(msg, "' in -")
	if !ok || rest == "" {
		return ""
	}
	long := ""
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if long != "" || len(f.Name) != len(rest)+1 || f.Name[1:] != rest {
			return
		}
		if first := cmd.Flags().ShorthandLookup(f.Name[:1]); first != nil && first.NoOptDefVal != "" {
			long = f.Name
		}
	})
	return long
}
