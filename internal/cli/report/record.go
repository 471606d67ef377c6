package report

import (
	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/pkg/sender"
)

// Record is what one report says: the record as the producer left it (its
// topic, partition, offset, timestamp; key, value and headers when they
// were kept), where it was read (its Opaque, an *input.Origin), and its
// outcome. A Reporter builds it for each report; formats read it.
type Record struct {
	*sender.Record
	Source string // file name or "-"
	Number int64  // 1-based record number in its source
	Err    error  // nil: delivered (or routed, in a dry run)
}

// newRecord is the report of rec with outcome err.
func newRecord(rec *sender.Record, err error) Record {
	r := Record{Record: rec, Err: err}
	if o, ok := rec.Opaque.(*input.Origin); ok && o != nil {
		r.Source, r.Number = o.Source, o.Number
	}
	return r
}

// timestamp is the record's timestamp in ms, -1 when it has none (a
// record that failed before the producer stamped it).
func (r *Record) timestamp() int64 {
	if r.Timestamp.IsZero() {
		return -1
	}
	return r.Timestamp.UnixMilli()
}
