package protocol

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// refThreshold is the size from which Writer.Ref keeps a reference to a byte
// slice instead of copying it. Every record batch is larger (its header
// alone takes 61 bytes), so even the small batches of many partitions sent
// on their linger are referenced, and a frame's own buffer holds only
// headers: small enough to reuse.
const refThreshold = 64

// Writer is an append-style encoder of Kafka primitive types. The zero value
// is ready to use. Large byte slices passed to Ref are kept by reference so a
// request can be written with one vectored write and no copy of its record
// batches.
type Writer struct {
	buf   []byte   // the writer's own bytes
	refs  []ref    // external slices logically inserted into buf
	n     int      // total length of refs
	frame [][]byte // the list Frame returns, reused
}

// ref is an external slice that belongs at offset at of Writer.buf.
type ref struct {
	at int
	b  []byte
}

// NewWriter returns a Writer that appends to buf[:0].
func NewWriter(buf []byte) *Writer { return &Writer{buf: buf[:0]} }

// Reset empties the writer, keeping its buffer.
func (w *Writer) Reset() {
	w.buf = w.buf[:0]
	clear(w.refs)
	w.refs = w.refs[:0]
	w.n = 0
	clear(w.frame)
	w.frame = w.frame[:0]
}

// Frame is Buffers in a list the writer keeps: valid until the writer is
// Reset, and reused by its next frame, so a frame of many record batches
// costs no allocation once the writer has been used.
func (w *Writer) Frame() [][]byte {
	w.frame = w.Buffers(w.frame[:0])
	return w.frame
}

// Retained is the capacity of the writer's own buffer: the memory a writer
// kept for reuse holds (referenced slices not included).
func (w *Writer) Retained() int { return cap(w.buf) }

// Len is the number of bytes written so far.
func (w *Writer) Len() int { return w.n + len(w.buf) }

// Encoded returns everything written as one contiguous slice. It copies only
// when Ref kept references.
func (w *Writer) Encoded() []byte {
	if len(w.refs) == 0 {
		return w.buf
	}
	out := make([]byte, 0, w.Len())
	for _, s := range w.Buffers(nil) {
		out = append(out, s...)
	}
	return out
}

// Buffers appends everything written to dst as a list of slices for a
// vectored write. The slices alias the writer's memory and the referenced
// inputs.
func (w *Writer) Buffers(dst [][]byte) [][]byte {
	prev := 0
	for _, r := range w.refs {
		if r.at > prev {
			dst = append(dst, w.buf[prev:r.at])
		}
		dst = append(dst, r.b)
		prev = r.at
	}
	if len(w.buf) > prev {
		dst = append(dst, w.buf[prev:])
	}
	return dst
}

// Ref appends b, keeping a reference instead of a copy when b is large.
// The caller must not modify b until the writer's output has been consumed.
func (w *Writer) Ref(b []byte) {
	if len(b) < refThreshold {
		w.buf = append(w.buf, b...)
		return
	}
	w.refs = append(w.refs, ref{at: len(w.buf), b: b})
	w.n += len(b)
}

// PutInt32At overwrites the 4 bytes at offset at of the writer's own bytes.
// Offsets of the writer's own bytes do not count referenced slices: take
// them as len(w.buf) (inside this package) before writing. It is used to
// back-fill sizes.
func (w *Writer) PutInt32At(at int, v int32) {
	binary.BigEndian.PutUint32(w.buf[at:], uint32(v))
}

// Raw appends b verbatim.
func (w *Writer) Raw(b []byte) { w.buf = append(w.buf, b...) }

// Int8 appends v.
func (w *Writer) Int8(v int8) { w.buf = append(w.buf, byte(v)) }

// Bool appends v as one byte.
func (w *Writer) Bool(v bool) {
	if v {
		w.buf = append(w.buf, 1)
	} else {
		w.buf = append(w.buf, 0)
	}
}

// Int16 appends v big-endian.
func (w *Writer) Int16(v int16) { w.buf = binary.BigEndian.AppendUint16(w.buf, uint16(v)) }

// Int32 appends v big-endian.
func (w *Writer) Int32(v int32) { w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(v)) }

