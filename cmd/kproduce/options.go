package main

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// The input formats.
const (
	formatLines = "lines"
	formatJSON  = "json"
	formatFile  = "file"
)

// The partitioners.
const (
	partitionerMurmur2    = "murmur2"
	partitionerRoundRobin = "round-robin"
	partitionerRandom     = "random"
	partitionerCRC32      = "crc32"
)

// The acks values, as sent in a ProduceRequest.
const (
	acksAll  int16 = -1
	acksOne  int16 = 1
	acksNone int16 = 0
)

// maxIdempotentInFlight is the most in-flight requests per broker an
// idempotent producer may have (Kafka keeps the last five batches per
// producer for duplicate detection).
const maxIdempotentInFlight = 5

// Options is the resolved and validated configuration of one kproduce run:
// flags, environment, config file, -X properties and defaults merged.
type Options struct {
	// Brokers are the bootstrap brokers, host:port each.
	Brokers []string
	// Topic is the default topic; "" only with the json format.
	Topic string
	// Partition is the fixed partition, or -1 to use the partitioner.
	Partition int32
	// Partitioner is murmur2, round-robin, random or crc32.
	Partitioner string

	// Format is the input format: lines, json or file.
	Format string
	// Delimiter separates records in the lines and json formats (never empty).
	Delimiter []byte
	// KeyDelimiter splits a line into key and value; nil means no split.
	KeyDelimiter []byte
	// Key is the key of every record without a key of its own; nil: none.
	Key []byte
	// Headers are added to every record, after the record's own headers.
	Headers []protocol.Header
	// NullMarker is the key or value sent as null when NullEnabled.
	NullMarker []byte
	// NullEnabled says whether --null was given (it may be the empty string).
	NullEnabled bool
	// SkipEmpty skips empty input records (they still use a record number).
	SkipEmpty bool
	// MaxRecordBytes is the largest raw input record accepted.
	MaxRecordBytes int64
	// Count stops the run after this many records; 0 means no limit.
	Count int64
	// DryRun routes and prints every record instead of sending it.
	DryRun bool
	// DryRunPartitions is every topic's partition count in a dry run, so
	// that it needs no cluster; 0 asks the cluster.
	DryRunPartitions int
	// Files are the inputs; "-" is stdin. Empty means stdin.
	Files []string

	// Acks is -1 (all), 1 or 0.
	Acks int16
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
	// MaxInFlight is the most unacknowledged requests per broker.
	MaxInFlight int
	// RequestTimeout bounds the wait for one response.
	RequestTimeout time.Duration
	// DeliveryTimeout bounds the time from reading a record to its outcome.
	DeliveryTimeout time.Duration
	// CloseTimeout bounds the flush after SIGINT or SIGTERM.
	CloseTimeout time.Duration
	// RetryBackoff is the wait before a retry.
	RetryBackoff time.Duration
	// MetadataMaxAge forces a metadata refresh at least this often.
	MetadataMaxAge time.Duration
	// ClientID is sent in every request header.
	ClientID string
	// TransactionalID makes the run transactional; "" means not.
	TransactionalID string
	// TransactionRecords commits every this many records (each chunk its
	// own transaction); 0 means one transaction for the whole input.
	TransactionRecords int64
	// TransactionTimeout is the transaction timeout the coordinator applies.
	TransactionTimeout time.Duration

	// Security holds the TLS and SASL settings (flags, environment, config
	// file and the Java security properties merged), and the TLS
	// configuration and SASL mechanism built from them.
	Security SecurityOptions
	// JavaSecurity holds the Java security properties given with -X or a
	// properties file (security.protocol, sasl.mechanism, sasl.jaas.config,
	// ssl.*), verbatim; their meaning is in Security. They may hold
	// secrets: never log them unredacted.
	JavaSecurity map[string]string

	// Output is text, json, none or a template (containing %).
	Output string
	// LogLevel is the level of the logs on stderr.
	LogLevel zerolog.Level
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
	// ConfigFile is the --config file, "" when none.
	ConfigFile string
	// Logger writes logs to stderr at LogLevel.
	Logger zerolog.Logger
}

