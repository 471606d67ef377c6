package report

import "github.com/kproduce/kproduce/pkg/protocol"

// Record is the outcome of one record, success or failure.
type Record struct {
	Source    string // file name or "-"
	Number    int64  // 1-based record number in its source
	Topic     string
	Partition int32 // -1 when unknown
	Offset    int64 // -1 when unknown
	Timestamp int64 // ms, as the broker stored it
	Key       []byte
	Value     []byte // only needed when the template prints them
	Err       error  // nil: delivered
}

// DryRecord is where one record of a dry run would go, or why it could
// not. Offset is always -1; Timestamp is the one the record would carry.
type DryRecord struct {
	Record
	Headers []protocol.Header
}
