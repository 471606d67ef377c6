package accumulator

import "encoding/binary"

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
	stamps    []byte
	lastDelta int32
}

// reader returns a reader at the list's first record.
func (c *completions) reader() completionReader { return completionReader{c: c, stamps: c.stamps} }

// next returns the next record. The list was written by add, so it is
// well formed; reading past its end returns the last record's delta again.
func (r *completionReader) next() completion {
	c := r.c
	for r.run+1 < len(c.owners) && c.owners[r.run+1].start <= r.i {
		r.run++
	}
	var out completion
	if r.run < len(c.owners) {
		out.owner, out.run = c.owners[r.run].owner, r.run
	}
	if r.i < int32(len(c.refs)) {
		out.ref = c.refs[r.i]
	}
	r.i++
	if len(r.stamps) > 0 && r.stamps[0] == 0 { // the common case (see add)
		r.stamps = r.stamps[1:]
	} else if u, n := binary.Uvarint(r.stamps); n > 0 {
		r.stamps = r.stamps[n:]
		r.lastDelta = int32(int64(r.lastDelta) + unzigzag(u))
	}
	out.timestampDelta = r.lastDelta
	return out
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
