package protocol

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

const rbBaseTimestamp = int64(1_700_000_000_000)

// rbRecords returns records numbered 0..n-1 covering null and empty keys
// and values, headers (with null and empty values), negative timestamp
// deltas and a large compressible value.
func rbRecords() []Record {
	recs := []Record{
		{},
		{Key: []byte{}, Value: []byte{}},
		{Key: []byte("key"), Value: []byte("value"), TimestampDelta: -1500},
		{Value: []byte("with headers"), TimestampDelta: 7, Headers: []Header{
			{Key: "a", Value: []byte("1")}, {Key: "null", Value: nil}, {Key: "empty", Value: []byte{}}, {Key: "", Value: []byte("no key")},
		}},
		{Key: []byte("big"), Value: czTextRecords(20<<10, 11), TimestampDelta: 1},
	}
	for i := 0; i < 100; i++ {
		recs = append(recs, Record{Key: fmt.Appendf(nil, "k%d", i%7), Value: fmt.Appendf(nil, "value number %d", i), TimestampDelta: int64(i - 50)})
	}
	for i := range recs {
		recs[i].OffsetDelta = int32(i)
	}
	return recs
}

// rbBatch is a producer-style batch of recs with codec c.
func rbBatch(c Codec, recs []Record) *RecordBatch {
	maxTS := rbBaseTimestamp
	for _, r := range recs {
		maxTS = max(maxTS, rbBaseTimestamp+r.TimestampDelta)
	}
	return &RecordBatch{
		PartitionLeaderEpoch: -1,
		Attributes:           int16(c),
		LastOffsetDelta:      int32(len(recs) - 1),
		BaseTimestamp:        rbBaseTimestamp,
		MaxTimestamp:         maxTS,
		ProducerID:           NoProducerID,
		ProducerEpoch:        -1,
		BaseSequence:         -1,
		Records:              recs,
	}
}

func rbEncode(t testing.TB, b *RecordBatch) []byte {
	t.Helper()
	out, err := b.AppendTo(nil, NewCompressor())
	require.NoError(t, err)
	return out
}

// rbRestamp recomputes the CRC of a batch edited by a test.
func rbRestamp(b []byte) []byte {
	binary.BigEndian.PutUint32(b[17:], CRC32C(b[21:]))
	return b
}

func TestRecordBatchRoundTrip(t *testing.T) {
	for _, c := range czCodecs {
		t.Run(c.String(), func(t *testing.T) {
			in := rbBatch(c, rbRecords())
			in.BaseOffset, in.ProducerID, in.ProducerEpoch, in.BaseSequence = 12345, 99, 4, 1000
			in.Attributes |= AttrTransactional
			prefix := []byte("before")
			out, err := in.AppendTo(append([]byte(nil), prefix...), nil)
			require.NoError(t, err)
			require.True(t, bytes.HasPrefix(out, prefix))

			got, rest, err := DecodeRecordBatch(out[len(prefix):], 1<<20)
			require.NoError(t, err)
			assert.Empty(t, rest)
			assert.Equal(t, c, got.Codec())
			assert.Equal(t, int8(2), got.Magic)
			assert.Equal(t, CRC32C(out[len(prefix)+21:]), got.CRC)
			in.Magic, in.CRC = 2, got.CRC
			assert.Equal(t, in, got)
		})
	}
}

func TestDecodeRecordBatchConcatenated(t *testing.T) {
	var all []byte
	for i, c := range czCodecs {
		b := rbBatch(c, rbRecords()[:i+1])
		b.BaseOffset = int64(i * 10)
		all = append(all, rbEncode(t, b)...)
	}
	all = append(all, 0, 0, 0) // a fetch response may end mid-batch
	for i, c := range czCodecs {
		got, rest, err := DecodeRecordBatch(all, 1<<20)
		require.NoError(t, err, "batch %d", i)
		assert.Equal(t, c, got.Codec())
		assert.Equal(t, int64(i*10), got.BaseOffset)
		assert.Len(t, got.Records, i+1)
		all = rest
	}
	_, rest, err := DecodeRecordBatch(all, 1<<20)
	assert.ErrorIs(t, err, ErrShortBuffer)
	assert.Equal(t, []byte{0, 0, 0}, rest, "rest is the input on error")
}

