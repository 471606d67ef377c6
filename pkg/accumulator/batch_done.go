package accumulator

import "github.com/kproduce/kproduce/pkg/protocol"

// Done completes the batch exactly once: it runs the Callback for each
// record in order, with Offset = baseOffset + the record's offset delta
// (or -1 and err on failure, or -1 when baseOffset is negative, as with
// acks=0) and Timestamp = logAppendTime when it is not -1, else the
// record's own timestamp. It returns true the first time; later calls (and
// calls after SplitAndReenqueue) do nothing and return false.
//
// Done never releases memory: call Deallocate once the batch's encoded
// bytes are no longer referenced (after its request completed). The
// accumulator's lock is not held while callbacks run.
func (b *Batch) Done(baseOffset, logAppendTime int64, err error) bool {
	if !b.state.CompareAndSwap(statePending, stateDone) {
		return false
	}
	if b.acc.cb != nil {
		b.fireCallbacks(baseOffset, logAppendTime, err)
	}
	b.acc.completed(b)
	return true
}

// fireCallbacks walks the records in the buffer and reports each.
func (b *Batch) fireCallbacks(baseOffset, logAppendTime int64, err error) {
	res := &b.result
	withRecords := b.acc.cfg.ResultRecords
	var records []byte
	if len(b.buf) >= protocol.RecordBatchHeaderSize {
		records = b.buf[protocol.RecordBatchHeaderSize:]
	}
	var parseErr error
	var rec recordView
	for _, pos := range b.positions {
		*res = Result{TopicPartition: b.tp, Offset: -1, Timestamp: -1, Position: pos, Err: err}
		if parseErr == nil {
			records, parseErr = nextRecord(records, &rec)
		}
		if parseErr == nil && withRecords {
			res.Key, res.Value, b.headers, parseErr = decodeTail(rec.tail, b.headers)
			if len(b.headers) > 0 {
				res.Headers = b.headers
			}
		}
		switch {
		case parseErr != nil:
			// Never expected: the buffer was written by this package.
			res.Err = parseErr
		case err == nil && baseOffset >= 0:
			res.Offset = baseOffset + int64(rec.offsetDelta)
		}
		if parseErr == nil {
			res.Timestamp = b.baseTimestamp + rec.timestampDelta
		}
		if logAppendTime != -1 && err == nil {
			res.Timestamp = logAppendTime
		}
		b.acc.cb(res)
	}
	*res = Result{}
	clear(b.headers)
}
