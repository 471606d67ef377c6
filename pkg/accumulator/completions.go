package accumulator

import (
	"encoding/binary"
	"math"
	"slices"
	"unsafe"
)

// completions is what a batch keeps of each record besides its encoding,
// so that Done can report records without reading the encoded (maybe
// compressed) ones:
//   - its timestamp delta, packed as the uvarint of the zig-zag difference
//     from the record before (one byte a record when they share a
//     timestamp, the common case of records appended together);
//   - its Ref, the caller's reference (only from the first record that has
//     one: a batch of records without refs keeps none);
//   - its owner: the owner of the append call that appended it, kept as
//     runs (a call appends its records in one go).
type completions struct {
	stamps    []byte     // the packed timestamp deltas
	lastDelta int32      // the delta of the record appended last
	refs      []any      // refs[i] of record i, for i < len(refs); records after have none
	owners    []ownerRun // in record order
	lastCall  uint64     // the append call that appended the last record
	count     int32      // records
}

// ownerRun is the owner of records from start until the next run's start.
type ownerRun struct {
	owner any
	start int32
}

// reset empties the list, keeping its buffers' capacity; the refs and
// owners are cleared, so that they keep nothing alive.
func (c *completions) reset() {
	clear(c.refs)
	clear(c.owners)
	*c = completions{stamps: c.stamps[:0], refs: c.refs[:0], owners: c.owners[:0]}
}

// capBytes is the capacity of the list's buffers, in bytes.
func (c *completions) capBytes() int {
	return cap(c.stamps) + cap(c.refs)*int(unsafe.Sizeof(any(nil))) + cap(c.owners)*int(unsafe.Sizeof(ownerRun{}))
}

// add appends a record appended by the append call numbered call, of
// owner, with the caller's ref and its timestamp delta.
func (c *completions) add(call uint64, owner, ref any, timestampDelta int32) {
	if call != c.lastCall || len(c.owners) == 0 {
		c.owners = append(c.owners, ownerRun{owner: owner, start: c.count})
		c.lastCall = call
	}
	if ref != nil || len(c.refs) > 0 {
		for int32(len(c.refs)) < c.count {
			c.refs = append(c.refs, nil)
		}
		c.refs = append(c.refs, ref)
	}
	if timestampDelta == c.lastDelta {
		c.stamps = append(c.stamps, 0)
	} else {
		c.stamps = binary.AppendUvarint(c.stamps, zigzag(int64(timestampDelta)-int64(c.lastDelta)))
		c.lastDelta = timestampDelta
	}
	c.count++
}

// addRun appends recs, appended one after the other by the append call
// numbered call, of owner, to a batch whose first record has timestamp
// base: add for each, in one pass.
func (c *completions) addRun(call uint64, owner any, recs []Record, base int64) {
	if len(recs) == 0 {
		return
	}
	if call != c.lastCall || len(c.owners) == 0 {
		c.owners = append(c.owners, ownerRun{owner: owner, start: c.count})
		c.lastCall = call
	}
	c.addRefs(recs)
	last := c.lastDelta
	for i := 0; i < len(recs); {
		j := i // the records from i that share the last delta: a zero byte each, at once
		for j < len(recs) && int32(recs[j].Timestamp-base) == last {
			j++
		}
		c.stamps = append(c.stamps, make([]byte, j-i)...)
		if j == len(recs) {
			break
		}
		delta := int32(recs[j].Timestamp - base)
		c.stamps = binary.AppendUvarint(c.stamps, zigzag(int64(delta)-int64(last)))
		last = delta
		i = j + 1
	}
	c.lastDelta = last
	c.count += int32(len(recs))
}

// addRefs appends the Refs of recs, the records appended next, once a
// record has one.
func (c *completions) addRefs(recs []Record) {
	if len(c.refs) == 0 {
		first := slices.IndexFunc(recs, func(r Record) bool { return r.Ref != nil })
		if first < 0 {
			return
		}
		c.refs = slices.Grow(c.refs, int(c.count)+len(recs))
		c.refs = c.refs[:int(c.count)+first] // the records before have none
		recs = recs[first:]
	}
	for int32(len(c.refs)) < c.count {
		c.refs = append(c.refs, nil)
	}
	n := len(c.refs)
	c.refs = slices.Grow(c.refs, len(recs))[:n+len(recs)]
	refs := c.refs[n:]
	for i := range refs {
		refs[i] = recs[i].Ref
	}
}

// completion is one record as completions keeps it.
type completion struct {
	owner, ref     any
	run            int // the index of its owner run
	timestampDelta int32
}

// completionReader reads a completions list's records in order.
type completionReader struct {
	c         *completions
	i         int32 // the next record
	run       int   // the owner run of record i
	runEnd    int32 // where the run after it starts; MaxInt32 when it is the last
	owner     any   // the owner of run
	stamp     int   // the next record's delta in c.stamps
	lastDelta int32
}

// runEnd is the index of the record after owner run run, count (the
// number of records) for the last run.
func (c *completions) runEnd(run, count int) int {
	if run+1 < len(c.owners) {
		return int(c.owners[run+1].start)
	}
	return count
}

// reader returns a reader at the list's first record.
func (c *completions) reader() completionReader {
	r := completionReader{c: c}
	r.enterRun()
	return r
}

// enterRun moves the reader to the owner run of record i.
func (r *completionReader) enterRun() {
	c := r.c
	for r.run+1 < len(c.owners) && c.owners[r.run+1].start <= r.i {
		r.run++
	}
	r.owner, r.runEnd = nil, math.MaxInt32
	if r.run < len(c.owners) {
		r.owner = c.owners[r.run].owner
	}
	if r.run+1 < len(c.owners) {
		r.runEnd = c.owners[r.run+1].start
	}
}

// next sets out to the next record. The list was written by add, so it is
// well formed; reading past its end gives the last record's delta again.
func (r *completionReader) next(out *completion) {
	if r.i >= r.runEnd {
		r.enterRun()
	}
	out.owner, out.run, out.ref = r.owner, r.run, nil
	c := r.c
	if r.i < int32(len(c.refs)) {
		out.ref = c.refs[r.i]
	}
	r.i++
	r.stamp, r.lastDelta = c.nextDelta(r.stamp, r.lastDelta)
	out.timestampDelta = r.lastDelta
}

// nextDelta reads the timestamp delta of a record at index at of stamps,
// the record before it having delta last, and returns the index after it
// and the delta. Reading past the end gives last again.
func (c *completions) nextDelta(at int, last int32) (int, int32) {
	if at < len(c.stamps) && c.stamps[at] == 0 { // the common case (see add)
		return at + 1, last
	}
	return c.readDelta(at, last)
}

// readDelta is nextDelta for a delta that differs from the last one.
func (c *completions) readDelta(at int, last int32) (int, int32) {
	if at >= len(c.stamps) {
		return at, last
	}
	u, n := binary.Uvarint(c.stamps[at:])
	if n <= 0 {
		return at, last
	}
	return at + n, int32(int64(last) + unzigzag(u))
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