func TestDecodeRecordBatchAliasesUncompressedInput(t *testing.T) {
	raw := rbEncode(t, rbBatch(CodecNone, []Record{{Value: []byte("value")}}))
	got, _, err := DecodeRecordBatch(raw, 1<<20)
	require.NoError(t, err)
	require.Equal(t, "value", string(got.Records[0].Value))
	raw[bytes.Index(raw, []byte("value"))] = 'V'
	assert.Equal(t, "Value", string(got.Records[0].Value))
}

// rbCorrupt returns a valid uncompressed batch of recs edited by edit.
func rbCorrupt(t *testing.T, recs []Record, lastOffsetDelta int32, edit func([]byte) []byte) []byte {
	b := rbBatch(CodecNone, recs)
	b.LastOffsetDelta = lastOffsetDelta
	return edit(rbEncode(t, b))
}

func TestDecodeRecordBatchErrors(t *testing.T) {
	three := []Record{{OffsetDelta: 0}, {OffsetDelta: 1, Value: []byte("x")}, {OffsetDelta: 2}}
	same := func(b []byte) []byte { return b }
	put32 := func(at int, v uint32) func([]byte) []byte {
		return func(b []byte) []byte { binary.BigEndian.PutUint32(b[at:], v); return rbRestamp(b) }
	}
	for _, tc := range []struct {
		name  string
		in    []byte
		limit int
		want  []error
	}{
		{"empty", nil, 0, []error{ErrShortBuffer}},
		{"shorter than the length field", make([]byte, 11), 0, []error{ErrShortBuffer}},
		{"length below a header", rbCorrupt(t, three, 2, func(b []byte) []byte { binary.BigEndian.PutUint32(b[8:], 48); return b }), 0, []error{ErrCorruptBatch}},
		{"negative length", rbCorrupt(t, three, 2, func(b []byte) []byte { binary.BigEndian.PutUint32(b[8:], 0xffffffff); return b }), 0, []error{ErrCorruptBatch}},
		{"truncated", rbCorrupt(t, three, 2, func(b []byte) []byte { return b[:len(b)-1] }), 0, []error{ErrShortBuffer}},
		{"magic 1", rbCorrupt(t, three, 2, func(b []byte) []byte { b[16] = 1; return b }), 0, []error{ErrCorruptBatch}},
		{"crc flipped", rbCorrupt(t, three, 2, func(b []byte) []byte { b[17] ^= 1; return b }), 0, []error{ErrCorruptBatch}},
		{"record byte flipped", rbCorrupt(t, three, 2, func(b []byte) []byte { b[len(b)-3] ^= 0x40; return b }), 0, []error{ErrCorruptBatch}},
		{"codec 5", rbCorrupt(t, three, 2, func(b []byte) []byte { b[22] |= 5; return rbRestamp(b) }), 0, []error{ErrCorruptBatch, ErrUnknownCodec}},
		{"count past the data", rbCorrupt(t, three, 2, put32(57, 1000)), 0, []error{ErrCorruptBatch}},
		{"negative count", rbCorrupt(t, three, 2, put32(57, 0xfffffff0)), 0, []error{ErrCorruptBatch}},
		{"count short of the data", rbCorrupt(t, three, 2, put32(57, 2)), 0, []error{ErrCorruptBatch}},
		{"count one more than the data", rbCorrupt(t, three, 2, put32(57, 4)), 0, []error{ErrCorruptBatch}},
		{"offset deltas out of order", rbCorrupt(t, []Record{{OffsetDelta: 1}, {OffsetDelta: 0}}, 1, same), 0, []error{ErrCorruptBatch}},
		{"repeated offset delta", rbCorrupt(t, []Record{{OffsetDelta: 0}, {OffsetDelta: 0}}, 1, same), 0, []error{ErrCorruptBatch}},
		{"negative offset delta", rbCorrupt(t, []Record{{OffsetDelta: -1}}, 0, same), 0, []error{ErrCorruptBatch}},
		{"offset delta past the last", rbCorrupt(t, three, 1, same), 0, []error{ErrCorruptBatch}},
		{"bad record", rbCorrupt(t, three, 2, func(b []byte) []byte { b[61] = 0x7f; return rbRestamp(b) }), 0, []error{ErrCorruptBatch}},
		{"gzip section that is not gzip", rbCorrupt(t, three, 2, func(b []byte) []byte { b[22] |= byte(CodecGzip); return rbRestamp(b) }), 0, []error{ErrCorruptBatch}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, rest, err := DecodeRecordBatch(tc.in, 1<<20)
			require.Error(t, err)
			assert.Nil(t, got)
			assert.Equal(t, tc.in, rest)
			for _, want := range tc.want {
				assert.ErrorIs(t, err, want)
			}
		})
	}
}

