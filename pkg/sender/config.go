package sender

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"time"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// Acks is how many acknowledgements the leader waits for before it answers
// a Produce request (acks).
type Acks int16

// The Acks values.
const (
	// AllAcks waits for every in-sync replica (acks=all, -1): the default,
	// and what idempotence needs.
	AllAcks Acks = -1
	// LeaderAck waits for the leader only (acks=1).
	LeaderAck Acks = 1
	// NoAck does not wait: the broker sends no answer, and records are
	// delivered once written to the connection, at offset -1 (acks=0).
	NoAck Acks = 0
)

// MaxInFlightIdempotent is the most requests per connection that Kafka
// brokers can deduplicate for an idempotent producer.
const MaxInFlightIdempotent = 5

// DefaultRetries is Kafka's default retries: retry until the delivery
// timeout.
const DefaultRetries = math.MaxInt32

// Defaults of the options, as in the Java producer where it has the
// option (its names in brackets), else kproduce's.
const (
	DefaultRequestTimeout     = 30 * time.Second // request.timeout.ms
	DefaultDeliveryTimeout    = 2 * time.Minute  // delivery.timeout.ms
	DefaultLinger             = 5 * time.Millisecond
	DefaultBatchSize          = 1 << 20  // batch.size (Java: 16 KiB)
	DefaultBufferMemory       = 32 << 20 // buffer.memory
	DefaultMaxRequestSize     = 1 << 20  // max.request.size
	DefaultTransactionTimeout = time.Minute
)

// ErrConfig is wrapped by the errors of New for options that do not go
// together.
var ErrConfig = errors.New("invalid producer configuration")

// config is what the options set; New derives the lower layers'
// configurations from it in one place (see newProducer).
type config struct {
	Bootstrap      []string
	Acks           Acks
	Idempotence    bool
	IdempotenceSet bool // Idempotence was asked for explicitly
	MaxRequestSize int
	RequestTimeout time.Duration
	Retries        int
	MaxBlock       time.Duration // 0: the delivery timeout

	TransactionalID    string
	TransactionTimeout time.Duration

	// The lower layers' options. Only the options set their fields;
	// newProducer adds what it derives from the fields above.
	Network     network.Config
	Metadata    network.MetadataConfig
	Socket      network.SocketConfig
	Accumulator accumulator.Config

	Partitioner Partitioner     // nil: murmur2 for keyed records, sticky for the rest
	Rand        func(n int) int // nil: math/rand/v2

	AfterPromises         func()
	SkipDeliveredPromises bool
	DryRun                bool
	DryRunPartitions      int

	Logger *slog.Logger // nil: discard
}

// defaultConfig returns the defaults, which follow the Java producer.
func defaultConfig() config {
	return config{
		Bootstrap:          []string{"127.0.0.1:9092"},
		Acks:               AllAcks,
		Idempotence:        true,
		MaxRequestSize:     DefaultMaxRequestSize,
		RequestTimeout:     DefaultRequestTimeout,
		Retries:            DefaultRetries,
		TransactionTimeout: DefaultTransactionTimeout,
		Network: network.Config{
			ClientID:                  network.DefaultClientID,
			SoftwareName:              network.DefaultSoftwareName,
			SoftwareVersion:           network.DefaultSoftwareVersion,
			MaxInFlightPerConnection:  network.DefaultMaxInFlightPerConnection,
			ReconnectBackoff:          network.DefaultReconnectBackoff,
			ReconnectBackoffMax:       network.DefaultReconnectBackoffMax,
			ConnectionSetupTimeout:    network.DefaultConnectionSetupTimeout,
			ConnectionSetupTimeoutMax: network.DefaultConnectionSetupTimeoutMax,
			BootstrapTimeout:          network.DefaultBootstrapTimeout,
		},
		Metadata: network.MetadataConfig{
			RefreshBackoff:         network.DefaultRefreshBackoff,
			RefreshBackoffMax:      network.DefaultRefreshBackoffMax,
			MaxAge:                 network.DefaultMetadataMaxAge,
			AllowAutoTopicCreation: true,
		},
		Accumulator: accumulator.Config{
			BatchSize:       DefaultBatchSize,
			Linger:          DefaultLinger,
			RetryBackoff:    accumulator.DefaultRetryBackoff,
			RetryBackoffMax: accumulator.DefaultRetryBackoffMax,
			DeliveryTimeout: DefaultDeliveryTimeout,
			BufferMemory:    DefaultBufferMemory,
			// One batch compressed on each core at a time.
			CompressionWorkers: runtime.GOMAXPROCS(0),
		},
	}
}

