package protocol

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Record encoding and decoding, checked against franz-go's kmsg.Record.

// wireRecords covers null and empty keys and values, headers with null and
// empty values, negative and large deltas.
func wireRecords() []Record {
	return []Record{
		{},
		{OffsetDelta: 1, TimestampDelta: -5, Key: []byte{}, Value: []byte{}},
		{OffsetDelta: 2, TimestampDelta: 1 << 40, Key: []byte("k"), Value: []byte("value")},
		{OffsetDelta: 3, TimestampDelta: math.MinInt64, Value: bytes.Repeat([]byte("v"), 300),
			Headers: []Header{{Key: "a", Value: []byte("1")}, {Key: "null", Value: nil}, {Key: "", Value: []byte{}}}},
		{OffsetDelta: math.MaxInt32, TimestampDelta: math.MaxInt64, Key: bytes.Repeat([]byte{0}, 200)},
	}
}

// wireKmsgRecord is rec as franz-go's independent record type.
func wireKmsgRecord(rec *Record) kmsg.Record {
	kr := kmsg.Record{
		Length:           int32(RecordBodySize(rec.OffsetDelta, rec.TimestampDelta, rec.Key, rec.Value, rec.Headers)),
		Attributes:       rec.Attributes,
		TimestampDelta64: rec.TimestampDelta,
		OffsetDelta:      rec.OffsetDelta,
		Key:              rec.Key,
		Value:            rec.Value,
	}
	for _, h := range rec.Headers {
		kr.Headers = append(kr.Headers, kmsg.Header{Key: h.Key, Value: h.Value})
	}
	return kr
}

func TestRecordEncodingMatchesKmsg(t *testing.T) {
	for i, rec := range wireRecords() {
		ours := AppendRecord(nil, rec.OffsetDelta, rec.TimestampDelta, rec.Key, rec.Value, rec.Headers)
		kr := wireKmsgRecord(&rec)
		assert.Equal(t, kr.AppendTo(nil), ours, "record %d", i)
		assert.Len(t, ours, RecordSize(rec.OffsetDelta, rec.TimestampDelta, rec.Key, rec.Value, rec.Headers))

		var w Writer
		rec.Encode(&w)
		assert.Equal(t, ours, w.Encoded(), "Encode and AppendRecord agree for record %d", i)

		// kmsg reads our bytes back field for field.
		var back kmsg.Record
		require.NoError(t, back.ReadFrom(ours))
		assert.Equal(t, rec.TimestampDelta, back.TimestampDelta64)
		assert.Equal(t, rec.OffsetDelta, back.OffsetDelta)
		assert.Equal(t, rec.Key == nil, back.Key == nil)
		assert.Equal(t, rec.Value == nil, back.Value == nil)
		assert.Equal(t, len(rec.Headers), len(back.Headers))
	}
}

func TestRecordRoundTrip(t *testing.T) {
	for i, rec := range wireRecords() {
		rec.Attributes = int8(i) // kept by Encode, unused by Kafka
		var w Writer
		rec.Encode(&w)
		w.Int8(0x5a) // a following field
		r := NewReader(w.Encoded())
		var got Record
		require.NoError(t, got.Decode(r))
		assert.Equal(t, rec, got, "record %d", i)
		assert.Equal(t, int8(0x5a), r.Int8(), "decode consumed exactly one record")
	}
}

func TestRecordDecodeAliasesInput(t *testing.T) {
	b := AppendRecord(nil, 0, 0, []byte("key"), []byte("value"), nil)
	var rec Record
	require.NoError(t, rec.Decode(NewReader(b)))
	b[bytes.Index(b, []byte("value"))+3] = 'X' // the 'u' of "value"
	assert.Equal(t, "valXe", string(rec.Value))
}

func TestRecordDecodeErrors(t *testing.T) {
	good := AppendRecord(nil, 0, 0, []byte("k"), []byte("v"), []Header{{Key: "h", Value: []byte("x")}})
	body := good[1:] // one-byte length prefix
	withLength := func(n int32, b []byte) []byte { return append(AppendVarint(nil, n), b...) }
	for _, tc := range []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrShortBuffer},
		{"negative length", withLength(-1, body), ErrMalformed},
		{"length past the input", withLength(int32(len(body)+1), body), ErrMalformed},
		{"truncated body", withLength(3, body[:3]), ErrShortBuffer},
		{"trailing bytes in the body", withLength(int32(len(body)+1), append(append([]byte{}, body...), 0)), ErrMalformed},
		{"key length -2", withLength(6, []byte{0, 0, 0, 3, 0, 0}), ErrMalformed},
		{"negative header count", withLength(6, []byte{0, 0, 0, 1, 1, 1}), ErrMalformed},
		{"header count past the body", withLength(6, []byte{0, 0, 0, 1, 1, 20}), ErrMalformed},
		{"null header key", withLength(8, []byte{0, 0, 0, 1, 1, 2, 1, 1}), ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec Record
			err := rec.Decode(NewReader(tc.in))
			assert.ErrorIs(t, err, tc.want)
		})
	}
}

// BenchmarkAppendRecord is the producer's hot path: one 100-byte record into
// a buffer that already has room. It must not allocate.
func BenchmarkAppendRecord(b *testing.B) {
	value := bytes.Repeat([]byte("x"), 100)
	key := []byte("key-0001")
	headers := []Header{{Key: "trace", Value: []byte("abc")}}
	size := RecordSize(0, 0, key, value, headers)
	buf := make([]byte, 0, 1<<20)
	b.ReportAllocs()
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(buf)+size+16 > cap(buf) {
			buf = buf[:0]
		}
		buf = AppendRecord(buf, int32(i&0xffff), int64(i&0xff), key, value, headers)
	}
}

func TestAppendRecordDoesNotAllocate(t *testing.T) {
	value := bytes.Repeat([]byte("x"), 100)
	buf := make([]byte, 0, 4096)
	allocs := testing.AllocsPerRun(100, func() {
		buf = AppendRecord(buf[:0], 7, -3, []byte("k"), value, []Header{{Key: "h", Value: nil}})
	})
	assert.Zero(t, allocs)
}
