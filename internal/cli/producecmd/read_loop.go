package producecmd

import (
	"context"
	"errors"
	"io"

	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/internal/cli/report"
	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/sender"
)

// errNoTopic is the outcome of a JSON record that names no topic when
// --topic is not given.
var errNoTopic = errors.New("no topic: the record names none and --topic is not set")

// maxBatchRecords bounds the records read and handed to the producer
// together (what one read buffer holds, of small records), so that the
// scratch they need stays small.
const maxBatchRecords = 1024

// readInputs reads every input in order and hands its records to the
// producer, a read buffer's worth at a time, until the inputs end, --count
// records were read, the run is interrupted, stdout is closed or the
// producer stops for good. With --rate or a transaction, records go one by
// one: each waits for its turn, or joins the open transaction.
func (r *producerRun) readInputs(ctx context.Context, inputs []input.Input) {
	var b input.Batch
	for i, in := range inputs {
		rr, err := input.NewReader(&r.opts.Input, in.Name, in.R)
		if err != nil {
			r.rep.Errorf("error: %s: %v\n", in.Name, err)
			r.readErr.Store(true)
			return
		}
		var srec sender.Record
		last := int64(0) // the number of the last record read from this input
		for r.opts.Count == 0 || r.read.Load() < r.opts.Count {
			if r.shouldStop(ctx) {
				return
			}
			err := input.ReadBatch(rr, &b, r.batchLimit(r.read.Load()))
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				r.rep.Errorf("error: %s: read after record %d: %v\n", in.Name, last, err)
				r.readErr.Store(true)
				break
			}
			if r.stopped.Load() {
				return
			}
			r.read.Add(int64(len(b.Records)))
			last = b.Records[len(b.Records)-1].Number
			switch {
			case r.txn != nil:
				if !r.txn.record(ctx, int32(i), &b.Records[0]) {
					return
				}
			case r.pacer != nil:
				r.produce(ctx, int32(i), &b.Records[0], &srec)
			case !r.produceBatch(ctx, int32(i), b.Records):
				return
			}
		}
	}
}

// batchLimit is how many records the next read may hand on at once, after
// read records: one with --rate or a transaction, no more than --count
// leaves.
func (r *producerRun) batchLimit(read int64) int {
	if r.txn != nil || r.pacer != nil {
		return 1
	}
	if r.opts.Count > 0 {
		return int(min(int64(maxBatchRecords), r.opts.Count-read))
	}
	return maxBatchRecords
}

// shouldStop reports whether reading must end early.
func (r *producerRun) shouldStop(ctx context.Context) bool {
	return ctx.Err() != nil || r.stopped.Load() || r.rep.WriteErr() != nil || r.prod.FatalError() != nil
}

// produce sends one input record, or reports why it cannot be sent.
func (r *producerRun) produce(ctx context.Context, source int32, rec *input.Record, srec *sender.Record) {
	*srec = sender.Record{
		Topic:     rec.Topic,
		Partition: rec.Partition,
		Key:       rec.Key,
		Value:     rec.Value,
		Headers:   rec.Headers,
		Timestamp: rec.Timestamp,
		ReadAt:    rec.ReadAt,
	}
	if srec.Topic == "" {
		srec.Topic = r.opts.Topic
	}
	if srec.Partition < 0 {
		srec.Partition = r.opts.Partition
	}
	err := rec.Err
	if err == nil && srec.Topic == "" {
		err = errNoTopic
	}
	if err == nil && r.pacer != nil {
		// Held back by --rate: the record is read when its turn comes.
		if srec.ReadAt, err = r.pacer.wait(ctx); err != nil {
			err = sendError(err)
		}
	}
	if err == nil {
		pos := accumulator.Position{Source: source, Record: rec.Number}
		if err = r.prod.Send(ctx, srec, pos); err != nil {
			err = sendError(err)
		} else if r.stats != nil {
			r.stats.sent(srec.Key, srec.Value)
		}
	}
	if err != nil {
		r.report(source, &report.Record{Source: rec.Source, Number: rec.Number, Topic: srec.Topic,
			Partition: srec.Partition, Offset: -1, Timestamp: -1, Key: rec.Key, Value: rec.Value, Err: err})
	}
}

// report prints a record's report, or holds it until its transaction ends.
func (r *producerRun) report(source int32, rep *report.Record) {
	if r.txn != nil {
		r.txn.hold(source, rep)
		return
	}
	r.rep.Report(rep)
}

// produceBatch sends the records of one read (see input.ReadBatch) with one
// SendBatch, reporting those that fail before or when they are handed to
// the producer. It returns false when reading must stop.
func (r *producerRun) produceBatch(ctx context.Context, source int32, recs []input.Record) bool {
	sb := &r.sendScratch
	sb.recs, sb.index = grow(sb.recs, len(recs)), sb.index[:0]
	n := 0
	for k := range recs {
		// Every field, one by one, in place: a struct literal would be
		// built aside and copied whole.
		rec, srec := &recs[k], &sb.recs[n]
		srec.Topic, srec.Partition = rec.Topic, rec.Partition
		srec.Key, srec.Value, srec.Headers = rec.Key, rec.Value, rec.Headers
		srec.Timestamp, srec.ReadAt = rec.Timestamp, rec.ReadAt
		srec.Position = accumulator.Position{Source: source, Record: rec.Number}
		if srec.Topic == "" {
			srec.Topic = r.opts.Topic
		}
		if srec.Partition < 0 {
			srec.Partition = r.opts.Partition
		}
		err := rec.Err
		if err == nil && srec.Topic == "" {
			err = errNoTopic
		}
		if err != nil {
			r.reportUnsent(source, rec, srec, err)
			continue
		}
		sb.index = append(sb.index, k)
		n++
	}
	sb.recs = sb.recs[:n]
	sent := sb.recs
	refuse := func(i int, err error) {
		r.reportUnsent(source, &recs[sb.index[i]], &sent[i], sendError(err))
		sent[i].Topic = "" // not sent: not counted in the stats
	}
	for off := 0; off < len(sent); {
		n, err := r.prod.SendBatch(ctx, sent[off:], func(i int, err error) { refuse(off+i, err) })
		if err == nil {
			break
		}
		refuse(off+n, err)
		off += n + 1
		if r.shouldStop(ctx) {
			r.countSent(sent[:off])
			return false
		}
	}
	r.countSent(sent)
	return true
}

// sendScratch is produceBatch's reused memory.
type sendScratch struct {
	recs  []sender.Record
	index []int // the index in the batch read of each of recs
}

// countSent adds the records handed to the producer to the stats.
func (r *producerRun) countSent(recs []sender.Record) {
	if r.stats == nil {
		return
	}
	for i := range recs {
		if recs[i].Topic != "" {
			r.stats.sent(recs[i].Key, recs[i].Value)
		}
	}
}

// reportUnsent reports a record that failed before the producer took it.
func (r *producerRun) reportUnsent(source int32, rec *input.Record, srec *sender.Record, err error) {
	r.report(source, &report.Record{Source: rec.Source, Number: rec.Number, Topic: srec.Topic,
		Partition: srec.Partition, Offset: -1, Timestamp: -1, Key: rec.Key, Value: rec.Value, Err: err})
}

// grow returns s with length n, reallocated only when its capacity is
// short (the contents are then lost: it is scratch).
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