// buildOptions reads and validates every option. files are the command's
// arguments. It returns the options, warnings to log, and a usage error
// listing every problem found.
func buildOptions(vals optionValues, files []string) (*Options, []string, error) {
	r := &optionReader{vals: vals}
	o := &Options{Files: files, ConfigFile: r.str("config")}
	r.readTarget(o)
	r.readInput(o)
	r.readProducer(o)
	r.readOutput(o)
	r.readRunReport(o)
	r.readSecurity(o)
	r.readDryRun(o)
	checkFiles(r, files)
	if err := r.err(); err != nil {
		return nil, nil, asUsageError(err)
	}
	var warnings []string
	if err := o.applyTransactionRules(vals.IsSet("idempotence")); err != nil {
		return nil, nil, asUsageError(err)
	}
	if err := o.applyIdempotenceRules(vals.IsSet("idempotence")); err != nil {
		return nil, nil, asUsageError(err)
	}
	w, err := o.fitRequestTimeout()
	if err != nil {
		return nil, nil, asUsageError(err)
	}
	if w != "" {
		warnings = append(warnings, w)
	}
	return o, warnings, nil
}

// readTarget reads where records go.
func (r *optionReader) readTarget(o *Options) {
	r.readBrokers(o)
	o.Topic = strings.TrimSpace(r.str("topic"))
	o.Partition = int32(r.integer("partition", -1, math.MaxInt32))
	o.Partitioner = r.oneOf("partitioner", partitionerMurmur2, partitionerRoundRobin, partitionerRandom, partitionerCRC32)
}

// readBrokers reads the bootstrap brokers.
func (r *optionReader) readBrokers(o *Options) {
	for _, b := range r.list("brokers") {
		for _, addr := range splitList(b) {
			if err := checkHostPort(addr); err != nil {
				r.failValue("brokers", addr, err)
			}
			o.Brokers = append(o.Brokers, addr)
		}
	}
	if len(o.Brokers) == 0 {
		r.fail("brokers", fmt.Errorf("%w: at least one host:port is needed", errBadValue))
	}
}

// readInput reads how input is split into records.
func (r *optionReader) readInput(o *Options) {
	o.Format = r.oneOf("format", formatLines, formatJSON, formatFile)
	o.Delimiter = r.escaped("delimiter")
	if len(o.Delimiter) == 0 && !r.failed("delimiter") {
		r.fail("delimiter", fmt.Errorf("%w: must not be empty", errBadValue))
	}
	if r.vals.IsSet("key-delimiter") {
		o.KeyDelimiter = r.escaped("key-delimiter")
		if len(o.KeyDelimiter) == 0 {
			o.KeyDelimiter = nil // an empty -K means no split
		} else if o.Format != formatLines {
			r.fail("key-delimiter", fmt.Errorf("%w: only the lines format splits keys", errBadValue))
		}
	}
	if r.vals.IsSet("key") {
		o.Key = []byte(r.str("key"))
	}
	for _, h := range r.list("header") {
		k, v, ok := strings.Cut(h, "=")
		if !ok || k == "" {
			r.failValue("header", h, fmt.Errorf("%w: want KEY=VALUE", errBadValue))
			continue
		}
		o.Headers = append(o.Headers, protocol.Header{Key: k, Value: []byte(v)})
	}
	if r.vals.IsSet("null") {
		o.NullEnabled, o.NullMarker = true, []byte(r.str("null"))
	}
	o.SkipEmpty = r.boolean("skip-empty")
	o.MaxRecordBytes = r.size("max-record-bytes", 1, math.MaxInt64)
	o.Count = r.integer("count", 0, math.MaxInt64)
	if o.Topic == "" && o.Format != formatJSON && !r.failed("format") {
		r.fail("topic", fmt.Errorf("%w: a topic is required (only json records can name their own)", errBadValue))
	}
}

// readProducer reads the producer's settings.
func (r *optionReader) readProducer(o *Options) {
	switch a := strings.ToLower(strings.TrimSpace(r.str("acks"))); a {
	case "all", "-1":
		o.Acks = acksAll
	case "1":
		o.Acks = acksOne
	case "0":
		o.Acks = acksNone
	default:
		r.failValue("acks", a, fmt.Errorf("%w: want all, -1, 1 or 0", errBadValue))
	}
	o.Idempotence = r.boolean("idempotence")
	o.Linger = r.duration("linger", false)
	o.BatchSize = int(r.size("batch-size", 1, math.MaxInt32))
	o.BufferMemory = r.size("buffer-memory", 1, math.MaxInt64)
	o.MaxRequestSize = int(r.size("max-request-size", 1, math.MaxInt32))
	codec := r.str("compression")
	c, err := protocol.ParseCodec(strings.TrimSpace(codec))
	if err != nil {
		r.failValue("compression", codec, err)
	}
	o.Compression = c
	o.MaxInFlight = int(r.integer("max-in-flight", 1, math.MaxInt32))
	o.RequestTimeout = r.duration("request-timeout", true)
	o.DeliveryTimeout = r.duration("delivery-timeout", true)
	o.CloseTimeout = r.duration("close-timeout", false)
	o.RetryBackoff = r.duration("retry-backoff", false)
	o.MetadataMaxAge = r.duration("metadata-max-age", true)
	o.ClientID = r.str("client-id")
	o.TransactionalID = strings.TrimSpace(r.str("transactional-id"))
	o.TransactionRecords = r.integer("transaction-records", 0, math.MaxInt64)
	o.TransactionTimeout = r.duration("transaction-timeout", true)
	if o.TransactionTimeout > math.MaxInt32*time.Millisecond && !r.failed("transaction-timeout") {
		r.fail("transaction-timeout", fmt.Errorf("%w: at most %s", errBadValue, math.MaxInt32*time.Millisecond))
	}
}

