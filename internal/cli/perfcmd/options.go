package perfcmd

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config"
)

// Options are a perf run's resolved options.
type Options struct {
	// Producer holds the connection, the topic and the producer's
	// options, resolved as a produce run's.
	Producer *config.Options
	// NumRecords is how many records to produce; 0: until Duration.
	NumRecords int64
	// Duration bounds the run; 0: until NumRecords.
	Duration time.Duration
	// Throughput is the most records per second handed to the producer;
	// 0 or less: no limit.
	Throughput float64
	// Payload says what the records' values are.
	Payload Payload
	// KeySize is the size of each record's key; 0: null keys.
	KeySize int
	// KeyCount is the number of distinct keys, chosen uniformly; 0: as
	// many as KeySize digits make.
	KeyCount uint64
	// Headers is the number of headers of each record, HeaderSize the
	// size of each header's value.
	Headers, HeaderSize int
	// WarmupRecords are the first records, left out of the steady-state
	// statistics.
	WarmupRecords int64
	// TransactionDuration is how long a transaction stays open before it
	// is committed; 0: no transactions.
	TransactionDuration time.Duration
	// PrintMetrics prints the producer's metrics after the summary.
	PrintMetrics bool
	// JSON prints one JSON object at the end instead of the text lines.
	JSON bool
	// ProgressJSON prints each window as a line of JSON (with JSON).
	ProgressJSON bool
	// Histogram prints the latency distribution after the summary.
	Histogram bool
	// ReportingInterval is the length of a window.
	ReportingInterval time.Duration
}

// Payload says what the records' values are: exactly one of Size (random
// printable bytes), Entries (from a file) or Monotonic (0, 1, 2, ...).
type Payload struct {
	Size      int
	File      string // the --payload-file, as given
	Delimiter []byte // the --payload-delimiter, its escapes decoded
	Entries   [][]byte
	Monotonic bool
}

// defaultTransactionDuration is kafka-producer-perf-test's.
const defaultTransactionDuration = 3 * time.Second

// defaultClientID is kafka-producer-perf-test's client id.
const defaultClientID = "perf-producer-client"

// addFlags defines perf's own flags, then the connection and producer
// flags every run shares.
func addFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringP("topic", "t", "", "`topic` to produce to (required)")
	fs.String("num-records", "", "produce `N` records (required unless --duration is given)")
	fs.String("duration", "", "produce for `duration` (30s, 10m; with --num-records, whichever ends first)")
	fs.String("record-size", "", "each value is `bytes` random printable characters (one of --record-size, --payload-file, --payload-monotonic)")
	fs.String("payload-file", "", "each value is an entry of `file`, picked at random (entries split at --payload-delimiter)")
	fs.String("payload-delimiter", `\n`, "`delimiter` of the --payload-file entries (escapes \\n \\t \\r \\xNN)")
	fs.Bool("payload-monotonic", false, "the values are 0, 1, 2, ... as text")
	fs.String("throughput", "-1", "hand at most `R` records per second to the producer, paced in batches (fractions allowed; -1: no limit)")
	fs.String("key-size", "0", "each record has a key of `bytes` digits (0: null keys, as kafka-producer-perf-test's)")
	fs.String("key-count", "0", "the keys are `N` distinct ones, chosen uniformly, so records spread over partitions as keyed traffic does (0: as many as --key-size digits make)")
	fs.String("headers", "0", "each record has `N` headers (h0, h1, ...)")
	fs.String("header-size", "0", "each header value is `bytes` random printable characters")
	fs.String("warmup-records", "0", "leave the first `N` records out of the steady-state summary, printed after the total")
	fs.String("transactional-id", "", "produce in transactions with this transactional `id`, each committed after --transaction-duration-ms")
	fs.String("transaction-duration-ms", "", "commit the open transaction every `ms` milliseconds (default 3000 with a transactional id; alone, it makes one: performance-producer-UUID)")
	fs.StringArray("producer-props", nil, "producer properties, several after one flag: `NAME=VALUE ...` (Java, librdkafka or rpk names, as -X)")
	fs.Bool("print-metrics", false, "print the producer's metrics after the summary")
	fs.StringP("output", "o", "text", "output `format`: text (kafka-producer-perf-test's lines) | json (one object at the end)")
	fs.Bool("progress-json", false, "with -o json, print each window as a line of JSON too")
	fs.Bool("histogram", false, "print the latency distribution as a bar chart after the summary")
	fs.String("reporting-interval", "5s", "print a window line every `duration`")
	config.AddProducerFlags(cmd)
}