func TestDecodeRecordBatchLimit(t *testing.T) {
	recs := rbRecords()
	for _, c := range czCodecs[1:] {
		raw := rbEncode(t, rbBatch(c, recs))
		_, _, err := DecodeRecordBatch(raw, 4096)
		assert.ErrorIs(t, err, ErrDecompressedTooLarge, "%s", c)
		assert.NotErrorIs(t, err, ErrCorruptBatch, "%s", c)
	}
}

func TestDecodeEmptyBatch(t *testing.T) {
	// Compaction can leave a batch with no records; it keeps its header.
	b := rbBatch(CodecNone, nil)
	b.LastOffsetDelta = 5
	got, _, err := DecodeRecordBatch(rbEncode(t, b), 1<<20)
	require.NoError(t, err)
	assert.Empty(t, got.Records)
	assert.Equal(t, int32(5), got.LastOffsetDelta)
}

// rbKmsgBatch builds a batch with franz-go's kmsg types, compressed by
// franz-go's producer compressor and checksummed with the standard library.
func rbKmsgBatch(t *testing.T, c Codec, recs []Record) []byte {
	var section []byte
	for i := range recs {
		kr := wireKmsgRecord(&recs[i])
		section = kr.AppendTo(section)
	}
	section = czKgoCompress(t, c, section)
	kb := kmsg.RecordBatch{
		FirstOffset: 77, Length: int32(49 + len(section)), PartitionLeaderEpoch: 3, Magic: 2,
		Attributes: int16(c), LastOffsetDelta: int32(len(recs) - 1),
		FirstTimestamp: rbBaseTimestamp, MaxTimestamp: rbBaseTimestamp + 100,
		ProducerID: 5, ProducerEpoch: 6, FirstSequence: 7, NumRecords: int32(len(recs)), Records: section,
	}
	raw := kb.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	return raw
}

func TestDecodeFranzGoBatch(t *testing.T) {
	recs := rbRecords()
	for _, c := range czCodecs {
		t.Run(c.String(), func(t *testing.T) {
			got, rest, err := DecodeRecordBatch(rbKmsgBatch(t, c, recs), 1<<20)
			require.NoError(t, err)
			assert.Empty(t, rest)
			assert.Equal(t, int64(77), got.BaseOffset)
			assert.Equal(t, int32(3), got.PartitionLeaderEpoch)
			assert.Equal(t, int64(5), got.ProducerID)
			assert.Equal(t, int16(6), got.ProducerEpoch)
			assert.Equal(t, int32(7), got.BaseSequence)
			assert.Equal(t, c, got.Codec())
			assert.Equal(t, recs, got.Records)
		})
	}
}

// BenchmarkDecodeRecordBatch decodes a 1 MiB uncompressed batch.
func BenchmarkDecodeRecordBatch(b *testing.B) {
	section := czTextRecords(1<<20, 12)
	var recs []Record
	r := NewReader(section)
	for r.Remaining() > 0 {
		var rec Record
		require.NoError(b, rec.Decode(r))
		recs = append(recs, rec)
	}
	raw := rbEncode(b, rbBatch(CodecNone, recs))
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := DecodeRecordBatch(raw, 2<<20); err != nil {
			b.Fatal(err)
		}
	}
}
