package sender

import (
	"time"

	"github.com/kproduce/kproduce/pkg/accumulator"
)

// The owners of records in the accumulator: whose promise a record's
// outcome goes to, and how.
type (
	// producePromise is the promise of a record of Produce: its batch
	// entry's reference is the caller's *Record, handed back.
	producePromise func(*Record, error)
	// batchPromise is the promise of the records of one ProduceBatch
	// call: their reference is their Opaque, and the promise gets the
	// producer's own Record.
	batchPromise func(*Record, error)
)

// completion returns the accumulator's callback: it runs each record's
// promise with its outcome, on the goroutine that completes its batch (the
// Sender's). The records of a ProduceBatchDone call are owned by its
// *batchCall (produce_done.go), which holds their promise. (A func literal
// rather than a method value: it runs once a record, and a method value
// adds a call.)
func (p *Producer) completion() accumulator.Callback {
	return func(res *accumulator.Result) {
		switch promise := res.Owner.(type) {
		case batchPromise:
			p.promiseBatch(res, promise)
		case *batchCall:
			p.promiseBatch(res, promise.promise)
		case producePromise:
			r := res.Ref.(*Record)
			r.Partition, r.Offset = res.Partition, res.Offset
			if r.Timestamp.IsZero() || res.Timestamp != res.CreateTime {
				r.Timestamp = time.UnixMilli(res.Timestamp)
			}
			promise(r, res.Err)
		}
	}
}

// promiseBatch runs promise, a ProduceBatch promise, with the outcome of
// one of the call's records: the producer's own Record.
func (p *Producer) promiseBatch(res *accumulator.Result, promise func(*Record, error)) {
	r := &p.promised
	// Every field, one by one: a struct literal would be built aside
	// and copied whole. Key, Value and Headers are set only with
	// PromiseRecordBytes (and cleared after, so that the record keeps
	// no batch alive); otherwise they stay nil.
	r.Topic, r.Partition, r.Offset, r.Opaque = res.Topic, res.Partition, res.Offset, res.Ref
	r.Timestamp = time.UnixMilli(res.Timestamp)
	if p.promiseBytes {
		r.Key, r.Value, r.Headers = res.Key, res.Value, res.Headers
		promise(r, res.Err)
		r.Key, r.Value, r.Headers = nil, nil, nil
		return
	}
	promise(r, res.Err)
}
