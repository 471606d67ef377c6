package protocol

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func wireStrPtr(s string) *string { return &s }

func TestZigZagVectors(t *testing.T) {
	for _, tc := range []struct {
		v    int32
		want uint64
	}{
		{0, 0}, {-1, 1}, {1, 2}, {-2, 3}, {2, 4}, {63, 126}, {-64, 127}, {64, 128},
		{math.MaxInt32, 0xFFFFFFFE}, {math.MinInt32, 0xFFFFFFFF},
	} {
		b := AppendVarint(nil, tc.v)
		u, n := binary.Uvarint(b)
		require.Equal(t, len(b), n)
		assert.Equal(t, tc.want, u, "zig-zag of %d", tc.v)
		assert.Equal(t, len(b), VarintLen(tc.v))
		// The standard library's zig-zag over int64 agrees for every int32.
		assert.Equal(t, binary.AppendVarint(nil, int64(tc.v)), b)
	}
}

func TestVarintRoundTrip(t *testing.T) {
	for _, v := range []int32{0, 1, -1, 63, -64, 64, -65, 8191, -8192, 1 << 20, math.MaxInt32, math.MinInt32} {
		b := AppendVarint(nil, v)
		r := NewReader(b)
		assert.Equal(t, v, r.Varint())
		require.NoError(t, r.Err())
		assert.Zero(t, r.Remaining())
	}
	for _, v := range []int64{0, 1, -1, math.MaxInt32 + 1, math.MinInt32 - 1, math.MaxInt64, math.MinInt64} {
		b := AppendVarlong(nil, v)
		assert.Equal(t, binary.AppendVarint(nil, v), b)
		assert.Equal(t, len(b), VarlongLen(v))
		r := NewReader(b)
		assert.Equal(t, v, r.Varlong())
		require.NoError(t, r.Err())
	}
	assert.Equal(t, 5, VarintLen(math.MinInt32))
	assert.Equal(t, 10, VarlongLen(math.MinInt64))
}

func TestVarintErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		read func(*Reader)
		want error
	}{
		{"empty varint", nil, func(r *Reader) { r.Varint() }, ErrShortBuffer},
		{"truncated varint", []byte{0x80, 0x80}, func(r *Reader) { r.Varint() }, ErrShortBuffer},
		{"varint over 32 bits", binary.AppendUvarint(nil, 1<<32), func(r *Reader) { r.Varint() }, ErrMalformed},
		{"uvarint over 32 bits", binary.AppendUvarint(nil, math.MaxUint64), func(r *Reader) { r.Uvarint() }, ErrMalformed},
		{"truncated varlong", []byte{0xff}, func(r *Reader) { r.Varlong() }, ErrShortBuffer},
		{"overlong varlong", bytes.Repeat([]byte{0xff}, 11), func(r *Reader) { r.Varlong() }, ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(tc.in)
			tc.read(r)
			assert.ErrorIs(t, r.Err(), tc.want)
		})
	}
}

