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

// readInputs reads every input in order and hands each record to the
// producer, until the inputs end, --count records were read, the run is
// interrupted, stdout is closed or the producer stops for good. A resumed
// run (--resume) reads on after what the earlier runs committed, --count
// counting their records too.
func (r *producerRun) readInputs(ctx context.Context, inputs []input.Input) {
	var skipped int64 // records of the earlier runs, counted by --count
	if r.resume != nil {
		skipped = r.resume.skipped
	}
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
		var rec input.Record
		var srec sender.Record
		for r.opts.Count == 0 || skipped+r.read.Load() < r.opts.Count {
			if r.shouldStop(ctx) {
				return
			}
			err := rr.Next(&rec)
			if errors.Is(err, io.EOF) {
				if r.resume != nil {
					r.resume.tracker.Complete(i)
				}
				break
			}
			if err != nil {
				r.rep.Errorf("error: %s: read after record %d: %v\n", in.Name, rec.Number, err)
				r.readErr.Store(true)
				break
			}
			if r.stopped.Load() {
				return
			}
			r.read.Add(1)
			if r.resume != nil {
				r.resume.tracker.Record(i, rec.Number)
			}
			if r.txn != nil {
				if !r.txn.record(ctx, int32(i), &rec) {
					return
				}
				continue
			}
			r.produce(ctx, int32(i), &rec, &srec)
		}
	}
	if !r.readErr.Load() && (r.opts.Count == 0 || skipped+r.read.Load() < r.opts.Count) {
		r.inputEnded.Store(true)
	}
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
