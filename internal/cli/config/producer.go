package config

import (
	"io"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// producerOptionNames are the options that a command making records of
// its own (kproduce perf) shares with the produce command beyond the
// connection: where records go and how the producer batches, sends and
// acknowledges them.
func producerOptionNames() []string {
	return []string{
		"partition", "partitioner", "acks", "idempotence", "linger", "batch-size", "buffer-memory",
		"max-request-size", "compression", "max-in-flight", "retries", "delivery-timeout", "close-timeout",
		"retry-backoff", "metadata-max-age", "allow-auto-topic-creation", "transaction-timeout",
	}
}

// addNamedFlags defines on fs the flags of the options named, in help
// order, with the produce command's defaults and help.
func addNamedFlags(fs *pflag.FlagSet, names []string) {
	specs := slices.DeleteFunc(optionSpecs(), func(o optionSpec) bool { return !slices.Contains(names, o.Name) })
	addSpecFlags(fs, specs)
	fs.SetNormalizeFunc(normalizeFlag)
}

// registerSubcommandChoices makes shell completion offer the values of a
// subcommand's enumerated flags, its own -o taking text or json.
func registerSubcommandChoices(cmd *cobra.Command) {
	choices := Choices()
	choices["output"] = []string{"text", "json"}
	cmdutil.RegisterChoices(cmd, choices)
}

// AddProducerFlags defines on a command that makes records of its own the
// flags of the connection options and of the producer's options (acks,
// linger, compression, ...), as AddSubcommandFlags does for the
// connection alone. The command defines --topic and --transactional-id
// itself, with its own help.
func AddProducerFlags(cmd *cobra.Command) {
	addNamedFlags(cmd.Flags(), append(connectionOptionNames(), producerOptionNames()...))
	registerSubcommandChoices(cmd)
}

// ProducerDefaults are what a command that makes records of its own puts
// in place of the produce command's defaults when no flag, environment
// variable, config file or property sets them.
type ProducerDefaults struct {
	// ClientID, when not "", is the client id.
	ClientID string
	// TransactionalID, when not "", makes the producer transactional with
	// this id.
	TransactionalID string
}

// LoadProducer resolves the options of a command that makes records of
// its own from the flags fs (defined with AddProducerFlags): the
// connection, the topic and the producer's options, layered and checked
// as Load does for a produce run, without its input, report and run
// options. Its errors are usage errors.
func LoadProducer(fs *pflag.FlagSet, stderr io.Writer, def ProducerDefaults) (*Options, error) {
	_, opts, err := resolveOptions(fs, stderr, func(vals optionValues) (*Options, []string, error) {
		return buildProducerOptions(vals, def)
	})
	if err != nil {
		return nil, err
	}
	logOptions(opts)
	return opts, nil
}

// buildProducerOptions reads and validates the options LoadProducer
// resolves.
func buildProducerOptions(vals optionValues, def ProducerDefaults) (*Options, []string, error) {
	r := &optionReader{vals: vals}
	o := &Options{}
	r.readTarget(o)
	r.readProducer(o)
	r.readLogLevel(&o.Connection)
	r.readSecurity(&o.Connection)
	if err := r.err(); err != nil {
		return nil, nil, cmdutil.AsUsageError(err)
	}
	if def.ClientID != "" && !vals.IsSet("client-id") {
		o.ClientID = def.ClientID
	}
	if o.TransactionalID == "" {
		o.TransactionalID = def.TransactionalID
	}
	w, err := o.applyProducerRules(vals)
	if err != nil {
		return nil, nil, err
	}
	return o, append(r.notes, w...), nil
}
