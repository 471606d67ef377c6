package sender

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
	"unsafe"

	"github.com/kproduce/kproduce/pkg/accumulator"
)

// ProduceBatch produces recs, in order, as Produce would one after the
// other, but a run at a time: the records of one topic are placed under
// one acquisition of the partitioner's lock and appended under one
// acquisition of the accumulator's lock per partition touched, with no
// allocation per record (Kafka's sticky partitioning, linger, buffer memory
// and delivery timeout apply as they do to Produce). The metadata of every
// topic of recs that is not known yet is asked for in one fetch.
//
// Unlike Produce, ProduceBatch copies each record into its batch: recs,
// the records and the bytes they reference may be reused as soon as it
// returns. promise
// (which may be nil) is called once for each record handled, with a
// *Record that is valid only during the call: the producer's own copy,
// with the record's Topic, Partition, Offset, Timestamp and Opaque (its
// Key, Value and Headers only with PromiseRecordBytes, and aliasing the
// producer's memory). A record refused at once (too large, an unknown
// partition) has its promise called before ProduceBatch returns, with the
// record itself (an element of recs) and an error wrapping ErrNotSent; promises of the
// records appended after it may run before.
//
// ProduceBatch returns how many records from the front it handled
// (appended or refused). When that is short of len(recs), the record at
// that index was not taken because of err, the error that stops every
// later record too (ctx ended, the producer was closed or stopped, a
// transactional producer has no open transaction): that record and those
// after it get no promise. ProduceBatchDone also tells when every record
// taken has its outcome.
func (p *Producer) ProduceBatch(ctx context.Context, recs []*Record, promise func(*Record, error)) (int, error) {
	if promise == nil {
		promise = func(*Record, error) {}
	}
	if p.dry != nil {
		return p.dry.produce(ctx, p, recs, promise)
	}
	return p.produce(ctx, recs, nil, batchPromise(promise), promise)
}

// produce is ProduceBatch, and Produce with own set and recs nil: own is
// then the one record, and its own reference in its batch.
func (p *Producer) produce(ctx context.Context, recs []*Record, own *Record, owner any, promise func(*Record, error)) (int, error) {
	if err := p.checkAccepting(); err != nil {
		return 0, err
	}
	sc := p.scratch.Get().(*batchScratch)
	defer p.scratch.Put(sc)
	if own != nil {
		sc.one[0] = own // not a slice of Produce's own: it would escape, an allocation a record
		recs = sc.one[:]
		defer func() { sc.one[0] = nil }()
	}
	b := batchSend{p: p, sc: sc, owner: owner, promise: promise, recs: recs, own: own,
		waits: p.waits.Load(), now: p.clock.Now()}
	for i := 0; i < len(recs); {
		end, err := b.sendRun(ctx, i)
		if err != nil {
			return b.stoppedAt, err
		}
		i = end
	}
	return len(recs), nil
}

// addMissingTopics adds every topic of recs that the metadata does not
// know yet, at once, so that they are fetched together before the first
// of them is waited for.
func (p *Producer) addMissingTopics(recs []*Record) {
	cluster := p.md.Fetch()
	var topics []string
	last := ""
	for i := range recs {
		if t := recs[i].Topic; !sameString(t, last) && t != "" {
			last = t
			if cluster.PartitionCount(t) == 0 && !slices.Contains(topics, t) {
				topics = append(topics, t)
			}
		}
	}
	if len(topics) > 0 {
		p.md.AddTopics(topics...)
	}
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
		return fmt.Errorf("%w: a transactional producer produces records only inside a transaction", ErrTransactionState)
	}
	return nil
}

// sameString is a == b, answered at once for the common case of one
// string value shared by many records (the same topic name).
func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// unkeyed reports whether the partitioner places rec as a record without
// a key: it has no key and does not name its partition.
func (p *Producer) unkeyed(rec *Record) bool { return rec.Key == nil && !p.explicit(rec) }

// explicit reports whether rec goes to the partition it names.
func (p *Producer) explicit(rec *Record) bool { return p.manual && rec.Partition >= 0 }

// batchScratch is ProduceBatch's reused memory, from Producer.scratch.
type batchScratch struct {
	recs    []accumulator.Record // the run's records, grouped by partition
	index   []int                // the index in the run of each of recs
	parts   []int32              // the partition of each record of the run, -1 when refused
	offsets []int                // per partition, where its records start in recs
	one     [1]*Record           // Produce's record, as a batch of one
}