// TestPrimitivesRoundTrip writes every Writer primitive, in both the classic
// and the flexible (compact) forms, and reads them back.
func TestPrimitivesRoundTrip(t *testing.T) {
	uuid := [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	for _, flexible := range []bool{false, true} {
		var w Writer
		w.Int8(math.MinInt8)
		w.Bool(true)
		w.Bool(false)
		w.Int16(math.MinInt16)
		w.Int32(math.MaxInt32)
		w.Uint32(math.MaxUint32)
		w.Int64(math.MinInt64)
		w.Float64(-1.5)
		w.Uvarint(math.MaxUint32)
		w.Varint(math.MinInt32)
		w.Varlong(math.MaxInt64)
		w.UUID(uuid)
		w.String("topic", flexible)
		w.String("", flexible)
		w.NullableString(nil, flexible)
		w.NullableString(wireStrPtr(""), flexible)
		w.NullableString(wireStrPtr("héllo"), flexible)
		w.Bytes([]byte{1, 2, 3}, flexible)
		w.Bytes(nil, flexible) // non-nullable: nil is empty
		w.NullableBytes(nil, flexible)
		w.NullableBytes([]byte{}, flexible)
		w.ArrayLen(-1, flexible)
		w.ArrayLen(2, flexible)
		w.Int8(1)
		w.Int8(2)
		w.TaggedFields(flexible)

		r := NewReader(w.Encoded())
		assert.Equal(t, int8(math.MinInt8), r.Int8())
		assert.True(t, r.Bool())
		assert.False(t, r.Bool())
		assert.Equal(t, int16(math.MinInt16), r.Int16())
		assert.Equal(t, int32(math.MaxInt32), r.Int32())
		assert.Equal(t, uint32(math.MaxUint32), r.Uint32())
		assert.Equal(t, int64(math.MinInt64), r.Int64())
		assert.Equal(t, -1.5, r.Float64())
		assert.Equal(t, uint32(math.MaxUint32), r.Uvarint())
		assert.Equal(t, int32(math.MinInt32), r.Varint())
		assert.Equal(t, int64(math.MaxInt64), r.Varlong())
		assert.Equal(t, uuid, r.UUID())
		assert.Equal(t, "topic", r.String(flexible))
		assert.Equal(t, "", r.String(flexible))
		assert.Nil(t, r.NullableString(flexible))
		assert.Equal(t, wireStrPtr(""), r.NullableString(flexible))
		assert.Equal(t, wireStrPtr("héllo"), r.NullableString(flexible))
		assert.Equal(t, []byte{1, 2, 3}, r.Bytes(flexible))
		assert.Equal(t, []byte{}, r.Bytes(flexible))
		assert.Nil(t, r.NullableBytes(flexible))
		empty := r.NullableBytesRef(flexible)
		assert.NotNil(t, empty)
		assert.Empty(t, empty)
		assert.Equal(t, -1, r.ArrayLen(flexible, 1))
		assert.Equal(t, 2, r.ArrayLen(flexible, 1))
		assert.Equal(t, int8(1), r.Int8())
		assert.Equal(t, int8(2), r.Int8())
		r.TaggedFields(flexible)
		require.NoError(t, r.Err(), "flexible=%v", flexible)
		assert.Zero(t, r.Remaining(), "flexible=%v", flexible)
	}
}

func TestCompactEncodings(t *testing.T) {
	var w Writer
	w.String("ab", true)
	w.NullableString(nil, true)
	w.NullableBytes(nil, false)
	w.ArrayLen(-1, true)
	w.ArrayLen(0, true)
	w.String("ab", false)
	assert.Equal(t, []byte{3, 'a', 'b', 0, 0xff, 0xff, 0xff, 0xff, 0, 1, 0, 2, 'a', 'b'}, w.Encoded())
}

func TestReaderStickyError(t *testing.T) {
	r := NewReader([]byte{1, 2, 3, 4, 5})
	assert.Equal(t, int16(0x0102), r.Int16())
	assert.Zero(t, r.Int64()) // only 3 bytes left
	first := r.Err()
	require.ErrorIs(t, first, ErrShortBuffer)
	// Every later getter returns zero, even where bytes remain.
	assert.Zero(t, r.Int8())
	assert.Zero(t, r.Varint())
	assert.Nil(t, r.NullableString(false))
	assert.Nil(t, r.Raw(1))
	assert.Equal(t, [16]byte{}, r.UUID())
	assert.Same(t, first, r.Err())
	assert.Equal(t, 2, r.Offset())
	assert.Equal(t, 3, r.Remaining())

	r.Fail(ErrMalformed)
	assert.Same(t, first, r.Err(), "Fail keeps the first error")

	r.Reset([]byte{7})
	assert.NoError(t, r.Err())
	assert.Equal(t, int8(7), r.Int8())
}

func TestReaderLengthErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		read func(*Reader)
		want error
	}{
		{"string length -2", []byte{0xff, 0xfe}, func(r *Reader) { r.NullableString(false) }, ErrMalformed},
		{"string longer than input", []byte{0, 5, 'a'}, func(r *Reader) { r.String(false) }, ErrShortBuffer},
		{"compact string longer than input", []byte{10, 'a'}, func(r *Reader) { r.String(true) }, ErrShortBuffer},
		{"bytes length -3", []byte{0xff, 0xff, 0xff, 0xfd}, func(r *Reader) { r.NullableBytes(false) }, ErrMalformed},
		{"bytes longer than input", []byte{0x7f, 0xff, 0xff, 0xff}, func(r *Reader) { r.Bytes(false) }, ErrShortBuffer},
		{"array length -2", []byte{0xff, 0xff, 0xff, 0xfe}, func(r *Reader) { r.ArrayLen(false, 1) }, ErrMalformed},
		{"array cannot fit", []byte{0, 0, 0, 3, 1, 2, 3, 4, 5}, func(r *Reader) { r.ArrayLen(false, 2) }, ErrShortBuffer},
		{"compact array cannot fit", binary.AppendUvarint(nil, math.MaxUint32), func(r *Reader) { r.ArrayLen(true, 1) }, ErrShortBuffer},
		{"tagged field longer than input", []byte{1, 0, 9, 1}, func(r *Reader) { r.TaggedFields(true) }, ErrShortBuffer},
		{"tagged field count without fields", []byte{0x7f}, func(r *Reader) { r.TaggedFields(true) }, ErrShortBuffer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(tc.in)
			tc.read(r)
			assert.ErrorIs(t, r.Err(), tc.want)
		})
	}
}

