package config

import (
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/internal/cli/report"
	"github.com/kproduce/kproduce/pkg/protocol"
	"github.com/kproduce/kproduce/pkg/sender"
)

// Connection is what every command resolves the same way: where the
// cluster is, how to connect to it, the topic, and where logs go. Flag >
// env KPRODUCE_* > config file > default, -X and .properties files for the
// Java names.
type Connection struct {
	// Brokers are the bootstrap brokers, host:port each.
	Brokers []string
	// Topic is the -t topic; "" when not given.
	Topic string
	// ClientID is sent in every request header.
	ClientID string
	// RequestTimeout bounds the wait for one response.
	RequestTimeout time.Duration
	// BootstrapTimeout bounds the wait for the cluster's first answer
	// (0: the delivery timeout, or a subcommand's --timeout).
	BootstrapTimeout time.Duration
	// GiveUpAt, when not zero, is when the command gives up (a
	// subcommand's --timeout): no notice announces retries past it.
	GiveUpAt time.Time
	// NoticeOut is where the connection notices are printed (stderr), nil
	// when the log level is above warn.
	NoticeOut io.Writer
	// Security holds the TLS and SASL settings (flags, environment, config
	// file and the Java security properties merged), and the TLS
	// configuration and SASL mechanism built from them.
	Security SecurityOptions
	// JavaSecurity holds the Java security properties given with -X or a
	// properties file (security.protocol, sasl.mechanism, sasl.jaas.config,
	// ssl.*), verbatim; their meaning is in Security. They may hold
	// secrets: never log them unredacted.
	JavaSecurity map[string]string
	// ConfigFile is the --config file, "" when none.
	ConfigFile string
	// LogLevel is the level of the logs on stderr.
	LogLevel zerolog.Level
	// Logger writes logs to stderr at LogLevel.
	Logger zerolog.Logger
}

// Options is the resolved and validated configuration of one produce
// run: flags, environment, config file, -X properties and defaults merged.
type Options struct {
	Connection
	// Input says how the inputs are split into records.
	Input input.Config
	// Schemas are the Schema Registry settings; ResolveSchemas sets the
	// input's encoders from them.
	Schemas SchemaOptions

	// ForceTopic says the topic was given on the command line (-t): every
	// record goes to it, whatever topic the record names.
	ForceTopic bool
	// Partition is the fixed partition, or -1 to use the partitioner.
	Partition int32
	// Partitioner is one of sender.Partitioners.
	Partitioner string
	// Count stops the run after this many records; 0 means no limit.
	Count int64
	// DryRun routes and prints every record instead of sending it.
	DryRun bool
	// DryRunPartitions is every topic's partition count in a dry run, so
	// that it needs no cluster; 0 asks the cluster.
	DryRunPartitions int
	// Files are the inputs; "-" is stdin. Empty means stdin.
	Files []string

	// Acks is all (-1), 1 or 0.
	Acks sender.Acks
	// Idempotence enables the idempotent producer (implies Acks == -1).
	Idempotence bool
	// Linger is how long a batch waits for more records.
	Linger time.Duration
	// BatchSize is the largest record batch in bytes.
	BatchSize int
	// BufferMemory is the budget of records waiting to be sent, in bytes.
	BufferMemory int64
	// MaxRequestSize is the largest produce request in bytes.
	MaxRequestSize int
	// Compression is the batch compression codec.
	Compression protocol.Codec
	// CompressionLevel is the codec's level (protocol.DefaultCompressionLevel:
	// its default).
	CompressionLevel int
	// CompressionWorkers is how many batches are compressed at once (0: on
	// the producer's goroutine, as requests are built).
	CompressionWorkers int
	// MaxInFlight is the most unacknowledged requests per broker.
	MaxInFlight int
	// Sync waits for each record's outcome before the next is read.
	Sync bool
	// Retries is the most retries of a failed batch; -1 means until the
	// delivery timeout.
	Retries int
	// DeliveryTimeout bounds the time from reading a record to its outcome.
	DeliveryTimeout time.Duration
	// CloseTimeout bounds the flush after SIGINT, SIGTERM or SIGHUP.
	CloseTimeout time.Duration
	// RetryBackoff is the wait before a retry.
	RetryBackoff time.Duration
	// MetadataMaxAge forces a metadata refresh at least this often.
	MetadataMaxAge time.Duration
	// AllowAutoTopicCreation asks the brokers, in every Metadata request,
	// to create a topic that does not exist (their
	// auto.create.topics.enable decides).
	AllowAutoTopicCreation bool
	// TransactionalID makes the run transactional; "" means not.
	TransactionalID string
	// TransactionRecords commits every this many records (each chunk its
	// own transaction); 0 means one transaction for the whole input.
	TransactionRecords int64
	// TransactionTimeout is the transaction timeout the coordinator applies.
	TransactionTimeout time.Duration
	// Resume commits a checkpoint in every transaction and skips what
	// earlier runs with the same transactional id committed.
	Resume bool
	// ResumeTopic is the topic of the checkpoints.
	ResumeTopic string

	// Output is the format of the per-record reports on stdout.
	Output report.Format
	// Rate is the most records per second handed to the producer; 0 means
	// no limit.
	Rate float64
	// Progress is when the progress bar is drawn: auto, always or never.
	Progress string
	// Stats prints the run's summary on stderr at exit.
	Stats bool
	// StatsJSON is the file the summary is written to as JSON; "" means
	// none, "-" stdout.
	StatsJSON string
}

