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
// producer stops for good. With --rate, --sync or a transaction, records go
// one by one: each waits for its turn or its outcome, or joins the open
// transaction. A resumed run (--resume) reads on after what the earlier
// runs committed, --count counting their records too.
func (r *producerRun) readInputs(ctx context.Context, inputs []input.Input) {
	var skipped int64 // records of the earlier runs, counted by --count
	if r.resume != nil {
		skipped = r.resume.skipped
	}
	var b input.Batch
	for i, in := range inputs {
		var start input.Start
		if r.resume != nil {
			if r.resume.complete[i] {
				continue
			}
			start = r.resume.start(i)
		}
		rr, err := input.NewReaderAt(&r.opts.Input, in.Name, in.R, start)
		if err != nil {
			r.rep.Errorf("error: %s: %v\n", in.Name, err)
			r.readErr.Store(true)
			return
		}
		var srec sender.Record
		last := int64(0) // the number of the last record read from this input
		for r.opts.Count == 0 || skipped+r.read.Load() < r.opts.Count {
			if r.shouldStop(ctx) {
				return
			}
			err := input.ReadBatch(rr, &b, r.batchLimit(skipped+r.read.Load()))
			if errors.Is(err, io.EOF) {
				if r.resume != nil {
					r.resume.tracker.Complete(i)
				}
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
			if r.resume != nil {
				for k := range b.Records {
					r.resume.tracker.Record(i, b.Records[k].Number)
				}
			}
			switch {
			case r.txn != nil:
				if !r.txn.record(ctx, int32(i), &b.Records[0]) {
					return
				}
			case r.oneByOne():
				r.produce(ctx, int32(i), &b.Records[0], &srec)
			case !r.produceBatch(ctx, int32(i), b.Records):
				return
			}
		}
	}
	if !r.readErr.Load() && (r.opts.Count == 0 || skipped+r.read.Load() < r.opts.Count) {
		r.inputEnded.Store(true)
	}
}

// oneByOne reports whether records go to the producer one at a time:
// --rate spaces them, --sync waits for each one's outcome.
func (r *producerRun) oneByOne() bool { return r.pacer != nil || r.opts.Sync }

// batchLimit is how many records the next read may hand on at once, after
// read records: one with a transaction, --rate or --sync, no more than
// --count leaves.
func (r *producerRun) batchLimit(read int64) int {
	if r.txn != nil || r.oneByOne() {
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
	srec.Topic = r.topics.choose(rec.Topic)
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
		if err == nil && r.opts.Sync {
			_ = r.prod.Flush(ctx) // --sync: its outcome before the next record is read
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
