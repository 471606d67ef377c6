package protocol

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
)

var czCodecs = []Codec{CodecNone, CodecGzip, CodecSnappy, CodecLz4, CodecZstd}

// czKgoCodec is the franz-go codec for c.
func czKgoCodec(c Codec) kgo.CompressionCodec {
	switch c {
	case CodecGzip:
		return kgo.GzipCompression()
	case CodecSnappy:
		return kgo.SnappyCompression()
	case CodecLz4:
		return kgo.Lz4Compression()
	case CodecZstd:
		return kgo.ZstdCompression()
	}
	return kgo.NoCompression()
}

// czKgoCompress compresses src with franz-go's producer compressor.
func czKgoCompress(t testing.TB, c Codec, src []byte) []byte {
	t.Helper()
	if c == CodecNone {
		return src
	}
	comp, err := kgo.DefaultCompressor(czKgoCodec(c))
	require.NoError(t, err)
	out, used := comp.Compress(new(bytes.Buffer), src)
	require.Equal(t, kgo.CompressionCodecType(c), used)
	return append([]byte(nil), out...)
}

// czKgoDecompress decompresses src with franz-go's consumer decompressor.
func czKgoDecompress(t testing.TB, c Codec, src []byte) []byte {
	t.Helper()
	out, err := kgo.DefaultDecompressor().Decompress(src, kgo.CompressionCodecType(c))
	require.NoError(t, err, "franz-go decompressing %s", c)
	return out
}

// czTextRecords returns the records section of a batch of 100-byte text
// values, at least size bytes long, the same for a given seed.
func czTextRecords(size int, seed uint64) []byte {
	words := []string{"kafka", "record", "batch", "offset", "producer", "broker", "topic", "the", "a", "of", "partition", "leader"}
	rng := rand.New(rand.NewPCG(seed, seed))
	var out []byte
	value := make([]byte, 0, 100)
	for i := int32(0); len(out) < size; i++ {
		value = value[:0]
		for len(value) < 100 {
			value = append(value, words[rng.IntN(len(words))]...)
			value = append(value, ' ')
		}
		out = AppendRecord(out, i, int64(i), nil, value[:100], nil)
	}
	return out
}

func TestCodecNames(t *testing.T) {
	for _, c := range czCodecs {
		got, err := ParseCodec(c.String())
		require.NoError(t, err)
		assert.Equal(t, c, got)
	}
	got, err := ParseCodec("ZSTD")
	require.NoError(t, err)
	assert.Equal(t, CodecZstd, got)
	_, err = ParseCodec("brotli")
	assert.ErrorIs(t, err, ErrUnknownCodec)
	assert.Equal(t, "codec(6)", Codec(6).String())
}

// TestCompressDecodedByFranzGo compresses with ours and decompresses with
// franz-go's consumer path, and with ours.
func TestCompressDecodedByFranzGo(t *testing.T) {
	src := czTextRecords(300<<10, 1)
	comp := NewCompressor()
	for _, c := range czCodecs {
		t.Run(c.String(), func(t *testing.T) {
			prefix := []byte("prefix")
			out, err := comp.Compress(c, append([]byte(nil), prefix...), src)
			require.NoError(t, err)
			require.True(t, bytes.HasPrefix(out, prefix), "Compress appends to dst")
			packed := out[len(prefix):]
			if c != CodecNone {
				assert.Less(t, len(packed), len(src)/2, "text compresses")
			}
			assert.Equal(t, src, czKgoDecompress(t, c, packed))
			got, err := Decompress(c, packed, len(src))
			require.NoError(t, err)
			assert.Equal(t, src, got)

			// The compressor is reusable: a second, different input.
			src2 := czTextRecords(10<<10, 2)
			out2, err := comp.Compress(c, nil, src2)
			require.NoError(t, err)
			assert.Equal(t, src2, czKgoDecompress(t, c, out2))
		})
	}
}

// TestCompressEmpty checks that every codec frames an empty input so that
// other clients can inflate it.
func TestCompressEmpty(t *testing.T) {
	comp := NewCompressor()
	for _, c := range czCodecs[1:] {
		out, err := comp.Compress(c, nil, nil)
		require.NoError(t, err)
		assert.NotEmpty(t, out, "%s", c)
		assert.Empty(t, czKgoDecompress(t, c, out), "%s", c)
		got, err := Decompress(c, out, 0)
		require.NoError(t, err)
		assert.Empty(t, got)
	}
}

