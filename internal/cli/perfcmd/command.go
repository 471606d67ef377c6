package perfcmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// Name is the subcommand's name.
const Name = "perf"

// NewCommand returns kproduce perf: a load test of a cluster, as Apache
// Kafka's kafka-producer-perf-test runs it. Running it resolves the
// options and hands them to runF, or, when runF is nil, runs the test and
// returns an error that gives the exit status. Its command line must have
// gone through ExpandArgs.
func NewCommand(s cmdutil.Streams, runF func(context.Context, *Options) error) *cobra.Command {
	if runF == nil {
		runF = func(ctx context.Context, o *Options) error { return runPerf(ctx, o, s) }
	}
	cmd := cmdutil.NewSubcommand(Name+" --topic TOPIC (--num-records N | --duration D) (--record-size B | --payload-file F | --payload-monotonic) [flags]",
		"Load-test a cluster as kafka-producer-perf-test does: throughput and latency of every record",
		longHelp, examples)
	cmd.Aliases = []string{"perf-test"}
	addFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		o, err := load(cmd, s.Err)
		if err != nil {
			return err
		}
		return runF(cmd.Context(), o)
	}
	return cmd
}

// longHelp is the Long section of the help text.
const longHelp = `kproduce perf produces records it makes itself, as fast as the cluster
takes them or at --throughput records per second, through the same producer
as a produce run (every connection, security, acks, idempotence,
compression, linger and batch setting applies), and measures the latency of
every record, from the moment it is handed to the producer to its
acknowledgement, to the microsecond.

kafka-producer-perf-test's flags work with their meaning: --topic,
--num-records, one of --record-size (random printable characters),
--payload-file (with --payload-delimiter) or --payload-monotonic,
--throughput (-1: no limit), --producer-props NAME=VALUE ... (several after
one flag; also --command-property), --producer.config and --command-config
(a properties file), --bootstrap-server, --print-metrics,
--transactional-id, --transaction-duration-ms and --warmup-records.
Beyond it: keyed records (--key-size, --key-count), headers (--headers,
--header-size), --duration instead of --num-records, -o json, and
--histogram.

Output (text): kafka-producer-perf-test's lines, so that scripts that read
them keep working. Every --reporting-interval (5s), once a record is
acknowledged after it:
  N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max latency.
At the end (MB = 2^20 bytes; percentiles of every record, in whole ms):
  N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max latency,
  P ms 50th, P ms 95th, P ms 99th, P ms 99.9th.
With --warmup-records, "In steady state." before the first window after the
warm-up, and the same line for the steady state ("N steady state records
sent, ...") after the total. -o json prints one JSON object instead
(records, bytes, seconds, records_per_sec, mb_per_sec, latency_ms with avg,
min, max, p50, p90, p95, p99, p999, failures by reason, per partition and
per broker, the settings; see docs/perf.md), and the windows as lines of
JSON with --progress-json.

Exit status: 0 when every record was acknowledged; 1 when one failed (the
failures are counted by reason on stderr) or the cluster could not be
reached; 2 bad usage (nothing sent); 130 interrupted.`

// examples is the Examples section of the help text.
const examples = `  # kafka-producer-perf-test's command line, as is
  kproduce perf --topic perf --num-records 1000000 --record-size 100 --throughput -1 \
    --producer-props bootstrap.servers=kafka:9092 acks=all linger.ms=5

  # keyed load over 10,000 keys, 5,000 records/s for a minute, one JSON summary
  kproduce perf -b kafka:9092 -t perf --duration 1m --throughput 5000 \
    --record-size 512 --key-count 10000 -o json

  # CI: fail when the p99 latency is above 50 ms
  kproduce perf -b "$KAFKA" -t perf --num-records 100000 --record-size 100 -o json |
    jq -e '.latency_ms.p99 <= 50'`
