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
// interrupted, stdout is closed or the producer stops for good.
func (r *producerRun) readInputs(ctx context.Context, inputs []input.Input) {
	for i, in := range inputs {
		rr, err := input.NewReader(&r.opts.Input, in.Name, in.R)
		if err != nil {
			r.rep.Errorf("error: %s: %v\n", in.Name, err)
			r.readErr.Store(true)
			return
		}
		var rec input.Record
		var srec sender.Record
		for r.opts.Count == 0 || r.read.Load() < r.opts.Count {
			if r.shouldStop(ctx) {
				return
			}
			err := rr.Next(&rec)
			if errors.Is(err, io.EOF) {
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
			if r.txn != nil {
				if !r.txn.record(ctx, int32(i), &rec) {
					return
				}
				continue
			}
			r.produce(ctx, int32(i), &rec, &srec)
		}
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
