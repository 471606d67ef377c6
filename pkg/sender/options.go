package sender

import (
	"crypto/tls"
	"log/slog"
	"net"
	"time"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// Opt is an option of New. Options apply in order; a later option of the
// same kind replaces an earlier one. Kafka's names are in brackets.
type Opt func(*config)

// SASLMechanism authenticates the connections (see network.NewSASLMechanism
// for PLAIN and SCRAM).
type SASLMechanism = network.SASLMechanism

// Notice tells of a connection failure a person would want to know of at
// once (see OnNotice).
type Notice = network.Notice

// SeedBrokers are the host:port addresses the producer first connects to,
// to learn the cluster (bootstrap.servers; default 127.0.0.1:9092).
func SeedBrokers(addrs ...string) Opt {
	return func(c *config) { c.Bootstrap = append([]string(nil), addrs...) }
}

// ClientID is sent in every request header (client.id; default
// "kproduce").
func ClientID(id string) Opt { return func(c *config) { c.Network.ClientID = id } }

// SoftwareNameAndVersion is sent to brokers that ask for it (KIP-511;
// default "kproduce", "unknown").
func SoftwareNameAndVersion(name, version string) Opt {
	return func(c *config) { c.Network.SoftwareName, c.Network.SoftwareVersion = name, version }
}

// DialTLS wraps every connection in TLS with cfg (security.protocol SSL);
// an empty ServerName is set to each broker's host.
func DialTLS(cfg *tls.Config) Opt { return func(c *config) { c.Socket.TLS = cfg } }

// SASL authenticates every connection with m once its API versions are
// known (sasl.mechanism).
func SASL(m SASLMechanism) Opt { return func(c *config) { c.Network.SASL = m } }

// Dialer dials the TCP connections; its Timeout is replaced by the
// connection setup timeout.
func Dialer(d *net.Dialer) Opt { return func(c *config) { c.Socket.Dialer = d } }

// RequestTimeout bounds the wait for one answer of the cluster
// (request.timeout.ms; default 30s).
func RequestTimeout(d time.Duration) Opt { return func(c *config) { c.RequestTimeout = d } }

// BootstrapTimeout bounds the wait for the cluster's first answer: when it
// passes, or when every seed broker failed for good, the producer stops
// with a *network.BootstrapError (see FatalError). Zero means the delivery
// timeout (default 10s).
func BootstrapTimeout(d time.Duration) Opt {
	return func(c *config) { c.Network.BootstrapTimeout = d }
}

// ConnectionSetupTimeout bounds one connection attempt, doubling per
// failure up to limit (socket.connection.setup.timeout.ms and .max.ms;
// defaults 10s and 30s).
func ConnectionSetupTimeout(d, limit time.Duration) Opt {
	return func(c *config) { c.Network.ConnectionSetupTimeout, c.Network.ConnectionSetupTimeoutMax = d, limit }
}

// ReconnectBackoff is the wait before reconnecting to a broker, doubling
// per failure up to limit (reconnect.backoff.ms and .max.ms; defaults 50ms
// and 1s).
func ReconnectBackoff(d, limit time.Duration) Opt {
	return func(c *config) { c.Network.ReconnectBackoff, c.Network.ReconnectBackoffMax = d, limit }
}

// MetadataMaxAge refreshes the cluster's metadata at least this often
// (metadata.max.age.ms; default 5m).
func MetadataMaxAge(d time.Duration) Opt { return func(c *config) { c.Metadata.MaxAge = d } }

// AllowAutoTopicCreation says whether a topic the cluster does not have is
// created by the broker when the producer asks for it
// (allow.auto.create.topics; default true). When false, records to such a
// topic fail at once with ErrTopicMetadata and the broker's
// UNKNOWN_TOPIC_OR_PARTITION instead of waiting for it up to MaxBlock.
func AllowAutoTopicCreation(allow bool) Opt {
	return func(c *config) { c.Metadata.AllowAutoTopicCreation = allow }
}

// RequiredAcks is how many acknowledgements a Produce request waits for
// (acks; default AllAcks).
func RequiredAcks(a Acks) Opt { return func(c *config) { c.Acks = a } }

// Idempotence turns the idempotent producer on or off
// (enable.idempotence). It is on by default, and then turned off silently
// by acks other than all, retries 0 or more than MaxInFlightIdempotent
// requests in flight, as in the Java producer; asked for with any of
// those, New fails.
func Idempotence(on bool) Opt {
	return func(c *config) { c.Idempotence, c.IdempotenceSet = on, true }
}

// MaxInFlight is the most Produce requests per connection waiting for
// their answer (max.in.flight.requests.per.connection; default 5). With 1,
// a partition's batches are never reordered, even without idempotence.
func MaxInFlight(n int) Opt {
	return func(c *config) { c.Network.MaxInFlightPerConnection = n }
}

// Retries is how many times a failed batch is retried at most (retries;
// default DefaultRetries: until the delivery timeout). 0 never retries.
func Retries(n int) Opt { return func(c *config) { c.Retries = n } }

// RetryBackoff is the wait before retrying a batch or refreshing
// metadata, doubling per attempt up to limit (retry.backoff.ms and .max.ms;
// defaults 100ms and 1s).
func RetryBackoff(d, limit time.Duration) Opt {
	return func(c *config) {
		c.Accumulator.RetryBackoff, c.Accumulator.RetryBackoffMax = d, max(d, limit)
		c.Metadata.RefreshBackoff, c.Metadata.RefreshBackoffMax = d, max(d, limit)
	}
}

// DeliveryTimeout bounds the time from a record's hand-over to its
// outcome, retries included (delivery.timeout.ms; default 2m).
func DeliveryTimeout(d time.Duration) Opt {
	return func(c *config) { c.Accumulator.DeliveryTimeout = d }
}

// Linger is how long a batch that is not full waits for more records
// (linger.ms; default 5ms). Zero sends at once.
func Linger(d time.Duration) Opt { return func(c *config) { c.Accumulator.Linger = max(d, 0) } }

// BatchSize bounds a batch's encoded size, uncompressed, unless a single
// record is larger (batch.size; default 1 MiB).
func BatchSize(n int) Opt { return func(c *config) { c.Accumulator.BatchSize = n } }

// BufferMemory bounds the memory of the records waiting to be sent
// (buffer.memory; default 32 MiB): Produce blocks while it is spent.
func BufferMemory(n int64) Opt { return func(c *config) { c.Accumulator.BufferMemory = n } }

// MaxRequestSize bounds a Produce request, and so a record
// (max.request.size; default 1 MiB).
func MaxRequestSize(n int) Opt { return func(c *config) { c.MaxRequestSize = n } }

// Compression compresses every batch with codec (compression.type;
// default protocol.CodecNone).
func Compression(codec protocol.Codec) Opt { return func(c *config) { c.Accumulator.Codec = codec } }

// CompressionLevel compresses at level (librdkafka's compression.level;
// Java's compression.gzip.level, compression.lz4.level and
// compression.zstd.level), which the codec must take
// (protocol.CompressionLevels; New fails otherwise). Default: 0, the
// codec's default (gzip 7, lz4's fast algorithm, zstd its fastest, about
// zstd's level 1).
func CompressionLevel(level int) Opt {
	return func(c *config) { c.Accumulator.CompressionLevel = level }
}

// CompressionWorkers compresses up to n batches at once, each on a
// goroutine of its own, as soon as they are full or due to be sent
// (default: GOMAXPROCS). 0 compresses on the producer's own goroutine,
// one batch at a time, as each request is built. Batches of a partition
// are sent in order whatever order they are compressed in, and a retried
// batch is sent as first compressed, with its sequence number and
// checksum; each worker holds an encoder and a buffer of up to a batch,
// besides the BufferMemory.
func CompressionWorkers(n int) Opt {
	return func(c *config) { c.Accumulator.CompressionWorkers = n }
}

// MaxBlock bounds how long Produce waits for a topic's partitions to be
// known (max.block.ms; default: the delivery timeout).
func MaxBlock(d time.Duration) Opt { return func(c *config) { c.MaxBlock = d } }

// TransactionalID makes the producer transactional (transactional.id):
// records are produced only inside a transaction (see BeginTransaction).
// It needs idempotence.
func TransactionalID(id string) Opt { return func(c *config) { c.TransactionalID = id } }

// TransactionTimeout is how long the coordinator lets a transaction stay
// open before it aborts it (transaction.timeout.ms; default 1m).
func TransactionTimeout(d time.Duration) Opt {
	return func(c *config) { c.TransactionTimeout = d }
}

// WithPartitioner places the records (partitioner.class; default
// NewPartitioner(PartitionerMurmur2, nil): murmur2 for keyed records,
// sticky for the rest). A partitioner keeps state: give each producer its
// own.
func WithPartitioner(p Partitioner) Opt { return func(c *config) { c.Partitioner = p } }

// WithLogger receives the producer's logs (connections, retries, the
// cluster's changes; secrets never); default: none.
func WithLogger(l *slog.Logger) Opt { return func(c *config) { c.Logger = l } }

// OnNotice is called with each connection failure a person would want to
// know of at once (a seed broker refusing connections, a broker lost and
// back), on the producer's goroutine: it must not block.
func OnNotice(fn func(Notice)) Opt { return func(c *config) { c.Network.Notify = fn } }

// AfterPromises is called on the producer's goroutine after each round of
// promises it ran (the records completed by the answers of one poll), so
// that a caller buffering what its promises write can flush once per
// round instead of once per record.
func AfterPromises(fn func()) Opt { return func(c *config) { c.AfterPromises = fn } }

// SkipDeliveredPromises runs promises for failed records only: delivered
// ones are counted in Stats.Delivered, nothing more, which makes a bulk
// load cheaper when only failures matter.
func SkipDeliveredPromises() Opt { return func(c *config) { c.SkipDeliveredPromises = true } }

// PromiseRecordBytes gives the promises of ProduceBatch each record's key,
// value and headers, which otherwise are nil there: the producer then keeps
// every record's encoded bytes until its promise ran, even once compressed.
func PromiseRecordBytes() Opt { return func(c *config) { c.Accumulator.ResultRecords = true } }

// DryRun makes a producer that places records exactly as it would
// produce them (the same partitioner, called in the same order, a sticky
// partition moving on when its batch would be full) and never sends them:
// each record's promise runs at once, before Produce or ProduceBatch
// returns, with its partition and offset -1, or with the error that
// producing it would have failed with (an unknown topic or partition, a
// record too large). With partitions > 0 every topic has that many
// partitions and no broker is contacted; with 0 the cluster is asked for
// its topics' partitions, never creating a topic.
func DryRun(partitions int) Opt {
	return func(c *config) { c.DryRun, c.DryRunPartitions = true, partitions }
}