func newBatchScratch() any { return new(batchScratch) }

// batchSend is one ProduceBatch (or Produce) call.
type batchSend struct {
	p         *Producer
	sc        *batchScratch
	recs      []*Record            // the call's records
	own       *Record              // Produce's record, the reference of its batch entry; nil for ProduceBatch
	owner     any                  // the owner of the call's records in the accumulator (see complete)
	promise   func(*Record, error) // the call's promise
	stoppedAt int                  // the index in the whole batch of the record that stopped it
	// now is when the call's records are taken: their timestamp unless they
	// bring their own, and their batch's creation time. It is read again
	// after a metadata wait (waits is the count at the last read).
	now   time.Time
	waits int64
}

// refuse reports that the record at index i of the batch was refused.
func (b *batchSend) refuse(i int, partition int32, err error) {
	r := b.recs[i]
	r.Partition, r.Offset = partition, -1
	b.promise(r, notSent(err))
	if c, ok := b.owner.(*batchCall); ok {
		c.release(1) // never the last: the call holds one
	}
}

// refuseRun refuses every record of a run whose first record is at base.
func (b *batchSend) refuseRun(run []*Record, base int, err error) {
	for i, r := range run {
		part := AnyPartition
		if b.p.explicit(r) {
			part = r.Partition
		}
		b.refuse(base+i, part, err)
	}
}

// sendRun sends the run of records (see runEnd) that starts at index i
// of the batch, and returns where the next run starts. It returns the
// error that stops the batch, with stoppedAt set.
func (b *batchSend) sendRun(ctx context.Context, i int) (int, error) {
	p, first := b.p, b.recs[i]
	topic := first.Topic
	if p.md.Fetch().PartitionCount(topic) == 0 {
		p.addMissingTopics(b.recs[i:]) // the topics still to come, fetched with this one's
	}
	n, err := p.partitionCount(ctx, topic)
	if err != nil {
		if b.stops(ctx, err) {
			b.stoppedAt = i
			return i, err
		}
		end := b.runEnd(i)
		b.refuseRun(b.recs[i:end], i, err)
		return end, nil
	}
	if w := p.waits.Load(); w != b.waits {
		b.now, b.waits = p.clock.Now(), w
	}
	rs := &runSpec{base: i, topic: topic, n: n, ts: b.now.UnixMilli(), now: b.now}
	if !p.unkeyed(first) {
		end := b.runEnd(i)
		return end, b.sendRouted(ctx, b.recs[i:end], rs)
	}
	recs := b.fill(i, rs.ts) // the run, converted as its end is found
	end := i + len(recs)
	if p.sticky {
		return end, b.appendSticky(ctx, recs, rs)
	}
	return end, b.sendEach(ctx, recs, rs)
}

// runEnd is the end of the run of records starting at i: the records of
// the same topic that are all unkeyed records for the partitioner or all
// not (see unkeyed).
func (b *batchSend) runEnd(i int) int {
	p, recs := b.p, b.recs
	u, topic := p.unkeyed(recs[i]), recs[i].Topic
	j := i + 1
	for ; j < len(recs); j++ {
		r := recs[j]
		if !sameString(r.Topic, topic) || p.unkeyed(r) != u {
			break
		}
	}
	return j
}

// runSpec is what the records of a run share.
type runSpec struct {
	base  int    // the index in the batch of the run's first record
	topic string // their topic
	n     int    // its partition count
	ts    int64  // the timestamp of those that bring none
	now   time.Time
}

// stops reports whether an error of one record stops the whole batch.
func (b *batchSend) stops(ctx context.Context, err error) bool {
	return errors.Is(err, ErrClosed) || errors.Is(err, accumulator.ErrClosed) || ctx.Err() != nil ||
		b.p.sender.fatalError() != nil
}

// stop turns an error that stops the batch at index i into the one
// ProduceBatch returns.
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

