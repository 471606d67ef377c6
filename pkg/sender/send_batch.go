package sender

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/kproduce/kproduce/pkg/accumulator"
)

// SendBatch sends recs, in order, as Send would one after the other, each
// with its Record.Position, but a run at a time: the records of one topic
// and read time are routed under one acquisition of the partitioner's
// lock and appended under one acquisition of the accumulator's lock per
// partition touched (Kafka's sticky partitioning, linger, buffer memory
// and delivery timeout apply as they do to Send). The metadata of every
// topic of recs that is not known yet is asked for in one fetch.
//
// refused, which may be nil, is called on this goroutine for each record
// that is not accepted, with its index in recs and the error Send would
// have returned for it (ErrUnknownPartition, ErrRecordTooLarge,
// ErrTopicMetadata...); it must not call back into the Producer. The
// records appended after such a record may reach the callback before its
// refusal is reported. Records refused or appended are done with.
//
// SendBatch returns how many records from the front it handled (appended
// or refused). When that is short of len(recs), the record at that index
// was not accepted because of err, the error that stops every later record
// too: ctx ended, the producer was closed (ErrClosed) or stopped (its
// fatal error), or a transactional producer has no open transaction; the
// records after it were not looked at.
func (p *Producer) SendBatch(ctx context.Context, recs []Record, refused func(i int, err error)) (int, error) {
	if err := p.checkAccepting(); err != nil {
		return 0, err
	}
	sc := p.scratch.Get().(*batchScratch)
	defer p.scratch.Put(sc)
	ends := p.runs(recs, sc)
	b := batchSend{p: p, sc: sc, refused: refused}
	i := 0
	for _, j := range ends {
		if err := b.sendRun(ctx, recs[i:j], i); err != nil {
			return b.stoppedAt, err
		}
		i = j
	}
	return len(recs), nil
}

// runs splits recs into runs (see runEnd) and returns their ends, in
// sc.ends; meanwhile it adds every topic of recs that the metadata does not
// know yet, at once, so that they are fetched together before the first
// of them is waited for.
func (p *Producer) runs(recs []Record, sc *batchScratch) []int {
	cluster := p.md.Fetch()
	var topics []string
	ends := sc.ends[:0]
	last := ""
	for i := 0; i < len(recs); {
		if t := recs[i].Topic; !sameString(t, last) && t != "" {
			last = t
			if cluster.PartitionCount(t) == 0 {
				topics = append(topics, t)
			}
		}
		i = runEnd(recs, i)
		ends = append(ends, i)
	}
	if len(topics) > 0 {
		p.md.AddTopics(topics...)
	}
	sc.ends = ends
	return ends
}

// checkAccepting is the error every record gets while the producer does
// not accept records, nil while it does.
func (p *Producer) checkAccepting() error {
	if err := p.sender.fatalError(); err != nil {
		return err
	}
	if p.sender.closing.Load() {
		return ErrClosed
	}
	if tm := p.sender.txn; tm != nil && !tm.open.Load() {
		return fmt.Errorf("%w: a transactional producer sends records only inside a transaction", ErrTransactionState)
	}
	return nil
}

// runEnd is the end of the run of records starting at i: the records of
// the same topic, read at the same time, that are all unkeyed records for
// the partitioner or all not (see unkeyed).
func runEnd(recs []Record, i int) int {
	first := &recs[i]
	u := unkeyed(first)
	topic, readAt := first.Topic, first.ReadAt
	j := i + 1
	for ; j < len(recs); j++ {
		r := &recs[j]
		if !sameString(r.Topic, topic) || !sameTime(r.ReadAt, readAt) || unkeyed(r) != u {
			break
		}
	}
	return j
}

// sameString is a == b, answered at once for the common case of one
// string value shared by many records (the same topic name).
func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// sameTime is a.Equal(b), answered at once for the common case of one
// time value shared by many records (read from one buffer).
func sameTime(a, b time.Time) bool { return a == b || a.Equal(b) }

// unkeyed reports whether the partitioner places rec as a record without
// a key: it names no partition and has no key.
func unkeyed(rec *Record) bool { return rec.Partition < 0 && rec.Key == nil }

// batchScratch is SendBatch's reused memory, from Producer.scratch.
type batchScratch struct {
	ends    []int                // the end of each run of the batch
	recs    []accumulator.Record // the run's records, grouped by partition
	index   []int                // the index in the run of each of recs
	parts   []int32              // the partition of each record of the run, -1 when refused
	offsets []int                // per partition, where its records start in recs
}

func newBatchScratch() any { return new(batchScratch) }

// batchSend is one SendBatch call.
type batchSend struct {
	p         *Producer
	sc        *batchScratch
	refused   func(int, error)
	stoppedAt int // the index in the whole batch of the record that stopped it
}

// refuse reports that the record at index i of the batch was refused.
func (b *batchSend) refuse(i int, err error) {
	if b.refused != nil {
		b.refused(i, err)
	}
}

// sendRun sends one run of records (see runEnd) whose first record is at
// index base of the batch. It returns the error that stops the batch,
// with stoppedAt set.
func (b *batchSend) sendRun(ctx context.Context, run []Record, base int) error {
	p := b.p
	topic := run[0].Topic
	n, err := p.partitionCount(ctx, topic)
	if err != nil {
		if b.stops(ctx, err) {
			b.stoppedAt = base
			return err
		}
		for i := range run {
			b.refuse(base+i, err)
		}
		return nil
	}
	now := p.readTime(run[0].ReadAt)
	rs := &runSpec{base: base, topic: topic, n: n, ts: now.UnixMilli(), now: now}
	if unkeyed(&run[0]) {
		if p.stickyForNullKeys() {
			return b.sendSticky(ctx, run, rs)
		}
		return b.sendEach(ctx, run, rs)
	}
	return b.sendRouted(ctx, run, rs)
}

