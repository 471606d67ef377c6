package sender

import (
	"context"
	"fmt"

	"github.com/kproduce/kproduce/pkg/accumulator"
)

// sendRouted appends a run of records that are keyed or name their
// partition: every partition is chosen under one acquisition of the
// partitioner's lock, then the records are grouped by partition, in their
// order, and each partition's records are appended at once.
func (b *batchSend) sendRouted(ctx context.Context, run []*Record, rs *runSpec) error {
	parts := b.route(run, rs)
	recs, offsets := groupBy(b.sc, run, parts, rs.n, func(dst *accumulator.Record, r **Record) { toAppend(dst, *r, rs.ts, b.refOf(*r)) })
	return b.appendGrouped(ctx, recs, offsets, rs)
}

// appendGrouped appends each partition's records of a grouped run (see
// groupBy).
func (b *batchSend) appendGrouped(ctx context.Context, recs []accumulator.Record, offsets []int, rs *runSpec) error {
	for part := 0; part < rs.n; part++ {
		from, to := offsets[part], offsets[part+1]
		if from == to {
			continue
		}
		tp := accumulator.TopicPartition{Topic: rs.topic, Partition: int32(part)}
		if err := b.appendTo(ctx, tp, recs[from:to], rs, b.sc.index[from:to]); err != nil {
			return err
		}
	}
	return nil
}

// route chooses the partition of each record of run: its own, or the
// partitioner's for its key. A record naming a partition the topic does
// not have, or given none, is refused and gets -1.
func (b *batchSend) route(run []*Record, rs *runSpec) []int32 {
	parts := b.sc.parts[:0]
	p := b.p
	p.mu.Lock()
	for _, r := range run {
		part := r.Partition
		if !p.explicit(r) {
			part = p.part.Partition(rs.topic, r.Key, rs.n)
		}
		parts = append(parts, part)
	}
	p.mu.Unlock()
	for i, part := range parts {
		if part < int32(rs.n) && part >= 0 {
			continue
		}
		parts[i] = -1
		if part < 0 {
			b.refuse(rs.base+i, AnyPartition, noPartition(rs.topic))
			continue
		}
		b.refuse(rs.base+i, part, unknownPartition(rs.topic, part, rs.n))
	}
	b.sc.parts = parts
	return parts
}

// unknownPartition is the error of a record naming a partition its topic
// does not have.
func unknownPartition(topic string, partition int32, n int) error {
	return fmt.Errorf("%w: partition %d of topic %s, which has %d partitions", ErrUnknownPartition, partition, topic, n)
}

// groupBy copies the records of run that have a partition (parts[i] >=
// 0) into the scratch records with conv, ordered by partition and in run
// order within one (a counting sort), with their index in run alongside
// (sc.index). The records of partition p are recs[offsets[p]:offsets[p+1]].
func groupBy[R any](sc *batchScratch, run []R, parts []int32, n int, conv func(*accumulator.Record, *R)) (recs []accumulator.Record, offsets []int) {
	offsets = grow(sc.offsets, n+1)
	clear(offsets)
	for _, part := range parts {
		if part >= 0 {
			offsets[part+1]++
		}
	}
	for i := 1; i <= n; i++ {
		offsets[i] += offsets[i-1]
	}
	total := offsets[n]
	recs = grow(sc.recs, total)
	index := grow(sc.index, total)
	next := offsets[:n] // where the next record of each partition goes; restored below
	for i, part := range parts {
		if part < 0 {
			continue
		}
		at := next[part]
		next[part]++
		conv(&recs[at], &run[i])
		index[at] = i
	}
	// next[p] is now the end of partition p, the start of p+1: shift back.
	copy(offsets[1:], offsets[:n])
	offsets[0] = 0
	sc.recs, sc.index, sc.offsets = recs, index, offsets
	return recs, offsets
}

// grow returns s resized to n, reallocated only when its capacity is short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}