// TestLz4FrameLikeKafka checks the lz4 frame descriptor against what Kafka's
// Java client writes and reads (Lz4BlockOutputStream): independent 64 KiB
// blocks, also after the writer is reused.
func TestLz4FrameLikeKafka(t *testing.T) {
	comp := NewCompressor()
	for i := 0; i < 2; i++ {
		out, err := comp.Compress(CodecLz4, nil, czTextRecords(200<<10, 14))
		require.NoError(t, err)
		require.Greater(t, len(out), 7)
		assert.Equal(t, uint32(0x184d2204), binary.LittleEndian.Uint32(out), "frame magic")
		flg, bd := out[4], out[5]
		assert.Equal(t, byte(0x40), flg&0xc0, "frame version 01")
		assert.NotZero(t, flg&0x20, "independent blocks")
		assert.Equal(t, byte(0x40), bd, "64 KiB maximum block size")
	}
}

// TestDecompressFranzGoOutput decompresses what franz-go's producer
// compresses.
func TestDecompressFranzGoOutput(t *testing.T) {
	src := czTextRecords(200<<10, 3)
	for _, c := range czCodecs {
		t.Run(c.String(), func(t *testing.T) {
			got, err := Decompress(c, czKgoCompress(t, c, src), len(src))
			require.NoError(t, err)
			assert.Equal(t, src, got)
		})
	}
}

// TestGzipStandardLibrary checks gzip against the standard library's
// independent implementation in both directions, including a stream of two
// gzip members.
func TestGzipStandardLibrary(t *testing.T) {
	src := czTextRecords(64<<10, 4)
	var buf bytes.Buffer
	for _, part := range [][]byte{src[:1000], src[1000:]} {
		zw := stdgzip.NewWriter(&buf)
		_, err := zw.Write(part)
		require.NoError(t, err)
		require.NoError(t, zw.Close())
	}
	got, err := Decompress(CodecGzip, buf.Bytes(), len(src))
	require.NoError(t, err)
	assert.Equal(t, src, got)

	ours, err := NewCompressor().Compress(CodecGzip, nil, src)
	require.NoError(t, err)
	zr, err := stdgzip.NewReader(bytes.NewReader(ours))
	require.NoError(t, err)
	back, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Equal(t, src, back)
}

// czXerialStream frames src the way snappy-java's SnappyOutputStream does:
// magic, version 1, compatible version 1, then chunks of a big-endian
// length and a raw snappy block.
func czXerialStream(t testing.TB, src []byte, chunk int) []byte {
	t.Helper()
	out := []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}
	out = binary.BigEndian.AppendUint32(out, 1)
	out = binary.BigEndian.AppendUint32(out, 1)
	for len(src) > 0 {
		n := min(chunk, len(src))
		block := czKgoCompress(t, CodecSnappy, src[:n])
		out = binary.BigEndian.AppendUint32(out, uint32(len(block)))
		out = append(out, block...)
		src = src[n:]
	}
	return out
}

func TestSnappyXerialAndRaw(t *testing.T) {
	src := czTextRecords(100<<10, 5)
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"raw block", czKgoCompress(t, CodecSnappy, src)},
		{"xerial, one chunk", czXerialStream(t, src, len(src))},
		{"xerial, 32 KiB chunks", czXerialStream(t, src, 32<<10)},
		{"xerial, uneven chunks", czXerialStream(t, src, 1000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decompress(CodecSnappy, tc.in, len(src))
			require.NoError(t, err)
			assert.Equal(t, src, got)
			// franz-go reads the same stream.
			assert.Equal(t, src, czKgoDecompress(t, CodecSnappy, tc.in))
		})
	}
	t.Run("xerial header only", func(t *testing.T) {
		got, err := Decompress(CodecSnappy, czXerialStream(t, nil, 1), 10)
		require.NoError(t, err)
		assert.Empty(t, got)
	})
	t.Run("xerial allocates its output once", func(t *testing.T) {
		in := czXerialStream(t, src, 1<<10)
		allocs := testing.AllocsPerRun(10, func() {
			_, _ = Decompress(CodecSnappy, in, len(src))
		})
		assert.LessOrEqual(t, allocs, 1.0)
	})
	t.Run("xerial over the limit", func(t *testing.T) {
		_, err := Decompress(CodecSnappy, czXerialStream(t, src, 32<<10), len(src)-1)
		assert.ErrorIs(t, err, ErrDecompressedTooLarge)
	})
}

