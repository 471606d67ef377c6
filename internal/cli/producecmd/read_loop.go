package producecmd

import (
	"context"
	"errors"
	"io"

	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/pkg/sender"
)

// errNoTopic is the outcome of a record that names no topic when --topic
// is not given.
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
// runs committed, --count counting their records too. Each input file is
// opened when its turn comes and closed at its end, one at a time, small
// ones read ahead of their turn (input.ReadAhead).
func (r *producerRun) readInputs(ctx context.Context, inputs []input.Input) {
	var skipped int64 // records of the earlier runs, counted by --count
	if r.resume != nil {
		skipped = r.resume.skipped
	}
	defer input.ReadAhead(inputs)()
	var b input.Batch
	for i, in := range inputs {
		if r.opts.Count > 0 && skipped+r.read.Load() >= r.opts.Count {
			return
		}
		if r.resume != nil && r.resume.complete[i] {
			continue
		}
		more := r.readInput(ctx, i, in, &b, skipped)
		_ = in.Close()
		if !more {
			return
		}
	}
	if !r.readErr.Load() && (r.opts.Count == 0 || skipped+r.read.Load() < r.opts.Count) {
		r.inputEnded.Store(true)
	}
}

// readInput reads input i to its end, or until --count records were read,
// into b; skipped are the records of the earlier runs. A file that cannot
// be opened or read fails on its own, as a read error. It returns false
// when reading must stop.
func (r *producerRun) readInput(ctx context.Context, i int, in input.Input, b *input.Batch, skipped int64) bool {
	var start input.Start
	if r.resume != nil {
		start = r.resume.start(i)
	}
	start.Size = in.Size() // before Open: the size checked, without a system call
	if err := in.Open(); err != nil {
		r.rep.Errorf("error: %s: %v\n", in.Name, err)
		r.readErr.Store(true)
		return true
	}
	rr, err := input.NewReaderAt(&r.opts.Input, in.Name, in.R, start)
	if err != nil {
		r.rep.Errorf("error: %s: %v\n", in.Name, err)
		r.readErr.Store(true)
		return false
	}
	last := int64(0) // the number of the last record read from this input
	for r.opts.Count == 0 || skipped+r.read.Load() < r.opts.Count {
		if r.shouldStop(ctx) {
			return false
		}
		err := input.ReadBatch(rr, b, r.batchLimit(skipped+r.read.Load()))
		if errors.Is(err, io.EOF) {
			if r.resume != nil {
				r.resume.tracker.Complete(i)
			}
			return true
		}
		if err != nil {
			r.rep.Errorf("error: %s: read after record %d: %v\n", in.Name, last, err)
			r.readErr.Store(true)
			return true
		}
		if r.stopped.Load() {
			return false
		}
		r.read.Add(int64(len(b.Records)))
		last = b.Records[len(b.Records)-1].Number
		if r.resume != nil {
			for k := range b.Records {
				r.resume.tracker.Record(i, b.Records[k].Number)
			}
		}
		if !r.hand(ctx, i, b.Records) {
			return false
		}
	}
	return true
}

// hand hands the records of one read of input i to the producer, as the
// run's mode says. It returns false when reading must stop.
func (r *producerRun) hand(ctx context.Context, i int, recs []input.Record) bool {
	// The records' Origins, reused from read to read: this read uses them
	// until it returns, and each producer call that took records until
	// its completion (see produce).
	origins := r.origins.Take(i, r.sources[i], recs[0].ReadAt, recs)
	defer origins.Release()
	oneByOne := r.oneByOne()
	if r.pacer != nil && oneByOne {
		// Held back by --rate: the record is read when its turn comes.
		at, err := r.pacer.Wait(ctx)
		if err != nil {
			if send, _ := r.prepare(ctx, origins, recs, false); len(send) > 0 {
				send[0].Offset = -1
				r.report(send[0], errInterrupted)
			}
			return false
		}
		origins.Chunk.ReadAt = at
	}
	send, ok := r.prepare(ctx, origins, recs, !oneByOne)
	switch {
	case !ok:
		return false
	case r.txn != nil && oneByOne:
		return r.txn.record(ctx, send, origins)
	case r.opts.Sync && oneByOne:
		ok := r.produce(ctx, send, origins)
		_ = r.prod.Flush(ctx) // --sync: its outcome before the next record is read
		return ok
	}
	return r.produce(ctx, send, origins)
}

// prepare makes the records of one read ready for the producer, in
// r.send: each with its Origin (of origins) as Opaque (the readers gave
// them their topic and partition: see input.Config.Topic). A record that
// failed to be read or has no topic is reported, not sent; with handOver
// the records before it are handed to the producer first, so that reports
// keep the input's order where the producer's do (a dry run). It returns the records to hand over, and false when reading must
// stop.
func (r *producerRun) prepare(ctx context.Context, origins *input.Origins, recs []input.Record, handOver bool) ([]*sender.Record, bool) {
	if cap(r.send) < len(recs) {
		r.send = make([]*sender.Record, len(recs))
	}
	send, n := r.send[:len(recs)], 0
	for k := range recs {
		rec := &recs[k]
		rec.Opaque = &origins.List[k]
		if rec.Err == nil && rec.Topic != "" { // the common case: to hand over
			send[n] = &rec.Record
			n++
			continue
		}
		err := rec.Err
		if err == nil {
			err = errNoTopic
		}
		if handOver && n > 0 {
			r.countSent(send[:n])
			if !r.produce(ctx, send[:n], origins) {
				return nil, false
			}
			n = 0
		}
		rec.Offset = -1
		r.report(&rec.Record, err)
	}
	r.countSent(send[:n])
	return send[:n], true
}

// countSent adds to the stats the key and value bytes of records handed
// over.
func (r *producerRun) countSent(recs []*sender.Record) {
	if r.stats == nil {
		return
	}
	bytes := 0
	for _, rec := range recs {
		bytes += len(rec.Key) + len(rec.Value)
	}
	r.stats.sentBytes(int64(bytes))
}

// produce hands records to the producer, reporting a record it did not
// take because of an error that stops a hand-over (the records after it
// are handed on unless reading must stop). It returns false when reading
// must stop; the records not handed over are then left unreported, as
// records not read. Each producer call uses origins (the records' Opaque)
// until its completion: every promise of its records ran.
func (r *producerRun) produce(ctx context.Context, send []*sender.Record, origins *input.Origins) bool {
	for off := 0; off < len(send); {
		origins.Hold()
		k, err := r.prod.ProduceBatchDone(ctx, send[off:], r.promiseFn, origins.ReleaseFunc())
		if err == nil {
			return true
		}
		rec := send[off+k]
		if r.stats != nil {
			r.stats.sentBytes(-int64(len(rec.Key) + len(rec.Value)))
		}
		rec.Offset = -1
		r.report(rec, sendError(ctx, err))
		off += k + 1
		if r.shouldStop(ctx) {
			if r.stats != nil {
				for _, left := range send[off:] {
					r.stats.sentBytes(-int64(len(left.Key) + len(left.Value)))
				}
			}
			return false
		}
	}
	return true
}

// oneByOne reports whether records go to the producer one at a time: in a
// transaction (each joins the open one), with --rate (each waits for its
// turn) or --sync (each waits for its outcome). A dry run never waits.
func (r *producerRun) oneByOne() bool {
	return !r.dry && (r.txn != nil || r.pacer != nil || r.opts.Sync)
}

// batchLimit is how many records the next read may hand on at once, after
// read records: one when they go one by one, no more than --count leaves.
func (r *producerRun) batchLimit(read int64) int {
	if r.oneByOne() {
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
