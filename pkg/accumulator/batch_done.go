package accumulator

import "github.com/kproduce/kproduce/pkg/protocol"

// Done completes the batch exactly once: it runs the Callback for each
// record in order, with Offset = baseOffset + the record's offset delta
// (or -1 and err on failure, or -1 when baseOffset is negative, as with
// acks=0) and Timestamp = logAppendTime when it is not -1, else the
// record's own timestamp; with Config.OnDelivered a delivered batch is
// reported once instead. Config.OnOwnerRun then hears of each owner run.
// It returns true the first time; later calls (and calls after
// SplitAndReenqueue) do nothing and return false.
//
// Done never releases memory: call Deallocate once the batch's encoded
// bytes are no longer referenced (after its request completed). The
// accumulator's lock is not held while callbacks run.
func (b *Batch) Done(baseOffset, logAppendTime int64, err error) bool {
	if !b.state.CompareAndSwap(statePending, stateDone) {
		return false
	}
	if err == nil {
		b.acc.delivered.Add(int64(b.count))
	} else {
		b.acc.failed.Add(int64(b.count))
	}
	switch cfg := &b.acc.cfg; {
	case err == nil && cfg.OnDelivered != nil:
		cfg.OnDelivered(b.tp, max(baseOffset, -1), b.count)
		b.reportOwnerRuns()
	case b.acc.cb != nil:
		b.fireCallbacks(baseOffset, logAppendTime, err)
	default:
		b.reportOwnerRuns()
	}
	b.acc.completed(b)
	return true
}

// reportOwnerRuns calls Config.OnOwnerRun, when set, for each owner run
// of the batch's records, in record order.
func (b *Batch) reportOwnerRuns() {
	onRun, c := b.acc.cfg.OnOwnerRun, &b.comps
	if onRun == nil {
		return
	}
	for run, o := range c.owners {
		onRun(o.owner, c.runEnd(run, b.count)-int(o.start))
	}
}

// fireCallbacks reports each record in order. Offsets and timestamps come
// from the completion list (a record's offset delta is its index); the encoded
// records are read only for keys, values and headers (ResultRecords) or
// for timestamps too far apart for the record list.
func (b *Batch) fireCallbacks(baseOffset, logAppendTime int64, err error) {
	sc := b.acc.doneScratch.Get().(*doneScratch)
	defer b.acc.doneScratch.Put(sc)
	res := &sc.result
	parse := b.acc.cfg.ResultRecords || b.wideTimestamps
	var records []byte
	if parse && len(b.buf) >= protocol.RecordBatchHeaderSize {
		records = b.buf[protocol.RecordBatchHeaderSize:]
	}
	var parseErr error
	var rec recordView
	// What the records share, set once (the Callback does not change the
	// Result); then, one by one, what they do not, read from the
	// completion list an owner run at a time.
	res.TopicPartition, res.BatchCreatedAt, res.Err = b.tp, b.createdAt, err
	res.Key, res.Value, res.Headers = nil, nil, nil
	offsets := err == nil && baseOffset >= 0
	c, cb, onRun := &b.comps, b.acc.cb, b.acc.cfg.OnOwnerRun
	stamp, delta := 0, int32(0)
	for run, i := 0, 0; i < b.count; run++ {
		end := c.runEnd(run, b.count)
		res.Owner = nil
		if run < len(c.owners) {
			res.Owner = c.owners[run].owner
		}
		for ; i < end; i++ {
			if stamp < len(c.stamps) && c.stamps[stamp] == 0 { // nextDelta's common case, inline
				stamp++
			} else {
				stamp, delta = c.readDelta(stamp, delta)
			}
			res.Ref = nil
			if i < len(c.refs) {
				res.Ref = c.refs[i]
			}
			res.Offset, res.Timestamp = -1, b.baseTimestamp+int64(delta)
			if offsets {
				res.Offset = baseOffset + int64(i)
			}
			if parse {
				parseErr = b.parseRecord(sc, &records, &rec, parseErr)
			}
			res.CreateTime = res.Timestamp
			if logAppendTime != -1 && err == nil {
				res.Timestamp = logAppendTime
			}
			cb(res)
		}
		if run < len(c.owners) && onRun != nil {
			onRun(c.owners[run].owner, end-int(c.owners[run].start))
		}
	}
	*res = Result{}
	clear(sc.headers)
}

// doneScratch is what reporting a batch's records reuses: the Result handed
// to the Callback and the decoded headers. Batches share them through
// Accumulator.doneScratch, so that a batch does not carry them.
type doneScratch struct {
	result  Result
	headers []protocol.Header
}

func newDoneScratch() any { return new(doneScratch) }

// parseRecord reads the next record from *records into sc.result: its
// timestamp and, with ResultRecords, its key, value and headers. Once
// parsing failed (never expected: this package wrote the buffer) every
// later record carries the error instead.
func (b *Batch) parseRecord(sc *doneScratch, records *[]byte, rec *recordView, parseErr error) error {
	res := &sc.result
	if parseErr == nil {
		*records, parseErr = nextRecord(*records, rec)
	}
	if parseErr == nil && b.acc.cfg.ResultRecords {
		res.Key, res.Value, sc.headers, parseErr = decodeTail(rec.tail, sc.headers)
		res.Headers = nil
		if len(sc.headers) > 0 {
			res.Headers = sc.headers
		}
	}
	if parseErr != nil {
		res.Err, res.Offset = parseErr, -1
		return parseErr
	}
	res.Timestamp = b.baseTimestamp + rec.timestampDelta
	return nil
}

// Outcomes returns how many records were delivered and how many failed so
// far (their batches are done).
func (a *Accumulator) Outcomes() (delivered, failed int64) {
	return a.delivered.Load(), a.failed.Load()
}