func TestReaderArrayFits(t *testing.T) {
	r := NewReader([]byte{0, 0, 0, 2, 1, 2, 3, 4})
	assert.Equal(t, 2, r.ArrayLen(false, 2))
	require.NoError(t, r.Err())
}

func TestTaggedFieldsSkipUnknown(t *testing.T) {
	var in []byte
	in = binary.AppendUvarint(in, 3)           // three tagged fields
	in = append(in, 0, 3, 'a', 'b', 'c')       // tag 0, 3 bytes
	in = append(in, 5, 0)                      // tag 5, empty
	in = binary.AppendUvarint(in, 300)         // tag 300 (two-byte tag)
	in = append(in, 2, 0xff, 0xff)             // 2 bytes
	in = binary.BigEndian.AppendUint32(in, 42) // the next field
	r := NewReader(in)
	r.TaggedFields(true)
	assert.Equal(t, int32(42), r.Int32())
	require.NoError(t, r.Err())
	assert.Zero(t, r.Remaining())

	// Non-flexible versions have no tagged-field section.
	r = NewReader([]byte{0, 0, 0, 9})
	r.TaggedFields(false)
	assert.Equal(t, int32(9), r.Int32())
}

// TestWriterFrameIsReused: Frame lists what Buffers lists, and a writer
// reset and used again for the same shape of frame (a produce request of
// many small batches) allocates nothing.
func TestWriterFrameIsReused(t *testing.T) {
	batches := make([][]byte, 1000)
	for i := range batches {
		batches[i] = bytes.Repeat([]byte{byte(i)}, 61+i%200) // a batch header and more
	}
	w := NewWriter(nil)
	fill := func() {
		w.Reset()
		w.Int32(0)
		for _, b := range batches {
			w.Int32(int32(len(b)))
			w.Bytes(b, false)
		}
	}
	fill()
	assert.Equal(t, w.Buffers(nil), w.Frame())
	assert.Less(t, w.Retained(), 16<<10, "the batches are referenced, not copied")
	allocs := testing.AllocsPerRun(10, func() {
		fill()
		_ = w.Frame()
	})
	assert.Zero(t, allocs)
}

