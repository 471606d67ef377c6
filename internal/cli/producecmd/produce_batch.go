package producecmd

import (
	"context"

	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/internal/cli/report"
	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/sender"
)

// sendScratch is produceBatch's reused memory.
type sendScratch struct {
	run   []accumulator.Record // produceRun's records
	recs  []sender.Record      // produceMixed's records
	index []int                // the index in the batch read of each record sent
}

// produceBatch hands the records of one read (see input.ReadBatch) to the
// producer at once, reporting those that fail before or when they are
// handed over. Records that all go to --topic (lines and file input) go
// as one run (Producer.SendRun); json and layout records, which may name
// their own topic and partition, one by one in one SendBatch. It returns
// false when reading must stop.
func (r *producerRun) produceBatch(ctx context.Context, source int32, recs []input.Record) bool {
	if f := r.opts.Input.Format; (f == input.FormatLines || f == input.FormatFile) && r.opts.Topic != "" {
		return r.produceRun(ctx, source, recs)
	}
	return r.produceMixed(ctx, source, recs)
}

// produceRun sends records that share the topic and partition of the
// options and the read time of their buffer.
func (r *producerRun) produceRun(ctx context.Context, source int32, recs []input.Record) bool {
	sb := &r.sendScratch
	sb.run, sb.index = grow(sb.run, len(recs)), sb.index[:0]
	n, bytes := 0, 0
	for k := range recs {
		rec := &recs[k]
		if rec.Err != nil {
			r.reportUnsent(source, rec, r.opts.Topic, r.opts.Partition, rec.Err)
			continue
		}
		// Every field, one by one: a struct literal would be built aside
		// and copied whole.
		a := &sb.run[n]
		a.Timestamp, a.Key, a.Value, a.Headers = rec.Timestamp, rec.Key, rec.Value, rec.Headers
		a.Position = accumulator.Position{Source: source, Record: rec.Number}
		sb.index = append(sb.index, k)
		bytes += len(rec.Key) + len(rec.Value)
		n++
	}
	run := sb.run[:n]
	if n == 0 {
		return true
	}
	refuse := func(i int, err error) {
		rec := &recs[sb.index[i]]
		r.reportUnsent(source, rec, r.opts.Topic, r.opts.Partition, sendError(err))
		bytes -= len(rec.Key) + len(rec.Value)
	}
	readAt := recs[sb.index[0]].ReadAt // one read: one time for all
	handled := r.sendAll(ctx, n, refuse, func(off int, refused func(int, error)) (int, error) {
		return r.prod.SendRun(ctx, r.opts.Topic, r.opts.Partition, readAt, run[off:], refused)
	})
	r.countSent(bytes, recs, sb.index[handled:])
	return handled == n
}

// produceMixed sends records that may each name their topic, partition
// and timestamp.
func (r *producerRun) produceMixed(ctx context.Context, source int32, recs []input.Record) bool {
	sb := &r.sendScratch
	sb.recs, sb.index = grow(sb.recs, len(recs)), sb.index[:0]
	n, bytes := 0, 0
	for k := range recs {
		// Every field, one by one, in place: a struct literal would be
		// built aside and copied whole.
		rec, srec := &recs[k], &sb.recs[n]
		srec.Topic, srec.Partition = rec.Topic, rec.Partition
		srec.Key, srec.Value, srec.Headers = rec.Key, rec.Value, rec.Headers
		srec.Timestamp, srec.ReadAt = rec.Timestamp, rec.ReadAt
		srec.Position = accumulator.Position{Source: source, Record: rec.Number}
		srec.Topic = r.topics.choose(rec.Topic)
		if srec.Partition < 0 {
			srec.Partition = r.opts.Partition
		}
		err := rec.Err
		if err == nil && srec.Topic == "" {
			err = errNoTopic
		}
		if err != nil {
			r.reportUnsent(source, rec, srec.Topic, srec.Partition, err)
			continue
		}
		sb.index = append(sb.index, k)
		bytes += len(rec.Key) + len(rec.Value)
		n++
	}
	sent := sb.recs[:n]
	refuse := func(i int, err error) {
		rec := &recs[sb.index[i]]
		r.reportUnsent(source, rec, sent[i].Topic, sent[i].Partition, sendError(err))
		bytes -= len(rec.Key) + len(rec.Value)
	}
	handled := r.sendAll(ctx, n, refuse, func(off int, refused func(int, error)) (int, error) {
		return r.prod.SendBatch(ctx, sent[off:], refused)
	})
	r.countSent(bytes, recs, sb.index[handled:])
	return handled == n
}

// sendAll hands n records to the producer with send (from the offset
// given), reporting each refused one with refuse, and goes on after an
// error that stops a send (the record it names is refused) unless reading
// must stop. It returns how many records were handed over or refused: n,
// or fewer when reading must stop, the others left unsent and unreported,
// as records not read.
func (r *producerRun) sendAll(ctx context.Context, n int, refuse func(i int, err error),
	send func(off int, refused func(int, error)) (int, error)) int {
	for off := 0; off < n; {
		k, err := send(off, func(i int, err error) { refuse(off+i, err) })
		if err == nil {
			return n
		}
		refuse(off+k, err)
		off += k + 1
		if off < n && r.shouldStop(ctx) {
			return off
		}
	}
	return n
}

// countSent adds to the stats the bytes of the records handed over: bytes,
// less the records of recs at unsent, which were left.
func (r *producerRun) countSent(bytes int, recs []input.Record, unsent []int) {
	if r.stats == nil {
		return
	}
	for _, k := range unsent {
		bytes -= len(recs[k].Key) + len(recs[k].Value)
	}
	r.stats.sentBytes(int64(bytes))
}

// reportUnsent reports a record that failed before the producer took it.
func (r *producerRun) reportUnsent(source int32, rec *input.Record, topic string, partition int32, err error) {
	r.report(source, &report.Record{Source: rec.Source, Number: rec.Number, Topic: topic,
		Partition: partition, Offset: -1, Timestamp: -1, Key: rec.Key, Value: rec.Value, Err: err})
}

// grow returns s with length n, reallocated only when its capacity is
// short (the contents are then lost: it is scratch).
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