// buildOptions reads and validates every option. files are the command's
// arguments; requireTopic says a run needs a topic (kproduce config does
// not). It returns the options, warnings to log, and a usage error
// listing every problem found.
func buildOptions(vals optionValues, files []string, requireTopic bool) (*Options, []string, error) {
	r := &optionReader{vals: vals}
	o := &Options{Files: files}
	r.readTarget(o)
	r.readInput(o, requireTopic)
	r.readSchemas(o, requireTopic)
	r.readProducer(o)
	r.readRunMode(o)
	r.readOutput(o)
	r.readLogLevel(&o.Connection)
	r.readRunReport(o)
	r.readSecurity(&o.Connection)
	r.readDryRun(o)
	checkFiles(r, files)
	if err := r.err(); err != nil {
		return nil, nil, cmdutil.AsUsageError(err)
	}
	if err := o.checkRecordLimit(vals.IsSet("max-record-bytes")); err != nil {
		return nil, nil, cmdutil.AsUsageError(err)
	}
	w, err := o.applyProducerRules(vals)
	if err != nil {
		return nil, nil, err
	}
	return o, append(r.notes, w...), nil
}

// applyProducerRules applies the rules the Java client applies between
// the producer's options (retries, transactions, idempotence, timeouts)
// and returns the warnings to log; its error is a usage error.
func (o *Options) applyProducerRules(vals optionValues) ([]string, error) {
	explicit := vals.IsSet("idempotence")
	if err := o.applyRetryRules(explicit); err != nil {
		return nil, cmdutil.AsUsageError(err)
	}
	if err := o.applyTransactionRules(explicit); err != nil {
		return nil, cmdutil.AsUsageError(err)
	}
	if err := o.applyIdempotenceRules(explicit); err != nil {
		return nil, cmdutil.AsUsageError(err)
	}
	w, err := o.fitRequestTimeout(vals.IsSet("request-timeout") && vals.IsSet("delivery-timeout"))
	if err != nil {
		return nil, cmdutil.AsUsageError(err)
	}
	if w != "" {
		return []string{w}, nil
	}
	return nil, nil
}

// readTarget reads where records go.
func (r *optionReader) readTarget(o *Options) {
	r.readBrokers(&o.Connection)
	o.Topic = strings.TrimSpace(r.str("topic"))
	o.ForceTopic = o.Topic != "" && r.flagGiven("topic")
	o.Partition = int32(r.integer("partition", -1, math.MaxInt32))
	// The readers give each record its topic and partition.
	o.Input.Topic, o.Input.ForceTopic, o.Input.Partition = o.Topic, o.ForceTopic, o.Partition
	o.Partitioner = r.oneOf("partitioner", sender.Partitioners()...)
}

// readBrokers reads the bootstrap brokers.
func (r *optionReader) readBrokers(o *Connection) {
	for _, b := range r.list("brokers") {
		for _, addr := range splitList(b) {
			addr = withDefaultPort(addr)
			if err := checkHostPort(addr); err != nil {
				r.failValue("brokers", addr, err)
			}
			o.Brokers = append(o.Brokers, addr)
		}
	}
	if len(o.Brokers) == 0 {
		r.fail("brokers", fmt.Errorf("%w: at least one host:port is needed", ErrBadValue))
	}
}