// derive applies the Java producer's implicit rules: idempotence, on by
// default, is off when acks is not all, retries is 0 or more than
// MaxInFlightIdempotent requests may be in flight, unless it was asked for
// (validate then refuses the combination).
func (c *config) derive() {
	if !c.IdempotenceSet && c.TransactionalID == "" &&
		(c.Acks != AllAcks || c.Retries == 0 || c.Network.MaxInFlightPerConnection > MaxInFlightIdempotent) {
		c.Idempotence = false
	}
	if c.TransactionalID != "" && !c.IdempotenceSet {
		c.Idempotence = true
	}
	if c.DryRun {
		c.Idempotence = false // nothing is sent: no producer id to get
	}
}

// validate checks the rules the Java producer enforces.
func (c *config) validate() error {
	switch {
	case len(c.Bootstrap) == 0 && !(c.DryRun && c.DryRunPartitions > 0):
		return fmt.Errorf("%w: no seed brokers", ErrConfig)
	case c.Acks != AllAcks && c.Acks != LeaderAck && c.Acks != NoAck:
		return fmt.Errorf("%w: acks must be all (-1), 1 or 0, not %d", ErrConfig, c.Acks)
	case c.Retries < 0:
		return fmt.Errorf("%w: retries must not be negative", ErrConfig)
	case c.Retries == 0 && c.Idempotence:
		return fmt.Errorf("%w: an idempotent producer needs retries", ErrConfig)
	case c.TransactionalID != "" && !c.Idempotence:
		return fmt.Errorf("%w: a transactional producer needs idempotence", ErrConfig)
	case c.TransactionalID != "" && (c.TransactionTimeout < time.Millisecond || c.TransactionTimeout.Milliseconds() > math.MaxInt32):
		return fmt.Errorf("%w: transaction timeout %s out of range", ErrConfig, c.TransactionTimeout)
	case c.TransactionalID != "" && c.DryRun:
		return fmt.Errorf("%w: a dry run cannot be transactional", ErrConfig)
	case c.Idempotence && c.Acks != AllAcks:
		return fmt.Errorf("%w: idempotence needs acks=all", ErrConfig)
	case c.Idempotence && c.Network.MaxInFlightPerConnection > MaxInFlightIdempotent:
		return fmt.Errorf("%w: idempotence allows at most %d requests in flight per connection", ErrConfig, MaxInFlightIdempotent)
	case c.Network.MaxInFlightPerConnection < 1:
		return fmt.Errorf("%w: max in flight must be at least 1", ErrConfig)
	case c.MaxRequestSize < 1 || c.Accumulator.BatchSize < 1 || c.Accumulator.BufferMemory < 1:
		return fmt.Errorf("%w: sizes must be positive", ErrConfig)
	case c.RequestTimeout <= 0 || c.Accumulator.DeliveryTimeout <= 0:
		return fmt.Errorf("%w: timeouts must be positive", ErrConfig)
	case c.DryRunPartitions < 0:
		return fmt.Errorf("%w: a dry run's partition count must not be negative", ErrConfig)
	case c.Accumulator.CompressionWorkers < 0:
		return fmt.Errorf("%w: compression workers must not be negative", ErrConfig)
	}
	if err := protocol.CheckCompressionLevel(c.Accumulator.Codec, c.Accumulator.CompressionLevel); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return nil
}