func TestWriterRefBuffers(t *testing.T) {
	big := bytes.Repeat([]byte{0xab}, refThreshold)
	small := []byte("small")
	w := NewWriter(make([]byte, 0, 64))
	w.Int32(0) // size, back-filled below
	w.Int16(7)
	w.Ref(big)
	w.Ref(small)
	w.Bytes(big, false) // int32 length, then a reference
	w.Int8(-1)
	require.Equal(t, 4+2+len(big)+len(small)+4+len(big)+1, w.Len())
	w.PutInt32At(0, int32(w.Len()-4))

	bufs := w.Buffers(nil)
	require.Len(t, bufs, 5)
	assert.Same(t, &big[0], &bufs[1][0], "a large slice is referenced, not copied")
	assert.Same(t, &big[0], &bufs[3][0])
	assert.Equal(t, []byte{0xff}, bufs[4])

	var want []byte
	want = binary.BigEndian.AppendUint32(want, uint32(w.Len()-4))
	want = append(want, 0, 7)
	want = append(want, big...)
	want = append(want, small...)
	want = binary.BigEndian.AppendUint32(want, uint32(len(big)))
	want = append(want, big...)
	want = append(want, 0xff)
	assert.Equal(t, want, w.Encoded())
	assert.Equal(t, want, bytes.Join(bufs, nil))

	w.Reset()
	assert.Zero(t, w.Len())
	assert.Empty(t, w.Buffers(nil))
	w.Raw([]byte{1})
	assert.Equal(t, []byte{1}, w.Encoded())
}

func TestWriterEncodedWithoutRefsAliases(t *testing.T) {
	buf := make([]byte, 0, 16)
	w := NewWriter(buf)
	w.Int32(5)
	assert.Same(t, &buf[:1][0], &w.Encoded()[0])
}

func TestFrameSize(t *testing.T) {
	const limit = 1 << 20
	prefix := func(b ...byte) [4]byte { var p [4]byte; copy(p[:], b); return p }
	be := func(v uint32) [4]byte { var p [4]byte; binary.BigEndian.PutUint32(p[:], v); return p }
	for _, tc := range []struct {
		name    string
		prefix  [4]byte
		want    int32
		wantErr error
		mention string
	}{
		{"zero", be(0), 0, nil, ""},
		{"at the limit", be(limit), limit, nil, ""},
		{"one over the limit", be(limit + 1), 0, ErrFrameSize, "exceeds"},
		{"negative", be(0xffffffff), 0, ErrFrameSize, "negative"},
		{"most negative", be(0x80000000), 0, ErrFrameSize, "negative"},
		{"http reply", prefix('H', 'T', 'T', 'P'), 0, ErrNotKafka, "HTTP"},
		{"html page", prefix('<', 'h', 't', 'm'), 0, ErrNotKafka, "HTTP"},
		{"tls alert", prefix(0x15, 0x03, 0x03, 0x00), 0, ErrNotKafka, "TLS"},
		{"tls handshake", prefix(0x16, 0x03, 0x01, 0x02), 0, ErrNotKafka, "TLS"},
		{"ssh banner", prefix('S', 'S', 'H', '-'), 0, ErrNotKafka, "SSH"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FrameSize(tc.prefix, limit)
			if tc.wantErr == nil {
				require.NoError(t, err)
				assert.Equal(t, tc.want, got)
				return
			}
			require.ErrorIs(t, err, tc.wantErr)
			assert.Contains(t, err.Error(), tc.mention)
			assert.Zero(t, got)
			if tc.wantErr == ErrNotKafka {
				assert.NotErrorIs(t, err, ErrFrameSize)
			} else {
				assert.NotErrorIs(t, err, ErrNotKafka)
			}
		})
	}
	// The full HTTP status line as a server would send it.
	line := []byte("HTTP/1.1 400 Bad Request\r\n")
	_, err := FrameSize([4]byte(line[:4]), DefaultMaxFrameSize)
	assert.ErrorIs(t, err, ErrNotKafka)
}