// readOutput reads the report and log settings.
func (r *optionReader) readOutput(o *Options) {
	o.Output = r.str("output")
	switch o.Output {
	case "text", "json", "none":
	default:
		if !strings.Contains(o.Output, "%") {
			r.failValue("output", o.Output, fmt.Errorf("%w: want text, json, none or a template with %%-directives", errBadValue))
		} else if _, err := parseTemplate(o.Output); err != nil {
			r.failValue("output", o.Output, err)
		}
	}
	r.readLogLevel(o)
}

// readLogLevel reads the level of the logs on stderr.
func (r *optionReader) readLogLevel(o *Options) {
	lvl := strings.ToLower(strings.TrimSpace(r.str("log-level")))
	l, err := zerolog.ParseLevel(lvl)
	if err != nil || lvl == "" {
		r.failValue("log-level", lvl, fmt.Errorf("%w: want trace, debug, info, warn, error or disabled", errBadValue))
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
	r.failValue(key, s, fmt.Errorf("%w: want %s", errBadValue, strings.Join(names, ", ")))
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
		r.errs = append(r.errs, fmt.Errorf("%w: stdin (-) given %d times", errBadValue, stdin))
	}
}

// checkHostPort checks a broker address.
func checkHostPort(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return fmt.Errorf("%w: want host:port", errBadValue)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("%w: port must be 1-65535", errBadValue)
	}
	return nil
}

// applyIdempotenceRules follows the Java client: idempotence needs
// acks=all, so with acks 0 or 1 it is off unless explicitly asked for, and
// asking for both is an error; it also caps the in-flight requests at 5.
func (o *Options) applyIdempotenceRules(explicit bool) error {
	if o.Acks != acksAll {
		if explicit && o.Idempotence {
			return fmt.Errorf("--idempotence needs --acks all (got --acks %d); set --idempotence=false", o.Acks)
		}
		o.Idempotence = false
	}
	if o.Idempotence && o.MaxInFlight > maxIdempotentInFlight {
		return fmt.Errorf("--max-in-flight %d is more than %d, the most an idempotent producer may have; lower it or set --idempotence=false",
			o.MaxInFlight, maxIdempotentInFlight)
	}
	return nil
}

// applyTransactionRules follows the Java client: a transactional producer
// is idempotent, so it needs acks=all and idempotence left on.
// --transaction-records needs --transactional-id.
func (o *Options) applyTransactionRules(explicitIdempotence bool) error {
	if o.TransactionalID == "" {
		if o.TransactionRecords > 0 {
			return fmt.Errorf("--transaction-records needs --transactional-id")
		}
		return nil
	}
	if o.Acks != acksAll {
		return fmt.Errorf("--transactional-id needs --acks all (got --acks %d)", o.Acks)
	}
	if explicitIdempotence && !o.Idempotence {
		return fmt.Errorf("--transactional-id needs idempotence: drop --idempotence=false")
	}
	o.Idempotence = true
	return nil
}

// fitRequestTimeout lowers the request timeout so that a record's linger
// and one request fit in its delivery timeout; it returns a warning when it
// did.
func (o *Options) fitRequestTimeout() (string, error) {
	if o.DeliveryTimeout >= o.RequestTimeout+o.Linger {
		return "", nil
	}
	if o.DeliveryTimeout <= o.Linger {
		return "", fmt.Errorf("--delivery-timeout %s must be longer than --linger %s", o.DeliveryTimeout, o.Linger)
	}
	was := o.RequestTimeout
	o.RequestTimeout = o.DeliveryTimeout - o.Linger
	return fmt.Sprintf("--delivery-timeout %s is shorter than --request-timeout %s + --linger %s: request timeout lowered to %s",
		o.DeliveryTimeout, was, o.Linger, o.RequestTimeout), nil
}