// stickyForNullKeys reports whether the partitioner keeps records without
// a key on one partition until OnNewBatch (accumulator.StickyPartitioner).
func (p *Producer) stickyForNullKeys() bool {
	sp, ok := p.part.(accumulator.StickyPartitioner)
	return ok && sp.StickyForNullKeys()
}

// runSpec is what the records of a run share.
type runSpec struct {
	base  int    // the index in the batch of the run's first record
	topic string // their topic
	n     int    // its partition count
	ts    int64  // the timestamp of those that bring none
	now   time.Time
}

// readTime is the time a record read at readAt counts from: readAt (now
// when zero), but not before the end of the latest metadata wait (see
// Producer.waitEnd).
func (p *Producer) readTime(readAt time.Time) time.Time {
	now := readAt
	if now.IsZero() {
		now = p.clock.Now()
	}
	if end := p.waitEnd.Load(); end != nil && now.Before(*end) {
		now = *end
	}
	return now
}

// stops reports whether an error of one record stops the whole batch.
func (b *batchSend) stops(ctx context.Context, err error) bool {
	return errors.Is(err, ErrClosed) || errors.Is(err, accumulator.ErrClosed) || ctx.Err() != nil ||
		b.p.sender.fatalError() != nil
}

// stop turns an error that stops the batch at index i into the one Send
// would return.
func (b *batchSend) stop(i int, err error) error {
	b.stoppedAt = i
	if errors.Is(err, accumulator.ErrClosed) {
		if ferr := b.p.sender.fatalError(); ferr != nil {
			return ferr
		}
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return err
}

// fill copies run into the scratch records, timestamped ts unless they
// bring their own.
func (b *batchSend) fill(run []Record, ts int64) []accumulator.Record {
	recs := grow(b.sc.recs, len(run))
	for i := range run {
		toAppend(&recs[i], &run[i], ts)
	}
	b.sc.recs = recs
	return recs
}

// toAppend sets dst to the accumulator's form of r, timestamped ts unless
// it brings its own.
func toAppend(dst *accumulator.Record, r *Record, ts int64) {
	dst.Timestamp = ts
	if r.Timestamp != 0 {
		dst.Timestamp = r.Timestamp
	}
	dst.Key, dst.Value, dst.Headers, dst.Position = r.Key, r.Value, r.Headers, r.Position
}

// sendSticky appends a run of unkeyed records with a sticky partitioner
// (see appendSticky).
func (b *batchSend) sendSticky(ctx context.Context, run []Record, rs *runSpec) error {
	return b.appendSticky(ctx, b.fill(run, rs.ts), rs)
}

// appendSticky appends unkeyed records, in the accumulator's form, with a
// sticky partitioner: to the topic's sticky partition until a record would
// open a new batch there; then the partitioner moves on (OnNewBatch) and
// that record opens a batch on the new partition, as in Kafka's
// abortOnNewBatch dance.
func (b *batchSend) appendSticky(ctx context.Context, recs []accumulator.Record, rs *runSpec) error {
	p := b.p
	tp := accumulator.TopicPartition{Topic: rs.topic}
	p.mu.Lock()
	tp.Partition = p.part.Partition(rs.topic, nil, rs.n)
	p.mu.Unlock()
	for done := 0; done < len(recs); {
		k, res, err := p.acc.AppendRecords(ctx, tp, recs[done:], true, rs.now)
		done += k
		switch {
		case err != nil && errors.Is(err, accumulator.ErrRecordTooLarge):
			b.refuse(rs.base+done, err)
			done++
			continue
		case err != nil:
			return b.stop(rs.base+done, err)
		case !res.AbortForNewBatch:
			continue
		}
		p.mu.Lock()
		p.part.OnNewBatch(rs.topic, rs.n, tp.Partition)
		tp.Partition = p.part.Partition(rs.topic, nil, rs.n)
		p.mu.Unlock()
		_, _, err = p.acc.AppendRecords(ctx, tp, recs[done:done+1], false, rs.now)
		switch {
		case err != nil && errors.Is(err, accumulator.ErrRecordTooLarge):
			b.refuse(rs.base+done, err)
		case err != nil:
			return b.stop(rs.base+done, err)
		}
		done++
	}
	return nil
}

// appendTo appends records, in the accumulator's form, to one partition,
// refusing those too large. index, when not nil, holds each record's index
// in the run (see groupBy); otherwise recs is the run.
func (b *batchSend) appendTo(ctx context.Context, tp accumulator.TopicPartition, recs []accumulator.Record, rs *runSpec, index []int) error {
	for from := 0; from < len(recs); {
		k, _, err := b.p.acc.AppendRecords(ctx, tp, recs[from:], false, rs.now)
		if from += k; err == nil {
			continue
		}
		at := rs.base + from
		if index != nil {
			at = rs.base + index[from]
		}
		if !errors.Is(err, accumulator.ErrRecordTooLarge) {
			return b.stop(at, err)
		}
		b.refuse(at, err)
		from++
	}
	return nil
}

// sendEach appends a run of unkeyed records one by one, for a partitioner
// that may choose anew for each (round-robin, random).
func (b *batchSend) sendEach(ctx context.Context, run []Record, rs *runSpec) error {
	recs := b.fill(run, rs.ts)
	for i := range run {
		r := &recs[i]
		_, err := b.p.append(ctx, &run[i], rs.n, r.Timestamp, r.Position, rs.now)
		switch {
		case err != nil && errors.Is(err, accumulator.ErrRecordTooLarge):
			b.refuse(rs.base+i, err)
		case err != nil:
			return b.stop(rs.base+i, err)
		}
	}
	return nil
}