// fill copies the run of unkeyed records that starts at index i of the
// batch into the scratch records, timestamped ts unless they bring their
// own: the records up to the first of another topic, or keyed, or naming
// its partition. (Two tight loops, finding the end and then copying, cost
// less than one that does both.)
func (b *batchSend) fill(i int, ts int64) []accumulator.Record {
	recs, topic, manual := b.recs[i:], b.recs[i].Topic, b.p.manual
	n := 0
	for ; n < len(recs); n++ {
		r := recs[n]
		if r.Key != nil || (manual && r.Partition >= 0) || !sameString(r.Topic, topic) {
			break
		}
	}
	recs = recs[:n]
	out := grow(b.sc.recs, n)[:n]
	b.sc.recs = out
	for k, r := range recs {
		dst := &out[k] // toAppend, by hand: the loop is the hot path of a run
		dst.Timestamp = ts
		if r.Timestamp != (time.Time{}) && !r.Timestamp.IsZero() {
			dst.Timestamp = r.Timestamp.UnixMilli()
		}
		dst.Key, dst.Value, dst.Headers, dst.Ref = r.Key, r.Value, r.Headers, r.Opaque
	}
	if b.own != nil && n == 1 {
		out[0].Ref = b.own // Produce: the caller's record is its own reference
	}
	return out
}

// toAppend sets dst to the accumulator's form of r, timestamped ts unless
// it brings its own, with ref as its reference.
func toAppend(dst *accumulator.Record, r *Record, ts int64, ref any) {
	dst.Timestamp = ts
	if r.Timestamp != (time.Time{}) && !r.Timestamp.IsZero() { // the zero value at once: the common case
		dst.Timestamp = r.Timestamp.UnixMilli()
	}
	dst.Key, dst.Value, dst.Headers, dst.Ref = r.Key, r.Value, r.Headers, ref
}

// refOf is the reference of r in its batch: the caller's record itself
// for Produce, its Opaque for ProduceBatch.
func (b *batchSend) refOf(r *Record) any {
	if b.own != nil {
		return b.own
	}
	return r.Opaque
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
		k, res, err := p.acc.AppendRecords(ctx, tp, recs[done:], b.owner, true, rs.now)
		done += k
		switch {
		case err != nil && errors.Is(err, accumulator.ErrRecordTooLarge):
			b.refuse(rs.base+done, AnyPartition, err)
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
		_, _, err = p.acc.AppendRecords(ctx, tp, recs[done:done+1], b.owner, false, rs.now)
		switch {
		case err != nil && errors.Is(err, accumulator.ErrRecordTooLarge):
			b.refuse(rs.base+done, AnyPartition, err)
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
		k, _, err := b.p.acc.AppendRecords(ctx, tp, recs[from:], b.owner, false, rs.now)
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
		b.refuse(at, AnyPartition, err)
		from++
	}
	return nil
}

// sendEach appends a run of unkeyed records, in the accumulator's form,
// one by one, for a partitioner that may choose anew for each
// (round-robin, random), in the sticky dance (see append).
func (b *batchSend) sendEach(ctx context.Context, recs []accumulator.Record, rs *runSpec) error {
	for i := range recs {
		if err := b.append(ctx, &recs[i], rs); err != nil {
			if !errors.Is(err, accumulator.ErrRecordTooLarge) && !errors.Is(err, ErrUnknownPartition) {
				return b.stop(rs.base+i, err)
			}
			b.refuse(rs.base+i, AnyPartition, err)
		}
	}
	return nil
}

// append appends one unkeyed record to the partitioner's partition,
// choosing again when it would otherwise start a new batch (Kafka's
// abortOnNewBatch).
func (b *batchSend) append(ctx context.Context, rec *accumulator.Record, rs *runSpec) error {
	p := b.p
	p.mu.Lock()
	tp := accumulator.TopicPartition{Topic: rs.topic, Partition: p.part.Partition(rs.topic, nil, rs.n)}
	p.mu.Unlock()
	if tp.Partition < 0 {
		return noPartition(rs.topic)
	}
	res, err := p.acc.Append(ctx, tp, *rec, b.owner, true, rs.now)
	if err != nil || !res.AbortForNewBatch {
		return err
	}
	p.mu.Lock()
	p.part.OnNewBatch(rs.topic, rs.n, tp.Partition)
	tp.Partition = p.part.Partition(rs.topic, nil, rs.n)
	p.mu.Unlock()
	_, err = p.acc.Append(ctx, tp, *rec, b.owner, false, rs.now)
	return err
}

// noPartition is the error of a record the partitioner gives no partition
// (a ManualPartitioner without a fallback).
func noPartition(topic string) error {
	return fmt.Errorf("%w: a record of topic %s names no partition, and the manual partitioner has no fallback",
		ErrUnknownPartition, topic)
}
