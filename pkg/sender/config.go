package sender

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rs/zerolog"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/network"
)

// Acks values of a Produce request.
const (
	AcksAll    int16 = -1
	AcksLeader int16 = 1
	AcksNone   int16 = 0
)

// MaxInFlightIdempotent is the most requests per connection that Kafka
// brokers can deduplicate for an idempotent producer.
const MaxInFlightIdempotent = 5

// Config configures a Producer. Zero values take the defaults of
// DefaultConfig, except for the booleans.
type Config struct {
	Bootstrap      []string      // host:port of the bootstrap brokers
	Acks           int16         // AcksAll, AcksLeader or AcksNone
	Idempotence    bool          // enable.idempotence; needs AcksAll
	MaxRequestSize int           // max.request.size bytes
	RequestTimeout time.Duration // request.timeout.ms
	// Retries is how many times a failed batch is retried at most
	// (retries); DefaultRetries, Kafka's default, retries until the
	// delivery timeout. 0 never retries and needs Idempotence off.
	Retries int
	// MaxBlock bounds how long Send waits for a topic's metadata
	// (max.block.ms); zero means the delivery timeout.
	MaxBlock time.Duration
	// TransactionalID (transactional.id), when set, makes the producer
	// transactional: records are sent only inside a transaction (see
	// Producer.BeginTransaction). Needs Idempotence.
	TransactionalID string
	// TransactionTimeout (transaction.timeout.ms) is how long the
	// coordinator lets a transaction stay open before aborting it.
	TransactionTimeout time.Duration

	// Network configures the connections. Its BootstrapTimeout bounds the
	// wait for the cluster's first answer: when it passes, or when every
	// bootstrap address failed for good, the producer stops with a
	// *network.BootstrapError (FatalError); zero means the delivery
	// timeout. Its Notify receives the connection notices.
	Network     network.Config
	Metadata    network.MetadataConfig
	Socket      network.SocketConfig
	Accumulator accumulator.Config

	// Partitioner picks partitions; nil means Java's default (murmur2 for
	// keyed records, sticky for the rest).
	Partitioner accumulator.Partitioner
	// Rand returns a uniform int in [0, n); nil means math/rand/v2.
	Rand func(n int) int

	// AfterCompletions, when set, runs on the Sender goroutine after each
	// turn that completed records, once their callbacks have run (the
	// command line flushes its reports there).
	AfterCompletions func()

	Logger zerolog.Logger
}

// DefaultConfig returns the defaults of the kproduce command line, which
// follow the Java producer where they have a counterpart.
func DefaultConfig() Config {
	return Config{
		Bootstrap:      []string{"127.0.0.1:9092"},
		Acks:           AcksAll,
		Idempotence:    true,
		MaxRequestSize: 1 << 20,
		RequestTimeout: 30 * time.Second,
		Retries:        DefaultRetries,
		// Java's default transaction.timeout.ms.
		TransactionTimeout: time.Minute,
		Network: network.Config{
			ClientID:                  "kproduce",
			SoftwareName:              "kproduce",
			SoftwareVersion:           "dev",
			MaxInFlightPerConnection:  5,
			RequestTimeout:            30 * time.Second,
			ReconnectBackoff:          50 * time.Millisecond,
			ReconnectBackoffMax:       time.Second,
			ConnectionSetupTimeout:    10 * time.Second,
			ConnectionSetupTimeoutMax: 30 * time.Second,
			BootstrapTimeout:          network.DefaultBootstrapTimeout,
		},
		Metadata: network.MetadataConfig{
			RefreshBackoff:         100 * time.Millisecond,
			RefreshBackoffMax:      time.Second,
			MaxAge:                 5 * time.Minute,
			AllowAutoTopicCreation: true,
		},
		Accumulator: accumulator.Config{
			BatchSize:       1 << 20,
			Linger:          5 * time.Millisecond,
			RetryBackoff:    100 * time.Millisecond,
			RetryBackoffMax: time.Second,
			DeliveryTimeout: 2 * time.Minute,
			BufferMemory:    32 << 20,
		},
	}
}

// ErrConfig is wrapped by configuration errors.
var ErrConfig = errors.New("invalid producer configuration")

// Validate checks the rules the Java producer enforces.
func (c *Config) Validate() error {
	switch {
	case len(c.Bootstrap) == 0:
		return fmt.Errorf("%w: no bootstrap brokers", ErrConfig)
	case c.Acks != AcksAll && c.Acks != AcksLeader && c.Acks != AcksNone:
		return fmt.Errorf("%w: acks must be all (-1), 1 or 0, not %d", ErrConfig, c.Acks)
	case c.Retries < 0:
		return fmt.Errorf("%w: retries must not be negative", ErrConfig)
	case c.Retries == 0 && c.Idempotence:
		return fmt.Errorf("%w: an idempotent producer needs retries", ErrConfig)
	case c.TransactionalID != "" && !c.Idempotence:
		return fmt.Errorf("%w: a transactional producer needs idempotence", ErrConfig)
	case c.TransactionalID != "" && (c.TransactionTimeout < time.Millisecond || c.TransactionTimeout.Milliseconds() > math.MaxInt32):
		return fmt.Errorf("%w: transaction timeout %s out of range", ErrConfig, c.TransactionTimeout)
	case c.Idempotence && c.Acks != AcksAll:
		return fmt.Errorf("%w: idempotence needs acks=all", ErrConfig)
	case c.Idempotence && c.Network.MaxInFlightPerConnection > MaxInFlightIdempotent:
		return fmt.Errorf("%w: idempotence allows at most %d requests in flight per connection", ErrConfig, MaxInFlightIdempotent)
	case c.Network.MaxInFlightPerConnection < 1:
		return fmt.Errorf("%w: max in flight must be at least 1", ErrConfig)
	case c.MaxRequestSize < 1 || c.Accumulator.BatchSize < 1 || c.Accumulator.BufferMemory < 1:
		return fmt.Errorf("%w: sizes must be positive", ErrConfig)
	case c.RequestTimeout <= 0 || c.Accumulator.DeliveryTimeout <= 0:
		return fmt.Errorf("%w: timeouts must be positive", ErrConfig)
	}
	return nil
}

// DefaultRetries is Kafka's default retries: retry until the delivery
// timeout.
const DefaultRetries = math.MaxInt32
