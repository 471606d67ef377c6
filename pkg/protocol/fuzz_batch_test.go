package protocol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
)

// fuzzLimit bounds decompression in the fuzz targets.
const fuzzLimit = 64 << 10

// fuzzSeedBatches are valid batches of every codec, ours and franz-go's.
func fuzzSeedBatches(t testing.TB) [][]byte {
	recs := []Record{
		{Key: []byte("k"), Value: []byte("v"), Headers: []Header{{Key: "h", Value: nil}}},
		{OffsetDelta: 1, TimestampDelta: -3, Value: bytes.Repeat([]byte("abc"), 50)},
		{OffsetDelta: 2, Key: []byte{}},
	}
	var out [][]byte
	for _, c := range czCodecs {
		b := rbBatch(c, recs)
		raw, err := b.AppendTo(nil, NewCompressor())
		require.NoError(t, err)
		out = append(out, raw)
	}
	return out
}

// fixBatch rewrites the length and CRC of a candidate batch so the fuzzer
// reaches the checks behind them.
func fixBatch(data []byte) []byte {
	if len(data) < RecordBatchHeaderSize {
		return data
	}
	data = append([]byte(nil), data...)
	binary.BigEndian.PutUint32(data[offBatchLength:], uint32(len(data)-batchLengthOverhead))
	return rbRestamp(data)
}

// FuzzDecodeRecordBatch decodes arbitrary bytes (with the length and CRC
// fixed up or not). It must never panic, and a batch it accepts must survive
// AppendTo and a second decode unchanged.
func FuzzDecodeRecordBatch(f *testing.F) {
	for _, b := range fuzzSeedBatches(f) {
		f.Add(b, false)
		f.Add(b[:len(b)-1], true)
		f.Add(append(append([]byte(nil), b...), b...), false)
	}
	f.Add([]byte{}, false)
	comp := NewCompressor() // the fuzz function runs sequentially in each worker
	f.Fuzz(func(t *testing.T, data []byte, fix bool) {
		if fix {
			data = fixBatch(data)
		}
		batch, rest, err := DecodeRecordBatch(data, fuzzLimit)
		if err != nil {
			require.Nil(t, batch)
			require.Equal(t, data, rest)
			require.True(t, errors.Is(err, ErrCorruptBatch) || errors.Is(err, ErrShortBuffer) ||
				errors.Is(err, ErrDecompressedTooLarge), "unclassified error %v", err)
			return
		}
		require.True(t, bytes.HasSuffix(data, rest))
		re, err := batch.AppendTo(nil, comp)
		require.NoError(t, err)
		again, rest2, err := DecodeRecordBatch(re, fuzzLimit<<4)
		require.NoError(t, err, "re-encoded batch does not decode")
		require.Empty(t, rest2)
		assert.Equal(t, normalRecords(batch.Records), normalRecords(again.Records))
		again.CRC, again.Records = batch.CRC, batch.Records
		assert.Equal(t, batch, again)
	})
}

// normalRecords makes empty header lists comparable with nil ones.
func normalRecords(recs []Record) []Record {
	out := append([]Record(nil), recs...)
	for i := range out {
		if len(out[i].Headers) == 0 {
			out[i].Headers = nil
		}
	}
	return out
}

// FuzzFrameSize checks FrameSize on every prefix and limit.
func FuzzFrameSize(f *testing.F) {
	for _, s := range []string{"\x00\x00\x00\x10", "\xff\xff\xff\xff", "HTTP", "\x15\x03\x03\x00", "\x16\x03\x01\x02", "SSH-", "\x7f\xff\xff\xff"} {
		f.Add([]byte(s), int32(DefaultMaxFrameSize))
	}
	f.Fuzz(func(t *testing.T, b []byte, limit int32) {
		if len(b) < 4 || limit < 0 {
			return
		}
		p := [4]byte(b[:4])
		size, err := FrameSize(p, limit)
		raw := int32(binary.BigEndian.Uint32(p[:]))
		if raw >= 0 && raw <= limit {
			require.NoError(t, err)
			require.Equal(t, raw, size)
			return
		}
		require.Error(t, err)
		require.Zero(t, size)
		require.NotEqual(t, errors.Is(err, ErrFrameSize), errors.Is(err, ErrNotKafka), "exactly one of ErrFrameSize and ErrNotKafka: %v", err)
	})
}

// FuzzRecordDecode decodes arbitrary bytes as one record; an accepted record
// re-encodes to RecordSize bytes that decode to the same record.
func FuzzRecordDecode(f *testing.F) {
	for _, rec := range wireRecords() {
		var w Writer
		rec.Encode(&w)
		f.Add(w.Encoded())
	}
	f.Add([]byte{0x0c, 0, 0, 0, 1, 1, 2, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(data)
		var rec Record
		if err := rec.Decode(r); err != nil {
			require.True(t, errors.Is(err, ErrShortBuffer) || errors.Is(err, ErrMalformed), "unclassified error %v", err)
			return
		}
		var w Writer
		rec.Encode(&w)
		enc := w.Encoded()
		require.Len(t, enc, RecordSize(rec.OffsetDelta, rec.TimestampDelta, rec.Key, rec.Value, rec.Headers))
		require.LessOrEqual(t, len(enc), r.Offset(), "a canonical encoding is never longer")
		var again Record
		require.NoError(t, again.Decode(NewReader(enc)))
		if len(rec.Headers) == 0 {
			rec.Headers = nil
		}
		require.Equal(t, rec, again)
	})
}

// FuzzDecompress inflates arbitrary bytes with each codec under a small
// limit: no panic, never more than the limit, and output that compresses and
// inflates back to itself. Where franz-go also accepts the input, both agree.
func FuzzDecompress(f *testing.F) {
	src := czTextRecords(4<<10, 13)
	for _, c := range czCodecs {
		f.Add(uint8(c), czKgoCompress(f, c, src))
	}
	f.Add(uint8(CodecSnappy), czXerialStream(f, src, 1000))
	f.Add(uint8(CodecSnappy), binary.AppendUvarint(nil, 1<<30))
	f.Add(uint8(CodecZstd), czKgoCompress(f, CodecZstd, make([]byte, 1<<20)))
	theirDecompressor := kgo.DefaultDecompressor()
	comp := NewCompressor() // the fuzz function runs sequentially in each worker
	f.Fuzz(func(t *testing.T, codec uint8, data []byte) {
		c := Codec(codec % 6)
		out, err := Decompress(c, data, fuzzLimit)
		if err != nil {
			require.Nil(t, out)
			return
		}
		if c != CodecNone {
			require.LessOrEqual(t, len(out), fuzzLimit)
		}
		if theirs, err := theirDecompressor.Decompress(data, kgo.CompressionCodecType(c)); err == nil && len(theirs) <= fuzzLimit {
			require.True(t, bytes.Equal(theirs, out), "franz-go inflates the same input differently: %d bytes, ours %d", len(theirs), len(out))
		}
		packed, err := comp.Compress(c, nil, out)
		require.NoError(t, err)
		back, err := Decompress(c, packed, fuzzLimit)
		require.NoError(t, err)
		require.Equal(t, len(out), len(back))
		require.True(t, bytes.Equal(out, back))
	})
}
