package sender

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kproduce/kproduce/pkg/accumulator"
)

// SendRun is SendBatch for records that share their topic, their
// partition (-1: the partitioner chooses, by key or sticky) and their
// read time, as the records of one input buffer do. They come in the
// accumulator's form, each with its Position, so that nothing is copied
// per record on the way to the batches but the encoding itself. A record
// whose Timestamp is 0 takes the read time's: SendRun writes it into
// recs. Refusals, the result and the error are SendBatch's.
func (p *Producer) SendRun(ctx context.Context, topic string, partition int32, readAt time.Time,
	recs []accumulator.Record, refused func(i int, err error)) (int, error) {
	if err := p.checkAccepting(); err != nil {
		return 0, err
	}
	if len(recs) == 0 {
		return 0, nil
	}
	sc := p.scratch.Get().(*batchScratch)
	defer p.scratch.Put(sc)
	b := batchSend{p: p, sc: sc, refused: refused}
	n, err := p.partitionCount(ctx, topic)
	if err != nil {
		if b.stops(ctx, err) {
			return 0, err
		}
		for i := range recs {
			b.refuse(i, err)
		}
		return len(recs), nil
	}
	now := p.readTime(readAt)
	rs := &runSpec{topic: topic, n: n, ts: now.UnixMilli(), now: now}
	for i := range recs {
		if recs[i].Timestamp == 0 {
			recs[i].Timestamp = rs.ts
		}
	}
	if err := b.placeRun(ctx, recs, partition, rs); err != nil {
		return b.stoppedAt, err
	}
	return len(recs), nil
}

// placeRun appends the records of a SendRun: all to the partition named,
// or in sub-runs of unkeyed and of keyed records placed by the partitioner.
func (b *batchSend) placeRun(ctx context.Context, recs []accumulator.Record, partition int32, rs *runSpec) error {
	if partition >= 0 {
		if partition >= int32(rs.n) {
			err := fmt.Errorf("%w: partition %d of topic %s, which has %d partitions", ErrUnknownPartition, partition, rs.topic, rs.n)
			for i := range recs {
				b.refuse(i, err)
			}
			return nil
		}
		return b.appendTo(ctx, accumulator.TopicPartition{Topic: rs.topic, Partition: partition}, recs, rs, nil)
	}
	sticky := b.p.stickyForNullKeys()
	for i := 0; i < len(recs); {
		j := i + 1
		for j < len(recs) && (recs[j].Key == nil) == (recs[i].Key == nil) {
			j++
		}
		sub := *rs
		sub.base = i
		var err error
		switch {
		case recs[i].Key != nil:
			err = b.appendKeyed(ctx, recs[i:j], &sub)
		case sticky:
			err = b.appendSticky(ctx, recs[i:j], &sub)
		default:
			err = b.appendEach(ctx, recs[i:j], &sub)
		}
		if err != nil {
			return err
		}
		i = j
	}
	return nil
}

// appendKeyed appends keyed records, placed by the partitioner: every
// partition is chosen under one acquisition of its lock, then the records
// are grouped by partition and each partition's are appended at once.
func (b *batchSend) appendKeyed(ctx context.Context, recs []accumulator.Record, rs *runSpec) error {
	p := b.p
	parts := grow(b.sc.parts, len(recs))
	p.mu.Lock()
	for i := range recs {
		parts[i] = p.part.Partition(rs.topic, recs[i].Key, rs.n)
	}
	p.mu.Unlock()
	b.sc.parts = parts
	grouped, offsets := groupBy(b.sc, recs, parts, rs.n, func(dst, r *accumulator.Record) { *dst = *r })
	return b.appendGrouped(ctx, grouped, offsets, rs)
}

// appendEach appends unkeyed records one by one, for a partitioner that
// may choose anew for each (round-robin, random).
func (b *batchSend) appendEach(ctx context.Context, recs []accumulator.Record, rs *runSpec) error {
	for i := range recs {
		r := &recs[i]
		rec := Record{Topic: rs.topic, Partition: -1, Value: r.Value, Headers: r.Headers}
		if _, err := b.p.append(ctx, &rec, rs.n, r.Timestamp, r.Position, rs.now); err != nil {
			if !errors.Is(err, accumulator.ErrRecordTooLarge) {
				return b.stop(rs.base+i, err)
			}
			b.refuse(rs.base+i, err)
		}
	}
	return nil
}