// load resolves the options from the command's flags: perf's own, read
// from the command line only, and the connection and producer options,
// layered as a produce run's (flag > env > config file > default, -X and
// --producer-props for the properties). Its errors are usage errors.
func load(cmd *cobra.Command, stderr io.Writer) (*Options, error) {
	fs := cmd.Flags()
	if err := applyProducerProps(fs); err != nil {
		return nil, err
	}
	r := config.NewFlagReader(fs)
	def := config.ProducerDefaults{ClientID: defaultClientID}
	if r.Given("transaction-duration-ms") {
		def.TransactionalID = "performance-producer-" + newUUID()
	}
	prod, err := config.LoadProducer(fs, stderr, def)
	if err != nil {
		return nil, err
	}
	o := &Options{Producer: prod}
	o.read(r)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return o, o.readPayloadFile()
}

// applyProducerProps adds the --producer-props entries to the properties
// (-X), checking each is NAME=VALUE.
func applyProducerProps(fs *pflag.FlagSet) error {
	props, _ := fs.GetStringArray("producer-props") // defined by addFlags
	for _, p := range props {
		if name, _, ok := strings.Cut(p, "="); !ok || strings.TrimSpace(name) == "" {
			return cmdutil.UsageErrorf("--producer-props %q: want NAME=VALUE (several may follow the flag: --producer-props acks=all linger.ms=5)", p)
		}
		if err := fs.Set("property", p); err != nil {
			return cmdutil.AsUsageError(err)
		}
	}
	return nil
}

// read reads perf's own flags and checks them together, recording every
// problem in r.
func (o *Options) read(r *config.FlagReader) {
	if o.Producer.Topic == "" {
		r.Fail("topic", fmt.Errorf("%w: a topic is required (--topic TOPIC)", config.ErrBadValue))
	}
	o.readLength(r)
	o.readPayload(r)
	o.readKeysAndHeaders(r)
	o.readTransactions(r)
	o.Throughput = r.Float("throughput")
	if o.Throughput == 0 && !r.Failed("throughput") {
		r.FailValue("throughput", r.String("throughput"), fmt.Errorf("%w: want records per second above 0, or -1 for no limit", config.ErrBadValue))
	}
	o.PrintMetrics = r.Bool("print-metrics")
	o.JSON = r.Output() == "json"
	o.ProgressJSON = r.Bool("progress-json")
	if o.ProgressJSON && !o.JSON {
		r.Fail("progress-json", fmt.Errorf("%w: it goes with -o json (text output prints a window line anyway)", config.ErrBadValue))
	}
	o.Histogram = r.Bool("histogram")
	o.ReportingInterval = r.Duration("reporting-interval", true)
	if size := int64(o.Payload.Size) + int64(o.KeySize) + int64(o.Headers)*int64(o.HeaderSize); size > int64(o.Producer.MaxRequestSize) {
		r.Fail("record-size", fmt.Errorf("%w: a record of %d bytes (key, value and headers) cannot fit in a request of --max-request-size %d; "+
			"raise --max-request-size (and the topic's max.message.bytes) or make the records smaller", config.ErrBadValue, size, o.Producer.MaxRequestSize))
	}
}