// Uint32 appends v big-endian.
func (w *Writer) Uint32(v uint32) { w.buf = binary.BigEndian.AppendUint32(w.buf, v) }

// Int64 appends v big-endian.
func (w *Writer) Int64(v int64) { w.buf = binary.BigEndian.AppendUint64(w.buf, uint64(v)) }

// Float64 appends v as an IEEE 754 double, big-endian.
func (w *Writer) Float64(v float64) { w.Int64(int64(math.Float64bits(v))) }

// Uvarint appends v as an unsigned varint.
func (w *Writer) Uvarint(v uint32) { w.buf = binary.AppendUvarint(w.buf, uint64(v)) }

// Varint appends v as a zig-zag varint.
func (w *Writer) Varint(v int32) { w.buf = AppendVarint(w.buf, v) }

// Varlong appends v as a zig-zag varlong.
func (w *Writer) Varlong(v int64) { w.buf = AppendVarlong(w.buf, v) }

// UUID appends a 16-byte UUID.
func (w *Writer) UUID(v [16]byte) { w.buf = append(w.buf, v[:]...) }

// String appends a non-nullable string: int16 length (or compact uvarint
// length+1 when flexible) then the bytes.
func (w *Writer) String(s string, flexible bool) {
	if flexible {
		w.Uvarint(uint32(len(s)) + 1)
	} else {
		w.Int16(int16(len(s)))
	}
	w.buf = append(w.buf, s...)
}

// NullableString appends s, or the null marker when s is nil.
func (w *Writer) NullableString(s *string, flexible bool) {
	if s == nil {
		if flexible {
			w.Uvarint(0)
		} else {
			w.Int16(-1)
		}
		return
	}
	w.String(*s, flexible)
}

// Bytes appends a non-nullable byte array: int32 length (or compact uvarint
// length+1 when flexible) then the bytes.
func (w *Writer) Bytes(b []byte, flexible bool) {
	if flexible {
		w.Uvarint(uint32(len(b)) + 1)
	} else {
		w.Int32(int32(len(b)))
	}
	w.Ref(b)
}

// NullableBytes appends b, or the null marker when b is nil.
func (w *Writer) NullableBytes(b []byte, flexible bool) {
	if b == nil {
		if flexible {
			w.Uvarint(0)
		} else {
			w.Int32(-1)
		}
		return
	}
	w.Bytes(b, flexible)
}

// ArrayLen appends an array length: int32 (or compact uvarint n+1 when
// flexible). A negative n writes the null array marker.
func (w *Writer) ArrayLen(n int, flexible bool) {
	if flexible {
		if n < 0 {
			w.Uvarint(0)
			return
		}
		w.Uvarint(uint32(n) + 1)
		return
	}
	w.Int32(int32(n))
}

// TaggedFields appends an empty tagged-field section when flexible. kproduce
// sends no tagged fields; see Reader.TaggedFields for the decoding side.
func (w *Writer) TaggedFields(flexible bool) {
	if flexible {
		w.Uvarint(0)
	}
}

// AppendVarint appends v as a zig-zag varint to b.
func AppendVarint(b []byte, v int32) []byte {
	return binary.AppendUvarint(b, uint64(uint32(v<<1)^uint32(v>>31)))
}

// AppendVarlong appends v as a zig-zag varlong to b.
func AppendVarlong(b []byte, v int64) []byte {
	return binary.AppendUvarint(b, uint64(v<<1)^uint64(v>>63))
}

// VarintLen is the encoded size of v as a zig-zag varint.
func VarintLen(v int32) int { return uvarintLen(uint64(uint32(v<<1) ^ uint32(v>>31))) }

// VarlongLen is the encoded size of v as a zig-zag varlong.
func VarlongLen(v int64) int { return uvarintLen(uint64(v<<1) ^ uint64(v>>63)) }

// uvarintLen is the encoded size of u as a uvarint: 7 bits a byte, from
// the length of u in bits (0 takes one byte), without a loop.
func uvarintLen(u uint64) int { return (bits.Len64(u|1) + 6) / 7 }
