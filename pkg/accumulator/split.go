package accumulator

import (
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// SplitAndReenqueue is Split, returning the number of new batches.
func (a *Accumulator) SplitAndReenqueue(b *Batch, now time.Time) int { return len(a.Split(b, now)) }

// Split splits a batch that the broker rejected as too large into batches
// of at most half its records each (two, or three when the count is odd),
// puts them at the front of the deque in record order and returns them.
// Each record keeps its owner, Ref, key, value, headers and timestamp. The
// new batches have no attempts and keep the original's CreatedAt, so the
// delivery timeout keeps counting. When the original carries a producer
// id and sequence, the new batches carry the same id and epoch and
// consecutive sequences from its base sequence (as Kafka's
// ProducerBatch.split), so the partition's later sequences stay valid.
// The original is finished without callbacks (IsDone is true, Done returns
// false; its records are reported through the new batches) and its memory
// is released here. It returns nil, changing nothing, for a batch of fewer
// than two records or one already done.
//
// The new buffers are taken without waiting (the sender must not block),
// which can overdraw the buffer memory briefly.
func (a *Accumulator) Split(b *Batch, now time.Time) []*Batch {
	if b.count < 2 || (b.buf == nil && b.compressed == nil) || !b.state.CompareAndSwap(statePending, stateSplit) {
		return nil
	}
	parts, ok := a.splitRecords(b)
	if !ok {
		// Unparseable buffer (never expected): keep the original as is.
		b.state.Store(statePending)
		return nil
	}
	a.mu.Lock()
	dq := a.dequeLocked(b.tp)
	for i, p := range parts {
		if p.HasSequence() {
			// Behind retried batches with lower sequences, so the deque
			// stays in sequence order (the parts follow each other).
			dq.insertInSequenceOrder(p)
		} else {
			dq.insert(i, p)
		}
	}
	a.incomplete.replace(b, parts)
	a.mu.Unlock()
	a.Deallocate(b)
	return parts
}

// splitRecords copies b's records into new batches of at most half of them
// each. Only the sender touches b here.
func (a *Accumulator) splitRecords(b *Batch) ([]*Batch, bool) {
	per := b.count / 2
	records, ok := b.uncompressedRecords()
	if !ok {
		return nil, false
	}
	var parts []*Batch
	comps := b.comps.reader()
	for done := 0; done < b.count; done += per {
		n := min(per, b.count-done)
		p, rest, ok := a.splitPart(b, records, &comps, done, n)
		if !ok {
			for _, p := range parts {
				a.pool.release(p.buf)
			}
			return nil, false
		}
		records = rest
		parts = append(parts, p)
	}
	return parts, true
}

// splitPart builds one batch from the n records at the front of records,
// which are b's records from index from on (comps reads what reporting
// them needs). It returns the records after them.
func (a *Accumulator) splitPart(b *Batch, records []byte, comps *completionReader, from, n int) (*Batch, []byte, bool) {
	var rec recordView
	size := headerRoom
	var baseTs int64
	cur := records
	for i := 0; i < n; i++ {
		var err error
		if cur, err = nextRecord(cur, &rec); err != nil {
			return nil, records, false
		}
		ts := b.baseTimestamp + rec.timestampDelta
		if i == 0 {
			baseTs = ts
		}
		size += rewrittenSize(&rec, int32(i), ts-baseTs)
	}
	buf := a.pool.forceAllocate(a.pool.sizeFor(size))[:headerRoom]
	p := &Batch{acc: a, tp: b.tp, createdAt: b.createdAt, id: b.id, buf: buf,
		baseTimestamp: baseTs, maxTimestamp: baseTs,
		appendsClosed: true, lastAttemptAt: b.createdAt, producerID: protocol.NoProducerID, producerEpoch: -1, baseSequence: -1}
	if b.baseSequence >= 0 {
		p.producerID, p.producerEpoch = b.producerID, b.producerEpoch
		p.baseSequence = protocol.IncrementSequence(b.baseSequence, int32(from))
	}
	for i := 0; i < n; i++ {
		records, _ = nextRecord(records, &rec) // parsed above
		ts := b.baseTimestamp + rec.timestampDelta
		p.buf = appendRewritten(p.buf, &rec, int32(i), ts-baseTs)
		delta := int32(ts - baseTs)
		p.wideTimestamps = p.wideTimestamps || ts-baseTs != int64(delta)
		var c completion
		comps.next(&c)
		// The original's owner runs become the part's: a run number
		// stands for the append call (+1: never 0, a new list's last call).
		p.comps.add(uint64(c.run)+1, c.owner, c.ref, delta)
		p.count++
		p.maxTimestamp = max(p.maxTimestamp, ts)
	}
	return p, records, true
}

// uncompressedRecords returns the batch's records as encoded before
// compression: its buffer, or, when Close released the buffer after
// compressing, the compressed records decompressed (a rare path: only a
// batch the broker refused as too large is split).
func (b *Batch) uncompressedRecords() ([]byte, bool) {
	if b.buf != nil {
		return b.buf[headerRoom:], true
	}
	records, err := protocol.Decompress(b.acc.cfg.Codec, b.compressed[headerRoom:], int(b.acc.cfg.BufferMemory))
	return records, err == nil
}
