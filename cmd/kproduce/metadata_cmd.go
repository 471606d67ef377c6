package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/kproduce/kproduce/pkg/admin"
)

// metadataFlags are kproduce metadata's own options.
type metadataFlags struct {
	output  string
	timeout time.Duration
}

// newMetadataCommand returns kproduce metadata: the cluster's brokers,
// topics and the API versions kproduce would use, like kcat -L.
func newMetadataCommand(s Streams, code *int) *cobra.Command {
	cmd := newSubcommand("metadata [flags]",
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
	fs.String("timeout", defaultSubcommandTimeout.String(), "give up on the cluster after `duration`")
	addConnectionFlags(fs)
	cmd.RunE = subcommandRunE(s, code, func(cmd *cobra.Command, opts *Options) (int, error) {
		r := &optionReader{vals: flagValues{cmd.Flags()}}
		f := metadataFlags{output: readSubcommandOutput(r), timeout: r.duration("timeout", true)}
		if err := r.err(); err != nil {
			return exitUsage, asUsageError(err)
		}
		return runMetadata(cmd.Context(), opts, f, s), nil
	})
	return cmd
}

// runMetadata fetches and prints the metadata; it returns the exit status.
func runMetadata(parent context.Context, opts *Options, f metadataFlags, s Streams) int {
	ctx, cancel := context.WithTimeout(parent, f.timeout)
	defer cancel()
	client, err := admin.New(adminConfig(opts))
	if err != nil {
		printError(s.Err, asUsageError(err))
		return exitUsage
	}
	defer client.Close()
	var topics []string
	if opts.Topic != "" {
		topics = []string{opts.Topic}
	}
	md, err := client.Metadata(ctx, topics)
	if err != nil {
		return subcommandFailure(parent, s, err)
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
		return exitInterrupted
	}
	if err := printMetadata(rep, f.output, s); err != nil {
		printError(s.Err, err)
		return exitFailed
	}
	if rep.failed() {
		return exitFailed
	}
	return exitOK
}

// printMetadata writes the report on stdout; in text mode, the errors of
// topics and brokers also go to stderr.
func printMetadata(rep *metadataReport, output string, s Streams) error {
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

// subcommandFailure prints err and returns the exit status: 130 when the
// run was interrupted, 1 otherwise.
func subcommandFailure(parent context.Context, s Streams, err error) int {
	if parent.Err() != nil || errors.Is(err, context.Canceled) {
		printError(s.Err, err)
		return exitInterrupted
	}
	printError(s.Err, err)
	return exitFailed
}
