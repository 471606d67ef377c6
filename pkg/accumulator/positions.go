package accumulator

import "encoding/binary"

// positionList is what a batch keeps of each record besides its encoding:
// its Position and its timestamp delta, so that Done can report records
// without reading the encoded (maybe compressed) ones. They are packed as
// varints of the differences from the record before (usually two bytes a
// record: the same timestamp, the next record number):
//
//	varint(timestampDelta - previous)<<1 | source changed
//	[uvarint(source), when it changed]
//	varint(record - previous record)
//
// The first record is taken relative to Position{} and delta 0.
type positionList struct {
	buf  []byte   // the packed records
	last position // the record appended last
}

// position is one record's Position and timestamp delta.
type position struct {
	Position
	timestampDelta int32 // from the batch's base timestamp; see Batch.wideTimestamps
}

// reset empties the list, keeping buf's capacity.
func (l *positionList) reset(buf []byte) { *l = positionList{buf: buf[:0]} }

// add appends a record's position.
func (l *positionList) add(pos Position, timestampDelta int32) {
	if pos.Record == l.last.Record+1 && pos.Source == l.last.Source && timestampDelta == l.last.timestampDelta {
		l.buf = append(l.buf, 0, 2) // the common case: same timestamp, the next record
		l.last.Record++
		return
	}
	l.addDiff(pos, timestampDelta)
}

// addDiff appends a record's position in the general form.
func (l *positionList) addDiff(pos Position, timestampDelta int32) {
	changed := pos.Source != l.last.Source
	head := uint64(zigzag(int64(timestampDelta)-int64(l.last.timestampDelta))) << 1
	if changed {
		head |= 1
	}
	l.buf = binary.AppendUvarint(l.buf, head)
	if changed {
		l.buf = binary.AppendUvarint(l.buf, uint64(uint32(pos.Source)))
	}
	l.buf = binary.AppendVarint(l.buf, pos.Record-l.last.Record)
	l.last = position{Position: pos, timestampDelta: timestampDelta}
}

// positionReader reads a positionList's records in order.
type positionReader struct {
	buf  []byte
	last position
}

// reader returns a reader at the list's first record.
func (l *positionList) reader() positionReader { return positionReader{buf: l.buf} }

// next returns the next record's position. The list was written by add, so
// it is well formed; reading past its end returns the last record again.
func (r *positionReader) next() position {
	if len(r.buf) >= 2 && r.buf[0] == 0 && r.buf[1] == 2 { // the common case (see add)
		r.buf = r.buf[2:]
		r.last.Record++
		return r.last
	}
	head, n := binary.Uvarint(r.buf)
	if n <= 0 {
		return r.last
	}
	r.buf = r.buf[n:]
	r.last.timestampDelta = int32(int64(r.last.timestampDelta) + unzigzag(head>>1))
	if head&1 != 0 {
		source, n := binary.Uvarint(r.buf)
		r.buf = r.buf[max(n, 0):]
		r.last.Source = int32(uint32(source))
	}
	delta, n := binary.Varint(r.buf)
	r.buf = r.buf[max(n, 0):]
	r.last.Record += delta
	return r.last
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
