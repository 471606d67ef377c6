package accumulator

import (
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// TopicPartition names one partition of a topic.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// Cluster is what the accumulator needs from a metadata snapshot. The
// network package's *Cluster satisfies it.
type Cluster interface {
	// LeaderFor returns the leader of a partition; ok is false when no
	// leader is known.
	LeaderFor(topic string, partition int32) (node int32, ok bool)
	// PartitionCount is the number of partitions of topic, 0 when the topic
	// is unknown.
	PartitionCount(topic string) int
}

// Result is one record's outcome, passed to the Callback. Key, Value and
// Headers alias the batch buffer (or a buffer reused for the next record)
// and are valid only during the callback; so is the Result itself.
type Result struct {
	TopicPartition
	// Offset is the record's offset, -1 when it failed or when the broker
	// assigned none (acks=0).
	Offset int64
	// Timestamp is in ms: the broker's LogAppendTime when it returned one
	// (not -1), else the record's CreateTime.
	Timestamp int64
	// CreateTime is the record's own timestamp in ms, as appended.
	CreateTime int64
	// BatchCreatedAt is when the record's batch was created (the now of
	// the Append that opened it; split batches keep their original's).
	BatchCreatedAt time.Time
	// Key and Value are set only when Config.ResultRecords is true.
	Key, Value []byte
	// Headers is set only when Config.ResultRecords is true; it may be nil.
	Headers []protocol.Header
	// Owner is the owner given to the Append or AppendRecords call that
	// appended the record.
	Owner any
	// Ref is the record's own Record.Ref.
	Ref any
	Err error
}

// Callback receives every record's outcome exactly once, in record order
// within a batch, on the goroutine that calls Batch.Done. It must not change
// the Result (the records of a batch share one), nor call back into the
// Accumulator's blocking methods (Append, AwaitFlushCompletion).
type Callback func(*Result)

// AppendResult tells the caller of Append what happened to the deques.
type AppendResult struct {
	// BatchIsFull is true when the partition's deque holds more than one
	// batch or its last batch is full: the sender should be woken.
	BatchIsFull bool
	// NewBatchCreated is true when the record opened a new batch.
	NewBatchCreated bool
	// AbortForNewBatch is true when Append was asked to give up rather than
	// open a new batch; nothing was appended.
	AbortForNewBatch bool
}

// ReadyCheckResult is the outcome of Accumulator.Ready.
type ReadyCheckResult struct {
	// ReadyNodes are the leaders with at least one sendable batch. It is
	// never nil, and the caller may modify it.
	ReadyNodes map[int32]struct{}
	// NextReadyCheckDelay is how long until a batch that is not sendable
	// yet may become sendable; NoReadyCheck when nothing is waiting.
	NextReadyCheckDelay time.Duration
	// UnknownLeaderTopics are the topics with data in a partition whose
	// leader is unknown. It is never nil.
	UnknownLeaderTopics map[string]struct{}
}

// NoReadyCheck is the NextReadyCheckDelay when no batch is waiting.
const NoReadyCheck = time.Duration(1<<63 - 1)
