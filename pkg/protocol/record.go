package protocol

import "math"

// Header is a record header. A nil Value is a null header value.
type Header struct {
	Key   string
	Value []byte
}

// Record is one decoded record of a record batch v2. A nil Key or Value is
// null on the wire (length -1).
type Record struct {
	Attributes     int8
	TimestampDelta int64
	OffsetDelta    int32
	Key            []byte
	Value          []byte
	Headers        []Header
}

// RecordBodySize is the size of a record without its varint length prefix.
func RecordBodySize(offsetDelta int32, timestampDelta int64, key, value []byte, headers []Header) int {
	return RecordBodySizeOf(offsetDelta, timestampDelta, RecordTailSize(key, value, headers))
}

// RecordTailSize is the encoded size of a record's key, value and headers:
// the part of its body that does not depend on its place in a batch.
func RecordTailSize(key, value []byte, headers []Header) int {
	n := nullableVarBytesLen(key) + nullableVarBytesLen(value) + 1 // a count below 64 takes a byte
	if len(headers) > 0 {
		n += headersSize(headers) - 1
	}
	return n
}

// headersSize is the encoded size of headers, their count included.
func headersSize(headers []Header) int {
	n := VarintLen(int32(len(headers)))
	for _, h := range headers {
		n += VarintLen(int32(len(h.Key))) + len(h.Key) + nullableVarBytesLen(h.Value)
	}
	return n
}

// RecordBodySizeOf is RecordBodySize from the record's RecordTailSize.
func RecordBodySizeOf(offsetDelta int32, timestampDelta int64, tail int) int {
	return 1 + VarlongLen(timestampDelta) + VarintLen(offsetDelta) + tail // attributes, deltas
}

// RecordSize is the full encoded size of a record, length prefix included.
func RecordSize(offsetDelta int32, timestampDelta int64, key, value []byte, headers []Header) int {
	body := RecordBodySize(offsetDelta, timestampDelta, key, value, headers)
	return VarintLen(int32(body)) + body
}

// AppendRecord appends one length-prefixed record (attributes 0) to b. It
// encodes in place with no allocation beyond growing b.
func AppendRecord(b []byte, offsetDelta int32, timestampDelta int64, key, value []byte, headers []Header) []byte {
	b, _ = AppendRecordWithin(b, math.MaxInt, offsetDelta, timestampDelta, key, value, headers)
	return b
}

// AppendRecordWithin is AppendRecord unless b would then be longer than
// limit: then it returns b unchanged and false. It is the producer's
// per-record encoding: the size computed and the record written in one
// call, in place (b grows once if needed). Each varint is zig-zagged and
// sized once, and written by its size (putVarintN), not byte by byte.
func AppendRecordWithin(b []byte, limit int, offsetDelta int32, timestampDelta int64, key, value []byte, headers []Header) ([]byte, bool) {
	ts, od := zigzag64(timestampDelta), zigzag64(int64(offsetDelta))
	tsLen, odLen := fieldVarintLen(ts), fieldVarintLen(od)
	keyZ, keyLen := nullableLen(key)
	valueZ, valueLen := nullableLen(value)
	// attributes, the deltas, key and value, and the header count (one
	// byte when there is none).
	body := 1 + tsLen + odLen + keyLen + len(key) + valueLen + len(value) + 1
	if len(headers) > 0 {
		body += headersSize(headers) - 1
	}
	bodyZ := zigzag64(int64(body))
	bodyLen := fieldVarintLen(bodyZ)
	n := len(b)
	total := bodyLen + body
	if n+total > limit {
		return b, false
	}
	if cap(b)-n < total {
		b = append(b, make([]byte, total)...)[:n]
	}
	b = b[:n+total]
	w := b[n:]
	i := putVarintN(w, 0, bodyZ, bodyLen)
	w[i] = 0 // record attributes: unused
	i = putVarintN(w, i+1, ts, tsLen)
	i = putVarintN(w, i, od, odLen)
	i = putVarintN(w, i, keyZ, keyLen)
	if len(key) > 0 {
		i += copy(w[i:], key)
	}
	i = putVarintN(w, i, valueZ, valueLen)
	if len(value) > 0 {
		i += copy(w[i:], value)
	}
	if len(headers) == 0 {
		w[i] = 0
		return b, true
	}
	i = putUvarint(w, i, zigzag64(int64(len(headers))))
	for _, h := range headers {
		i = putUvarint(w, i, zigzag64(int64(len(h.Key))))
		i += copy(w[i:], h.Key)
		i = putNullableVarBytes(w, i, h.Value)
	}
	return b, true
}

// nullableLen is the zig-zagged varint length prefix of p (-1 for nil)
// and its size.
func nullableLen(p []byte) (z uint64, size int) {
	if p == nil {
		return 1, 1
	}
	z = zigzag64(int64(len(p)))
	return z, fieldVarintLen(z)
}

