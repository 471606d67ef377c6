package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kproduce/kproduce/pkg/admin"
	"github.com/kproduce/kproduce/pkg/sender"
)

// connectionOptionNames are the root command's options that the
// subcommands share: where the cluster is and how to connect to it. They
// resolve like the root command's (flag > env > config file > default; -X
// and .properties files for the Java names).
func connectionOptionNames() []string {
	return []string{
		"brokers", "client-id", "request-timeout",
		"tls", "tls-ca", "tls-cert", "tls-key", "tls-key-password", "tls-server-name", "tls-insecure-skip-verify",
		"sasl-mechanism", "sasl-username", "sasl-password",
		"property", "config", "log-level",
	}
}

// addConnectionFlags defines the connection options' flags on fs, with
// the root command's defaults and help.
func addConnectionFlags(fs *pflag.FlagSet) {
	names := connectionOptionNames()
	specs := slices.DeleteFunc(optionSpecs(), func(o optionSpec) bool { return !slices.Contains(names, o.Name) })
	addSpecFlags(fs, specs)
}

// loadConnectionOptions resolves a subcommand's connection options and
// its topic (which, like the root command's, may come from the
// environment or the config file). The config file may hold the
// producer's options too: they are accepted and not used.
func loadConnectionOptions(fs *pflag.FlagSet, stderr io.Writer) (*Options, error) {
	return resolveOptions(fs, stderr, buildConnectionOptions)
}

// buildConnectionOptions reads the connection options and the topic.
func buildConnectionOptions(vals optionValues) (*Options, []string, error) {
	r := &optionReader{vals: vals}
	o := &Options{ConfigFile: r.str("config")}
	r.readBrokers(o)
	o.Topic = strings.TrimSpace(r.str("topic"))
	o.RequestTimeout = r.duration("request-timeout", true)
	o.ClientID = r.str("client-id")
	r.readLogLevel(o)
	r.readSecurity(o)
	if err := r.err(); err != nil {
		return nil, nil, asUsageError(err)
	}
	return o, nil, nil
}

// adminConfig maps the connection options onto an admin client's.
func adminConfig(o *Options) admin.Config {
	net := sender.DefaultConfig().Network
	net.ClientID = o.ClientID
	net.RequestTimeout = o.RequestTimeout
	net.SASL = o.Security.SASL
	cfg := admin.Config{Bootstrap: o.Brokers, Network: net, Logger: o.Logger}
	cfg.Socket.TLS = o.Security.TLSConfig
	return cfg
}

// flagValues are option values read from a flag set only: a subcommand's
// own options, which neither the environment nor a config file sets (a
// producer config's count or output must not leak into them).
type flagValues struct{ fs *pflag.FlagSet }

// Get returns the flag's value as text.
func (f flagValues) Get(key string) any {
	if fl := f.fs.Lookup(key); fl != nil {
		return fl.Value.String()
	}
	return nil
}

// IsSet reports whether the flag was given.
func (f flagValues) IsSet(key string) bool {
	fl := f.fs.Lookup(key)
	return fl != nil && fl.Changed
}

// readSubcommandOutput reads a subcommand's -o: text or json.
func readSubcommandOutput(r *optionReader) string {
	o := strings.ToLower(strings.TrimSpace(r.str("output")))
	if o != "text" && o != "json" {
		r.failValue("output", o, fmt.Errorf("%w: want text or json", errBadValue))
	}
	return o
}

// cmd0 is the name in a cobra Use line.
func cmd0(use string) string {
	name, _, _ := strings.Cut(use, " ")
	return name
}

// defaultSubcommandTimeout bounds a subcommand's wait for the cluster.
const defaultSubcommandTimeout = 10 * time.Second

// newSubcommand returns a subcommand that takes no arguments; the caller
// adds its flags and sets RunE with subcommandRunE.
func newSubcommand(use, short, long, example string) *cobra.Command {
	cmd := &cobra.Command{
		Use:           use,
		Short:         short,
		Long:          long,
		Example:       example,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErrorf("unexpected argument %q: kproduce %s takes none", args[0], cmd0(use))
			}
			return nil
		},
	}
	cmd.Flags().SortFlags = false
	return cmd
}

// subcommandRunE resolves the connection options and calls run, whose
// exit status goes to *code; an error run returns is printed by execute
// (a usage error exits 2).
func subcommandRunE(s Streams, code *int, run func(cmd *cobra.Command, opts *Options) (int, error)) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		opts, err := loadConnectionOptions(cmd.Flags(), s.Err)
		if err != nil {
			return err
		}
		c, err := run(cmd, opts)
		if err != nil {
			return err
		}
		*code = c
		return nil
	}
}