func TestDecompressErrors(t *testing.T) {
	good := map[Codec][]byte{}
	src := czTextRecords(8<<10, 6)
	for _, c := range czCodecs[1:] {
		good[c] = czKgoCompress(t, c, src)
	}
	xerial := czXerialStream(t, src, 4096)
	for _, tc := range []struct {
		name  string
		codec Codec
		in    []byte
		want  error // nil: any error
	}{
		{"unknown codec", Codec(5), []byte{1}, ErrUnknownCodec},
		{"gzip garbage", CodecGzip, []byte("not gzip at all"), nil},
		{"gzip truncated", CodecGzip, good[CodecGzip][:len(good[CodecGzip])/2], nil},
		{"gzip empty", CodecGzip, nil, nil},
		{"snappy garbage", CodecSnappy, []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2}, nil},
		{"snappy truncated", CodecSnappy, good[CodecSnappy][:len(good[CodecSnappy])/2], nil},
		{"snappy claims more than it can hold", CodecSnappy, binary.AppendUvarint(nil, 1<<20), nil},
		{"snappy claim over the limit", CodecSnappy, binary.AppendUvarint(nil, 1<<30), ErrDecompressedTooLarge},
		{"xerial header truncated", CodecSnappy, xerial[:12], nil},
		{"xerial chunk length truncated", CodecSnappy, xerial[:18], nil},
		{"xerial chunk past the end", CodecSnappy, xerial[:30], nil},
		{"lz4 garbage", CodecLz4, []byte("definitely not lz4"), nil},
		{"lz4 truncated", CodecLz4, good[CodecLz4][:len(good[CodecLz4])/2], nil},
		{"zstd garbage", CodecZstd, []byte("definitely not zstd"), nil},
		{"zstd truncated", CodecZstd, good[CodecZstd][:len(good[CodecZstd])/2], nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decompress(tc.codec, tc.in, 1<<20)
			require.Error(t, err)
			if tc.want != nil {
				assert.ErrorIs(t, err, tc.want)
			}
		})
	}
}

// TestDecompressSmallLimitLargeWindow decodes a zstd frame whose header asks
// for a window larger than the size limit, while its content fits.
func TestDecompressSmallLimitLargeWindow(t *testing.T) {
	src := czTextRecords(2000, 7)
	var buf bytes.Buffer
	enc, err := zstd.NewWriter(&buf, zstd.WithWindowSize(4<<20), zstd.WithSingleSegment(false))
	require.NoError(t, err)
	_, err = enc.Write(src)
	require.NoError(t, err)
	require.NoError(t, enc.Close())
	got, err := Decompress(CodecZstd, buf.Bytes(), len(src))
	require.NoError(t, err)
	assert.Equal(t, src, got)
}

// czBombSize is the decompressed size of every bomb.
const czBombSize = 100 << 20