// putVarintN writes u, whose uvarint takes size bytes, at w[i:], which has
// room, and returns the index after it: the one- and two-byte sizes of a
// record's fields without a loop.
func putVarintN(w []byte, i int, u uint64, size int) int {
	if size == 1 {
		w[i] = byte(u)
		return i + 1
	}
	if size == 2 {
		w[i+1] = byte(u >> 7) // the higher index first: one bounds check
		w[i] = byte(u) | 0x80
		return i + 2
	}
	return putUvarintLong(w, i, u)
}

// putUvarintLong is putUvarint, not inlined: for the rarer long varints.
func putUvarintLong(w []byte, i int, u uint64) int { return putUvarint(w, i, u) }

// fieldVarintLen is uvarintLen for the varints of a record's fields,
// mostly of one or two bytes: comparisons rather than a bit count and a
// division.
func fieldVarintLen(u uint64) int {
	if u < 1<<7 {
		return 1
	}
	if u < 1<<14 {
		return 2
	}
	return uvarintLen(u)
}

// zigzag64 is v in zig-zag form.
func zigzag64(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// putUvarint writes u as a uvarint at w[i:], which has room, and returns
// the index after it.
func putUvarint(w []byte, i int, u uint64) int {
	for u >= 0x80 {
		w[i] = byte(u) | 0x80
		u >>= 7
		i++
	}
	w[i] = byte(u)
	return i + 1
}

// putNullableVarBytes writes p, varint-length-prefixed (-1 for nil), at
// w[i:], which has room, and returns the index after it.
func putNullableVarBytes(w []byte, i int, p []byte) int {
	if p == nil {
		w[i] = 1 // -1 zig-zagged
		return i + 1
	}
	i = putUvarint(w, i, zigzag64(int64(len(p))))
	return i + copy(w[i:], p)
}

// Encode appends the record, length-prefixed, to w, keeping its attributes.
func (rec *Record) Encode(w *Writer) {
	start := len(w.buf)
	w.buf = AppendRecord(w.buf, rec.OffsetDelta, rec.TimestampDelta, rec.Key, rec.Value, rec.Headers)
	// AppendRecord writes attributes 0; patch them after the length prefix.
	body := RecordBodySize(rec.OffsetDelta, rec.TimestampDelta, rec.Key, rec.Value, rec.Headers)
	w.buf[start+VarintLen(int32(body))] = byte(rec.Attributes)
}

// Decode reads one length-prefixed record from r. Key, Value and header
// values alias r's input.
func (rec *Record) Decode(r *Reader) error {
	size := int(r.Varint())
	if r.Err() == nil && (size < 0 || size > r.Remaining()) {
		r.failf("record length %d with %d bytes left", size, r.Remaining())
	}
	body := NewReader(r.Raw(size))
	rec.Attributes = body.Int8()
	rec.TimestampDelta = body.Varlong()
	rec.OffsetDelta = body.Varint()
	rec.Key = body.varBytes()
	rec.Value = body.varBytes()
	n := int(body.Varint())
	if body.Err() == nil && (n < 0 || n > body.Remaining()/2) {
		body.failf("header count %d with %d bytes left", n, body.Remaining())
	}
	rec.Headers = nil
	if n > 0 && body.Err() == nil {
		rec.Headers = make([]Header, n)
	}
	for i := 0; i < n && body.Err() == nil; i++ {
		rec.Headers[i].Key = body.headerKey()
		rec.Headers[i].Value = body.varBytes()
	}
	if body.Err() == nil && body.Remaining() != 0 {
		body.failf("%d trailing bytes in record", body.Remaining())
	}
	if err := body.Err(); err != nil {
		r.Fail(err)
	}
	return r.Err()
}

// varBytes reads varint-length-prefixed bytes; -1 is null.
func (r *Reader) varBytes() []byte {
	n := int(r.Varint())
	if r.err != nil || n == -1 {
		return nil
	}
	if n < -1 {
		r.failf("negative length %d", n)
		return nil
	}
	return r.take(n)
}

// headerKey reads a header key: varint-length-prefixed and, as in Kafka,
// never null.
func (r *Reader) headerKey() string {
	n := int(r.Varint())
	if r.err == nil && n < 0 {
		r.failf("header key length %d", n)
		return ""
	}
	return string(r.take(n))
}

func nullableVarBytesLen(b []byte) int {
	if b == nil {
		return 1
	}
	return VarintLen(int32(len(b))) + len(b)
}

func appendNullableVarBytes(b, v []byte) []byte {
	if v == nil {
		return AppendVarint(b, -1)
	}
	b = AppendVarint(b, int32(len(v)))
	return append(b, v...)
}