// readLength reads how long the run is: --num-records, --duration and
// the warm-up.
func (o *Options) readLength(r *config.FlagReader) {
	if r.Given("num-records") {
		o.NumRecords = r.Integer("num-records", 1, math.MaxInt64)
	}
	if r.Given("duration") {
		o.Duration = r.Duration("duration", true)
	}
	if !r.Given("num-records") && !r.Given("duration") {
		r.Fail("num-records", fmt.Errorf("%w: say how many records to produce (--num-records N) or for how long (--duration 30s)", config.ErrBadValue))
	}
	o.WarmupRecords = r.Integer("warmup-records", 0, math.MaxInt64)
	if o.NumRecords > 0 && o.WarmupRecords >= o.NumRecords {
		r.Fail("warmup-records", fmt.Errorf("%w: must be fewer than --num-records %d", config.ErrBadValue, o.NumRecords))
	}
}

// readPayload reads the one payload source.
func (o *Options) readPayload(r *config.FlagReader) {
	var given []string
	for _, name := range []string{"record-size", "payload-file", "payload-monotonic"} {
		if r.Given(name) {
			given = append(given, "--"+name)
		}
	}
	if len(given) != 1 {
		what := "none is given"
		if len(given) > 1 {
			what = strings.Join(given, " and ") + " are given"
		}
		r.Fail("record-size", fmt.Errorf("%w: exactly one of --record-size, --payload-file and --payload-monotonic says what the values are; %s", config.ErrBadValue, what))
		return
	}
	switch given[0] {
	case "--record-size":
		o.Payload.Size = int(r.Size("record-size", 1, math.MaxInt32))
	case "--payload-file":
		o.Payload.File = r.String("payload-file")
		o.Payload.Delimiter = r.Escaped("payload-delimiter")
		if r.Given("payload-delimiter") && len(o.Payload.Delimiter) == 0 {
			r.Fail("payload-delimiter", fmt.Errorf("%w: an empty delimiter splits nothing", config.ErrBadValue))
		}
	default:
		o.Payload.Monotonic = r.Bool("payload-monotonic")
		if !o.Payload.Monotonic {
			r.FailValue("payload-monotonic", "false", fmt.Errorf("%w: give --record-size or --payload-file instead", config.ErrBadValue))
		}
	}
}

// maxKeyDigits is the most digits of a key number: keys longer than that
// are padded with zeros.
const maxKeyDigits = 19

// readKeysAndHeaders reads the keys' and headers' sizes and counts.
func (o *Options) readKeysAndHeaders(r *config.FlagReader) {
	o.KeySize = int(r.Size("key-size", 0, math.MaxInt32))
	o.KeyCount = uint64(r.Integer("key-count", 0, math.MaxInt64))
	if o.KeyCount > 0 && o.KeySize == 0 {
		o.KeySize = len(strconv.FormatUint(o.KeyCount-1, 10))
	}
	if o.KeyCount > 0 && o.KeySize < maxKeyDigits && o.KeyCount > pow10(o.KeySize) {
		r.Fail("key-count", fmt.Errorf("%w: %d distinct keys need at least %d digits; --key-size is %d",
			config.ErrBadValue, o.KeyCount, len(strconv.FormatUint(o.KeyCount-1, 10)), o.KeySize))
	}
	o.Headers = int(r.Integer("headers", 0, 1<<16))
	o.HeaderSize = int(r.Size("header-size", 0, math.MaxInt32))
	if o.HeaderSize > 0 && o.Headers == 0 {
		o.Headers = 1
	}
}

// readTransactions reads --transaction-duration-ms: transactions are on
// when a transactional id is set (--transactional-id, a property, the
// config file) or the duration is given, as in kafka-producer-perf-test.
func (o *Options) readTransactions(r *config.FlagReader) {
	if r.Given("transaction-duration-ms") {
		o.TransactionDuration = time.Duration(r.Integer("transaction-duration-ms", 1, math.MaxInt32)) * time.Millisecond
	}
	if o.Producer.TransactionalID != "" && o.TransactionDuration == 0 {
		o.TransactionDuration = defaultTransactionDuration
	}
}

// absPath is path made absolute, as kafka-producer-perf-test prints it.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// pow10 is 10^n for n < maxKeyDigits.
func pow10(n int) uint64 {
	p := uint64(1)
	for range n {
		p *= 10
	}
	return p
}

// newUUID returns a random UUID (version 4) as text.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
