package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrShortBuffer is the sticky error of a Reader that ran out of bytes.
var ErrShortBuffer = errors.New("short buffer")

// ErrMalformed is wrapped by the sticky error of a Reader that met an
// impossible value (a negative non-null length, an overlong varint).
var ErrMalformed = errors.New("malformed message")

// Reader decodes Kafka primitive types from a byte slice. Its error is
// sticky: after the first failure every getter returns the zero value and
// Err reports that first failure.
type Reader struct {
	b   []byte
	off int
	err error
}

// NewReader returns a Reader over b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Reset points the reader at b and clears its error.
func (r *Reader) Reset(b []byte) { *r = Reader{b: b} }

// Err is the first error met, or nil.
func (r *Reader) Err() error { return r.err }

// Remaining is the number of unread bytes.
func (r *Reader) Remaining() int { return len(r.b) - r.off }

// Offset is the number of bytes consumed.
func (r *Reader) Offset() int { return r.off }

// Fail records err as the reader's error unless one is already recorded.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *Reader) failf(format string, args ...any) {
	r.Fail(fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...))
}

// take returns the next n bytes, or nil and a sticky error.
func (r *Reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.Fail(fmt.Errorf("%w: need %d bytes at offset %d, have %d", ErrShortBuffer, n, r.off, len(r.b)-r.off))
		return nil
	}
	b := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// Raw returns the next n bytes without copying.
func (r *Reader) Raw(n int) []byte { return r.take(n) }

// Rest returns all unread bytes without copying.
func (r *Reader) Rest() []byte { return r.take(r.Remaining()) }

// Int8 reads an int8.
func (r *Reader) Int8() int8 {
	b := r.take(1)
	if b == nil {
		return 0
	}
	return int8(b[0])
}

// Bool reads a boolean byte.
func (r *Reader) Bool() bool { return r.Int8() != 0 }

// Int16 reads a big-endian int16.
func (r *Reader) Int16() int16 {
	b := r.take(2)
	if b == nil {
		return 0
	}
	return int16(binary.BigEndian.Uint16(b))
}

// Int32 reads a big-endian int32.
func (r *Reader) Int32() int32 {
	b := r.take(4)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

// Uint32 reads a big-endian uint32.
func (r *Reader) Uint32() uint32 { return uint32(r.Int32()) }

// Int64 reads a big-endian int64.
func (r *Reader) Int64() int64 {
	b := r.take(8)
	if b == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// Float64 reads a big-endian IEEE 754 double.
func (r *Reader) Float64() float64 { return math.Float64frombits(uint64(r.Int64())) }

// Uvarint reads an unsigned varint that must fit in 32 bits.
func (r *Reader) Uvarint() uint32 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 || v > math.MaxUint32 {
		if n == 0 {
			r.Fail(fmt.Errorf("%w: truncated varint at offset %d", ErrShortBuffer, r.off))
		} else {
			r.failf("varint overflow at offset %d", r.off)
		}
		return 0
	}
	r.off += n
	return uint32(v)
}

// Varint reads a zig-zag varint.
func (r *Reader) Varint() int32 {
	u := r.Uvarint()
	return int32(u>>1) ^ -int32(u&1)
}

// Varlong reads a zig-zag varlong.
func (r *Reader) Varlong() int64 {
	if r.err != nil {
		return 0
	}
	u, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		if n == 0 {
			r.Fail(fmt.Errorf("%w: truncated varlong at offset %d", ErrShortBuffer, r.off))
		} else {
			r.failf("varlong overflow at offset %d", r.off)
		}
		return 0
	}
	r.off += n
	return int64(u>>1) ^ -int64(u&1)
}

// UUID reads a 16-byte UUID.
func (r *Reader) UUID() (u [16]byte) {
	copy(u[:], r.take(16))
	return u
}

// length reads a string/bytes/array length. It returns -1 for null.
func (r *Reader) length(flexible, wide bool) int {
	if flexible {
		return int(r.Uvarint()) - 1
	}
	if wide {
		return int(r.Int32())
	}
	return int(r.Int16())
}

// NullableString reads a nullable string (compact when flexible).
func (r *Reader) NullableString(flexible bool) *string {
	n := r.length(flexible, false)
	if n < 0 || r.err != nil {
		if n < -1 {
			r.failf("negative string length %d", n)
		}
		return nil
	}
	s := string(r.take(n))
	return &s
}

// String reads a non-nullable string (compact when flexible). A null string
// reads as "".
func (r *Reader) String(flexible bool) string {
	if s := r.NullableString(flexible); s != nil {
		return *s
	}
	return ""
}

// NullableBytes reads a nullable byte array (compact when flexible) and
// returns a copy, or nil for null.
func (r *Reader) NullableBytes(flexible bool) []byte {
	b := r.NullableBytesRef(flexible)
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

// NullableBytesRef is NullableBytes without the copy: the result aliases the
// reader's input.
func (r *Reader) NullableBytesRef(flexible bool) []byte {
	n := r.length(flexible, true)
	if n < 0 || r.err != nil {
		if n < -1 {
			r.failf("negative bytes length %d", n)
		}
		return nil
	}
	return r.take(n)
}

// Bytes reads a non-nullable byte array; null reads as an empty slice.
func (r *Reader) Bytes(flexible bool) []byte {
	if b := r.NullableBytes(flexible); b != nil {
		return b
	}
	return []byte{}
}

// ArrayLen reads an array length (compact when flexible); -1 is null. A
// length that cannot fit in the remaining bytes, given that each element
// takes at least minElem bytes, is a sticky error, so callers can allocate
// the result safely.
func (r *Reader) ArrayLen(flexible bool, minElem int) int {
	n := r.length(flexible, true)
	if r.err != nil {
		return 0
	}
	if n < -1 {
		r.failf("negative array length %d", n)
		return 0
	}
	if minElem < 1 {
		minElem = 1
	}
	if n > 0 && n > r.Remaining()/minElem {
		r.Fail(fmt.Errorf("%w: array of %d elements at offset %d does not fit in %d bytes", ErrShortBuffer, n, r.off, r.Remaining()))
		return 0
	}
	return n
}

// TaggedFields skips a tagged-field section when flexible. Unknown tags are
// ignored, as Kafka does.
func (r *Reader) TaggedFields(flexible bool) {
	if !flexible {
		return
	}
	n := int(r.Uvarint())
	for i := 0; i < n && r.err == nil; i++ {
		r.Uvarint() // tag
		size := int(r.Uvarint())
		r.take(size)
	}
}