// czBomb returns 100 MiB of zeros compressed with codec, in the named form.
func czBomb(t *testing.T, codec Codec, form string) []byte {
	t.Helper()
	chunk := make([]byte, 1<<20)
	var buf bytes.Buffer
	var w io.WriteCloser
	switch {
	case codec == CodecSnappy && form == "xerial":
		return czXerialBomb(t)
	case codec == CodecSnappy:
		return s2.EncodeSnappy(nil, make([]byte, czBombSize))
	case codec == CodecGzip:
		// One gzip member of 1 MiB of zeros, repeated: a valid multi-member
		// stream, far cheaper to build than compressing 100 MiB.
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, err := zw.Write(chunk)
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		return bytes.Repeat(buf.Bytes(), czBombSize/len(chunk))
	case codec == CodecLz4:
		w = lz4.NewWriter(&buf)
	case codec == CodecZstd && form == "size in header":
		enc, err := zstd.NewWriter(nil)
		require.NoError(t, err)
		return enc.EncodeAll(make([]byte, czBombSize), nil)
	case codec == CodecZstd:
		enc, err := zstd.NewWriter(&buf)
		require.NoError(t, err)
		w = enc
	}
	for i := 0; i < czBombSize/len(chunk); i++ {
		_, err := w.Write(chunk)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// czXerialBomb is a xerial stream of 100 MiB of zeros: the header and one
// compressed 1 MiB chunk, repeated (xerial chunks are independent).
func czXerialBomb(t *testing.T) []byte {
	one := czXerialStream(t, make([]byte, 1<<20), 1<<20)
	header, chunk := one[:16], one[16:]
	return append(append([]byte(nil), header...), bytes.Repeat(chunk, czBombSize>>20)...)
}

// TestDecompressBomb feeds 100 MiB of compressed zeros to Decompress with a
// 1 MiB limit: it must refuse without allocating anywhere near 100 MiB.
func TestDecompressBomb(t *testing.T) {
	const limit = 1 << 20
	for _, tc := range []struct {
		codec Codec
		form  string
	}{
		{CodecGzip, "members"}, {CodecSnappy, "raw"}, {CodecSnappy, "xerial"}, {CodecLz4, "frame"},
		{CodecZstd, "stream"}, {CodecZstd, "size in header"},
	} {
		t.Run(tc.codec.String()+"/"+tc.form, func(t *testing.T) {
			in := czBomb(t, tc.codec, tc.form)
			require.Less(t, len(in), 6<<20, "the bomb is small")
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			out, err := Decompress(tc.codec, in, limit)
			runtime.ReadMemStats(&after)
			require.ErrorIs(t, err, ErrDecompressedTooLarge)
			assert.Nil(t, out)
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d compressed bytes, %.1f MiB allocated", len(in), float64(allocated)/(1<<20))
			assert.Less(t, allocated, uint64(24<<20), "allocated %d bytes for a %d-byte limit", allocated, limit)
		})
	}
}

// TestCompressSteadyStateAllocs checks that a warmed-up Compressor writing
// into a buffer with room does not allocate per call below parallelMin,
// and allocates only a few per 64 KiB block (goroutine hand-offs, not per
// record) when lz4 and zstd compress a large input on several goroutines.
func TestCompressSteadyStateAllocs(t *testing.T) {
	if testing.Short() || czRaceEnabled {
		t.Skip("measures allocations over repeated compressions; not under -race")
	}
	small := czTextRecords(parallelMin-8<<10, 8)
	large := czTextRecords(1<<20, 8)
	for _, c := range czCodecs {
		t.Run(c.String(), func(t *testing.T) {
			comp := NewCompressor()
			comp.workers = 2
			for _, tc := range []struct {
				src []byte
				max float64
			}{{small, 0}, {large, 8 * float64(len(large)>>16)}} {
				out, err := comp.Compress(c, nil, tc.src)
				require.NoError(t, err)
				out = make([]byte, 0, 2*len(tc.src))
				allocs := testing.AllocsPerRun(20, func() {
					out, err = comp.Compress(c, out[:0], tc.src)
				})
				require.NoError(t, err)
				assert.LessOrEqual(t, allocs, tc.max, "allocations per Compress of %d bytes", len(tc.src))
			}
		})
	}
}

// BenchmarkCompress compresses a 1 MiB records section of 100-byte text
// values per codec, reusing the Compressor and the output buffer, on one
// goroutine as a producer's compression worker does.
func BenchmarkCompress(b *testing.B) {
	src := czTextRecords(1<<20, 9)
	for _, c := range czCodecs {
		b.Run(c.String(), func(b *testing.B) {
			comp := NewCompressor(WithGoroutines(1))
			out, err := comp.Compress(c, nil, src)
			require.NoError(b, err)
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if out, err = comp.Compress(c, out[:0], src); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(src))/float64(len(out)), "ratio")
		})
	}
}

// BenchmarkDecompress decompresses the same section per codec.
func BenchmarkDecompress(b *testing.B) {
	src := czTextRecords(1<<20, 9)
	for _, c := range czCodecs {
		b.Run(c.String(), func(b *testing.B) {
			in := czKgoCompress(b, c, src)
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Decompress(c, in, 2<<20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCompressionOverheadBounds: on random (incompressible) input of any
// size the output stays within n + CompressionOverhead, for every codec.
func TestCompressionOverheadBounds(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	comp := NewCompressor()
	for _, n := range []int{0, 1, 100, 4 << 10, 64<<10 + 1, 300 << 10, 1 << 20} {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(rnd.Uint32())
		}
		for _, c := range czCodecs {
			out, err := comp.Compress(c, nil, src)
			require.NoError(t, err)
			assert.LessOrEqual(t, len(out), n+CompressionOverhead(c, n), "%s of %d random bytes", c, n)
		}
	}
}
