package sender

import (
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// Record is a record to produce and, once its promise runs, what became of
// it: the producer sets its Partition, Offset and Timestamp.
type Record struct {
	// Topic is the topic to produce to.
	Topic string
	// Partition is the partition the record went to, set by the producer.
	// It is where the record goes only with ManualPartitioner; other
	// partitioners ignore it.
	Partition int32
	// Key and Value are the record's bytes; nil is null (a nil Value is a
	// tombstone).
	Key, Value []byte
	// Headers are sent in order; a nil Value is a null header value.
	Headers []Header
	// Timestamp is the record's CreateTime, sent in milliseconds; the zero
	// time means the time the producer takes the record. Once delivered it
	// is the broker's LogAppendTime when the topic uses it.
	Timestamp time.Time
	// Opaque is the caller's own: the producer never reads it and hands
	// it back with the record in its promise.
	Opaque any
	// Offset is set by the producer: the record's offset once delivered,
	// -1 when it failed or the broker gave none (NoAck).
	Offset int64
}

// Header is a record header.
type Header = protocol.Header

// AnyPartition is the Partition of a record that ManualPartitioner leaves
// to its fallback.
const AnyPartition int32 = -1