// readProducer reads the producer's settings.
func (r *optionReader) readProducer(o *Options) {
	switch a := strings.ToLower(strings.TrimSpace(r.str("acks"))); a {
	case "all", "-1":
		o.Acks = sender.AllAcks
	case "1":
		o.Acks = sender.LeaderAck
	case "0":
		o.Acks = sender.NoAck
	default:
		r.failValue("acks", a, fmt.Errorf("%w: want all, -1, 1 or 0", ErrBadValue))
	}
	o.Idempotence = r.boolean("idempotence")
	o.Linger = r.duration("linger", false)
	o.BatchSize = int(r.size("batch-size", 1, math.MaxInt32))
	o.BufferMemory = r.size("buffer-memory", 1, math.MaxInt64)
	o.MaxRequestSize = int(r.size("max-request-size", 1, math.MaxInt32))
	r.readCompression(o)
	o.MaxInFlight = int(r.integer("max-in-flight", 1, math.MaxInt32))
	o.Retries = int(r.integer("retries", -1, math.MaxInt32))
	o.RequestTimeout = r.duration("request-timeout", true)
	o.DeliveryTimeout = r.duration("delivery-timeout", true)
	o.BootstrapTimeout = r.duration("bootstrap-timeout", false)
	o.CloseTimeout = r.duration("close-timeout", false)
	o.RetryBackoff = r.duration("retry-backoff", false)
	o.MetadataMaxAge = r.duration("metadata-max-age", true)
	o.AllowAutoTopicCreation = r.boolean("allow-auto-topic-creation")
	o.ClientID = r.str("client-id")
	o.TransactionalID = strings.TrimSpace(r.str("transactional-id"))
	o.TransactionTimeout = r.duration("transaction-timeout", true)
	if o.TransactionTimeout > math.MaxInt32*time.Millisecond && !r.failed("transaction-timeout") {
		r.fail("transaction-timeout", fmt.Errorf("%w: at most %s", ErrBadValue, math.MaxInt32*time.Millisecond))
	}
}

// readRunMode reads how a produce run hands its input to the producer:
// --sync, and the chunks and checkpoints of a transactional run.
func (r *optionReader) readRunMode(o *Options) {
	o.Sync = r.boolean("sync")
	o.TransactionRecords = r.integer("transaction-records", 0, math.MaxInt64)
	o.Resume = r.boolean("resume")
	o.ResumeTopic = strings.TrimSpace(r.str("resume-topic"))
}

// readOutput reads the format of the reports.
func (r *optionReader) readOutput(o *Options) {
	s := r.str("output")
	f, err := report.ParseFormat(s)
	if err != nil {
		r.failValue("output", s, err)
	}
	o.Output = f
}

// LogLevels are the levels --log-level takes, the most verbose first.
func LogLevels() []string { return []string{"trace", "debug", "info", "warn", "error", "disabled"} }

// readLogLevel reads the level of the logs on stderr.
func (r *optionReader) readLogLevel(o *Connection) {
	lvl := strings.ToLower(strings.TrimSpace(r.str("log-level")))
	l, err := zerolog.ParseLevel(lvl)
	if err != nil || lvl == "" {
		r.failValue("log-level", lvl, fmt.Errorf("%w: want trace, debug, info, warn, error or disabled", ErrBadValue))
	}
	o.LogLevel = l
}

// oneOf reads an option whose value must be one of names.
func (r *optionReader) oneOf(key string, names ...string) string {
	s := strings.ToLower(strings.TrimSpace(r.str(key)))
	for _, n := range names {
		if s == n {
			return s
		}
	}
	r.failValue(key, s, fmt.Errorf("%w: want %s", ErrBadValue, strings.Join(names, ", ")))
	return s
}

// checkFiles rejects reading stdin twice.
func checkFiles(r *optionReader, files []string) {
	stdin := 0
	for _, f := range files {
		if f == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		r.errs = append(r.errs, fmt.Errorf("%w: stdin (-) given %d times", ErrBadValue, stdin))
	}
}

// defaultBrokerPort is the port of a broker given as a host alone, as
// in kcat and the Java client.
const defaultBrokerPort = "9092"

// withDefaultPort adds the default port to a host given without one
// (kafka, 10.0.0.1, [::1]).
func withDefaultPort(addr string) string {
	switch {
	case addr == "":
		return addr
	case strings.HasPrefix(addr, "[") && strings.HasSuffix(addr, "]"):
		return addr + ":" + defaultBrokerPort
	case !strings.Contains(addr, ":"):
		return addr + ":" + defaultBrokerPort
	}
	return addr
}

// checkHostPort checks a broker address.
func checkHostPort(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return fmt.Errorf("%w: want host:port", ErrBadValue)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("%w: port must be 1-65535", ErrBadValue)
	}
	return nil
}
