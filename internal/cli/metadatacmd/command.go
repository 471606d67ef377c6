package metadatacmd

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config"
	"github.com/kproduce/kproduce/pkg/admin"
)

// Options are a metadata run's resolved options.
type Options struct {
	Connection *config.Connection
	Output     string        // text or json
	Timeout    time.Duration // gives up on the cluster after it
}

// NewCommand returns kproduce metadata: the cluster's brokers, topics and
// the API versions kproduce would use, like kcat -L. Running it resolves
// the options and hands them to runF, or, when runF is nil, prints the
// metadata and returns an error that gives the exit status.
func NewCommand(s cmdutil.Streams, runF func(context.Context, *Options) error) *cobra.Command {
	if runF == nil {
		runF = func(ctx context.Context, opts *Options) error { return cmdutil.Exit(runMetadata(ctx, opts, s)) }
	}
	cmd := cmdutil.NewSubcommand("metadata [flags]",
		"Show the cluster's brokers, topics and API versions",
		`kproduce metadata shows the cluster's brokers (id, address, rack, the
controller), its topics (or the -t one) with their partitions' leaders,
replicas, in-sync replicas and errors, and for each broker the versions of
the APIs kproduce speaks that kproduce would use with it (the highest both
speak), or "unsupported".

Exit status: 0 ok; 1 when the cluster cannot be reached within --timeout, a
topic has an error (e.g. UNKNOWN_TOPIC_OR_PARTITION: it does not exist) or
a broker could not be asked for its versions; 2 bad usage.`,
		`  kproduce metadata -b kafka:9092
  kproduce metadata -b kafka:9092 -t events -o json | jq '.topics[0].partitions'`,
	)
	fs := cmd.Flags()
	fs.StringP("topic", "t", "", "describe only `topic` (default: every topic)")
	fs.StringP("output", "o", "text", "output `format`: text | json")
	fs.String("timeout", cmdutil.DefaultSubcommandTimeout.String(), "give up on the cluster after `duration`")
	config.AddSubcommandFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		conn, err := config.LoadConnection(cmd.Flags(), s.Err)
		if err != nil {
			return err
		}
		r := config.NewFlagReader(cmd.Flags())
		opts := &Options{Connection: conn, Output: r.Output(), Timeout: r.Duration("timeout", true)}
		if err := r.Err(); err != nil {
			return err
		}
		conn.BoundBootstrap(opts.Timeout, time.Now())
		return runF(cmd.Context(), opts)
	}
	return cmd
}

// runMetadata fetches and prints the metadata; it returns the exit status.
func runMetadata(parent context.Context, f *Options, s cmdutil.Streams) int {
	opts := f.Connection
	ctx, cancel := context.WithTimeout(parent, f.Timeout)
	defer cancel()
	client, err := admin.New(opts.AdminConfig())
	if err != nil {
		cmdutil.PrintError(s.Err, cmdutil.AsUsageError(err))
		return cmdutil.ExitUsage
	}
	defer client.Close()
	var topics []string
	if opts.Topic != "" {
		topics = []string{opts.Topic}
	}
	md, err := client.Metadata(ctx, topics)
	if err != nil {
		return cmdutil.FailureStatus(parent, s, err)
	}
	rep := newMetadataReport(md)
	for i := range rep.Brokers {
		b := &rep.Brokers[i]
		bctx, bcancel := brokerContext(ctx, len(rep.Brokers)-i)
		versions, err := client.BrokerVersions(bctx, b.ID)
		bcancel()
		if err != nil {
			msg := fmt.Sprintf("broker %d (%s): %v", b.ID, b.addr(), err)
			b.Error = &msg
			continue
		}
		rep.setVersions(b, versions)
	}
	if parent.Err() != nil {
		return cmdutil.ExitInterrupted
	}
	if err := printMetadata(rep, f.Output, s); err != nil {
		cmdutil.PrintError(s.Err, err)
		return cmdutil.ExitFailed
	}
	if rep.failed() {
		return cmdutil.ExitFailed
	}
	return cmdutil.ExitOK
}

// printMetadata writes the report on stdout; in text mode, the errors of
// topics and brokers also go to stderr.
func printMetadata(rep *metadataReport, output string, s cmdutil.Streams) error {
	if output == "json" {
		enc := json.NewEncoder(s.Out)
		return enc.Encode(rep)
	}
	if err := rep.writeText(s.Out); err != nil {
		return err
	}
	for _, b := range rep.Brokers {
		if b.Error != nil {
			fmt.Fprintf(s.Err, "error: %s\n", *b.Error)
		}
	}
	for _, t := range rep.Topics {
		if t.Error != nil {
			fmt.Fprintf(s.Err, "error: topic %s: %s\n", t.Name, *t.Error)
		}
	}
	return nil
}

// brokerContext gives one of n brokers still to ask its share of the time
// left, so that one unreachable broker does not use up the others' time.
func brokerContext(ctx context.Context, n int) (context.Context, context.CancelFunc) {
	d, ok := ctx.Deadline()
	if !ok || n <= 1 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, time.Until(d)/time.Duration(n))
}
