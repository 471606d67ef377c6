package producecmd

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config"
)

// RunFunc runs a produce command with its resolved options; its error
// gives the exit status (see cmdutil.ExitCode).
type RunFunc func(ctx context.Context, opts *config.Options) error

// NewCommand returns the produce command, kproduce itself: it reads
// records from FILEs or stdin and produces them. Running it resolves the
// options and hands them to runF, or, when runF is nil, produces and
// returns an error that gives the exit status (cmdutil.Exit once it
// printed everything). The caller adds the subcommands.
func NewCommand(s cmdutil.Streams, runF RunFunc) *cobra.Command {
	if runF == nil {
		runF = func(ctx context.Context, opts *config.Options) error {
			return cmdutil.Exit(runProduce(ctx, opts, s))
		}
	}
	cmd := &cobra.Command{
		Use:   "kproduce [flags] [FILE ...]",
		Short: "Produce records to Kafka from stdin or files",
		Long: `kproduce produces records to Kafka from FILEs, or from stdin when no FILE is
given or FILE is "-". Every option can also be set with an environment
variable (KPRODUCE_ and the long flag name in upper case, '-' as '_', e.g.
KPRODUCE_BROKERS), in a config file (--config, KPRODUCE_CONFIG, else
~/.config/kproduce/config.yaml): YAML whose keys are the long flag names,
with named --profile sets, or a properties file (Java's producer.properties,
kcat's librdkafka file), or as a property (-X NAME=VALUE with the Java
client's, librdkafka's or rpk's names; -X help lists them).
Precedence: flag (and -X) > environment > config file > default.
kproduce config shows the effective settings and where each came from.

kcat's, kafka-console-producer's and rpk's flags work with their meaning
(-P, -F, -Z, -l, -q, -v; --bootstrap-server, --property parse.key=true,
--producer.config, --timeout, --sync; -f '%k %v\n', -H k:v; see
docs/coming-from.md).

Input formats (-f):
  lines  records split at -D (default newline; a last record needs none);
         -K splits a key off each line; CR is kept unless -D says '\r\n';
         --header-delimiter splits headers (k1:v1,k2:v2) off the start
  json   one object per line: {"topic":..,"partition":..,"key":..,
         "value":.. (or "payload"),"headers":..,"timestamp":.. (or "ts", ms)};
         kcat -J output is read as is; strings are the raw bytes (no base64);
         null is a null key or value; other JSON values are sent as compact
         JSON text; blank lines are skipped
  file   each FILE (or all of stdin) is one record, byte for byte
  '%k %v\n' and other rpk-style format strings (%t %k %v %h %p %d, sizes
         %T %K %V %H in ASCII or binary): see docs/formats.md

One report per record goes to stdout (-o); failures go to stderr.
Exit status: 0 all delivered, 1 some record failed, 2 bad usage (nothing
sent), 130 interrupted.

The subcommands metadata and check inspect and smoke-test a cluster (see
kproduce metadata --help, kproduce check --help); config and version show
the settings and the build. A FILE named like a subcommand (or help) is
given as a path: kproduce -t t ./check`,
		Example:       usageExamples,
		Args:          cobra.ArbitraryArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if done, err := config.PropertyHelp(cmd.Flags(), s.Out); done || err != nil {
				return cmdutil.AsUsageError(err)
			}
			if err := checkSubcommandTypo(cmd, args); err != nil {
				return err
			}
			opts, err := config.Load(cmd.Flags(), args, s.Err)
			if err != nil {
				return err
			}
			return runF(cmd.Context(), opts)
		},
	}
	cmd.SuggestionsMinimumDistance = 2
	cmd.SetIn(s.In)
	cmd.SetOut(s.Out)
	cmd.SetErr(s.Err)
	config.AddFlags(cmd.Flags())
	cmdutil.RegisterChoices(cmd, config.Choices())
	return cmd
}

// checkSubcommandTypo refuses a FILE that does not exist but is close to
// a subcommand's name (kproduce metdata), naming the subcommand.
func checkSubcommandTypo(cmd *cobra.Command, args []string) error {
	if a, sub := SubcommandTypo(cmd, args); a != "" {
		return cmdutil.UsageErrorf("%q is neither a file nor a subcommand; did you mean kproduce %s?", a, sub)
	}
	return nil
}

// SubcommandTypo returns the first of args that is not an existing file
// but is close to the name of one of cmd's subcommands, and that
// subcommand's name; "" when there is none.
func SubcommandTypo(cmd *cobra.Command, args []string) (arg, subcommand string) {
	for _, a := range args {
		if a == "-" || strings.ContainsAny(a, "/.") {
			continue
		}
		s := cmd.SuggestionsFor(a) // before the stat: most FILE arguments are like no subcommand
		if len(s) == 0 {
			continue
		}
		if _, err := os.Stat(a); errors.Is(err, fs.ErrNotExist) {
			return a, s[0]
		}
	}
	return "", ""
}

// usageExamples is the Examples section of the help text.
const usageExamples = `  # Piping lines from a shell script: one record per line, reports on stdout
  # (TOPIC/PARTITION@OFFSET), failures on stderr; exit 0 only if all were delivered
  printf 'user1\tlogin\nuser2\tlogout\n' | kproduce -b kafka:9092 -t events -K '\t'
  tail -F app.log | kproduce -t app-logs -o none

  # Batch-loading files: several files in order, compressed; a failure names
  # its file and line (orders-2.txt:1734)
  kproduce -b kafka:9092 -t orders -z zstd -o none orders-*.txt
  kcat -C -b src:9092 -t events -J -e | kproduce -b dst:9092 -f json
  kproduce -t blobs -f file -k img a.png b.png -o '%s -> %p@%o\n'

  # Smoke-testing a cluster in CI: ten records, one JSON report each
  seq 10 | kproduce -b "$KAFKA" -t smoke -o json --delivery-timeout 30s
  kproduce check -b "$KAFKA" -t smoke --create --count 3 --timeout 30s

  # Where would each record go? Nothing is sent (--partitions N: offline)
  kproduce -t orders -K : --dry-run orders.txt

  # A file as one transaction (read_committed consumers see all or nothing);
  # at most 500 records/s, with a summary at the end
  kproduce -t orders --transactional-id orders-load --rate 500 --stats orders.txt

  # Java producer properties: a file, or one at a time
  kproduce -t events --config producer.properties -X linger.ms=20 < data.txt

  # kafka-console-producer's and kcat's habits: keys and headers in the lines
  kafka_lines | kproduce --bootstrap-server kafka:9092 --topic events \
    --property parse.key=true --property parse.headers=true
  kproduce -P -b kafka -t events -F kcat.conf -K : -Z < data.txt

  # JSON lines as Avro (or Protobuf, JSON Schema), registered in a Schema Registry
  kproduce -t orders --schema-registry http://sr:8081 --value-schema order.avsc < orders.json

  # TLS with a private CA, SCRAM credentials; the password from the environment
  KPRODUCE_SASL_PASSWORD=s3cret kproduce -b kafka:9093 -t events --tls-ca ca.pem \
    --sasl-mechanism SCRAM-SHA-512 --sasl-username alice < data.txt`
