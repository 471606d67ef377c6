package accumulator

import (
	"math/rand/v2"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// Defaults of the Config fields (Kafka's names in brackets).
const (
	DefaultBatchSize       = 1 << 20                // batch.size
	DefaultLinger          = 5 * time.Millisecond   // linger.ms
	DefaultRetryBackoff    = 100 * time.Millisecond // retry.backoff.ms
	DefaultRetryBackoffMax = time.Second            // retry.backoff.max.ms
	DefaultDeliveryTimeout = 2 * time.Minute        // delivery.timeout.ms
	DefaultBufferMemory    = 32 << 20               // buffer.memory
)

// Jitter bounds: backoffs are multiplied by a factor in this range.
const (
	minJitter = 0.8
	maxJitter = 1.2
)

// Config configures an Accumulator.
type Config struct {
	// BatchSize (batch.size) bounds a batch's encoded size (header and
	// records, uncompressed) unless a single record is larger, in which
	// case that record gets a batch of its own.
	BatchSize int
	// Linger (linger.ms) is how long a batch that is not full waits for
	// more records. Zero sends at once.
	Linger time.Duration
	// RetryBackoff (retry.backoff.ms) is the backoff before a batch's first
	// retry; it doubles with each attempt up to RetryBackoffMax.
	RetryBackoff time.Duration
	// RetryBackoffMax (retry.backoff.max.ms) caps the retry backoff (before
	// jitter).
	RetryBackoffMax time.Duration
	// DeliveryTimeout (delivery.timeout.ms) bounds the time from a batch's
	// creation to its outcome.
	DeliveryTimeout time.Duration
	// BufferMemory (buffer.memory) bounds the bytes of batch buffers.
	BufferMemory int64
	// Codec compresses each batch's records (compression.type).
	Codec protocol.Codec
	// CompressionLevel is the codec's level (protocol.CheckCompressionLevel
	// says which it takes); protocol.DefaultCompressionLevel (0) and -1
	// keep its default.
	CompressionLevel int
	// CompressionWorkers is how many batches may be compressed at once,
	// each on a goroutine of its own, as soon as they are sealed (full, or
	// due to be sent) and before Drain takes them; Drain takes a batch only
	// once compressed. Zero leaves compression to Close, on the sender's
	// goroutine, one batch at a time. See the package doc.
	CompressionWorkers int
	// Transactional sets the transactional bit of every batch.
	Transactional bool
	// ResultRecords makes Done decode each record's key, value and headers
	// into its Result; timestamps are always reported.
	ResultRecords bool
	// OnDelivered, when set, is called once for each batch delivered
	// without error, with its partition, its base offset (-1 when the
	// broker assigned none) and its record count, instead of the Callback
	// once per record; failed records still reach the Callback one by one.
	// It is for a caller that only counts what was delivered: nothing is
	// done per delivered record. It runs where the Callback would.
	OnDelivered func(tp TopicPartition, baseOffset int64, records int)
	// OnOwnerRun, when set, is called for each run of a completed batch's
	// records that one append call appended (Result.Owner's records, in
	// a row), with that owner and how many records the run holds, once
	// they were all reported: after the Callback ran for each of them, or
	// after OnDelivered for a delivered batch. It runs where the Callback
	// would. Every record counts once, whatever completed it (a delivery,
	// a failure, an abort); a split batch counts through its parts. It is
	// for a caller that must know when every record of an append call has
	// its outcome, without counting records one by one.
	OnOwnerRun func(owner any, records int)
	// MaxRequestSize is max.request.size: a record whose batch alone would
	// be larger fails Append at once (0: no limit).
	MaxRequestSize int
	// Wakeup, when set, is called (from an appender's goroutine) whenever a
	// batch becomes sendable before its linger (a new batch behind a full
	// one, a full batch) or an appender starts waiting for memory, which
	// makes every batch sendable: the sender should look again at once. The
	// Wakeup channel is signalled at the same moments.
	Wakeup func()
	// Jitter returns a factor in [0.8, 1.2] applied to retry backoffs
	// (values outside are clamped). Nil uses math/rand/v2.
	Jitter func() float64
}

// DefaultConfig returns a Config with Kafka's defaults (but kproduce's
// batch size of 1 MiB).
func DefaultConfig() Config {
	return Config{
		BatchSize:       DefaultBatchSize,
		Linger:          DefaultLinger,
		RetryBackoff:    DefaultRetryBackoff,
		RetryBackoffMax: DefaultRetryBackoffMax,
		DeliveryTimeout: DefaultDeliveryTimeout,
		BufferMemory:    DefaultBufferMemory,
	}
}

// withDefaults fills the fields for which zero (or a negative value) has no
// meaning. Linger and RetryBackoff are taken as given (zero is valid), only
// negative values become zero.
func (c Config) withDefaults() Config {
	if c.BatchSize <= 0 {
		c.BatchSize = DefaultBatchSize
	}
	if c.BufferMemory <= 0 {
		c.BufferMemory = DefaultBufferMemory
	}
	if c.DeliveryTimeout <= 0 {
		c.DeliveryTimeout = DefaultDeliveryTimeout
	}
	c.Linger = max(c.Linger, 0)
	c.RetryBackoff = max(c.RetryBackoff, 0)
	if c.RetryBackoffMax <= 0 {
		c.RetryBackoffMax = DefaultRetryBackoffMax
	}
	c.RetryBackoffMax = max(c.RetryBackoffMax, c.RetryBackoff)
	if c.Jitter == nil {
		c.Jitter = func() float64 { return minJitter + (maxJitter-minJitter)*rand.Float64() }
	}
	return c
}

// retryBackoff is the backoff before attempt+1 (attempt >= 1): RetryBackoff
// doubled attempt-1 times, capped at RetryBackoffMax, times the jitter.
func (c *Config) retryBackoff(attempt int) time.Duration {
	d := c.RetryBackoff
	for i := 1; i < attempt && d < c.RetryBackoffMax; i++ {
		d *= 2
	}
	d = min(d, c.RetryBackoffMax)
	j := c.Jitter()
	if !(j >= minJitter) { // also catches NaN
		j = minJitter
	}
	j = min(j, maxJitter)
	return time.Duration(float64(d) * j)
}
