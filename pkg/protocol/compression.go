package protocol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Codec is a record batch compression codec (the low three attribute bits).
type Codec int8

// The compression codecs Kafka defines.
const (
	CodecNone   Codec = 0
	CodecGzip   Codec = 1
	CodecSnappy Codec = 2
	CodecLz4    Codec = 3
	CodecZstd   Codec = 4
)

// ErrUnknownCodec is wrapped by errors about an unknown codec id or name.
var ErrUnknownCodec = errors.New("unknown compression codec")

// ErrDecompressedTooLarge is returned when decompressed data exceeds the
// caller's limit.
var ErrDecompressedTooLarge = errors.New("decompressed data exceeds the limit")

// String is the codec's name as used by compression.type.
func (c Codec) String() string {
	switch c {
	case CodecNone:
		return "none"
	case CodecGzip:
		return "gzip"
	case CodecSnappy:
		return "snappy"
	case CodecLz4:
		return "lz4"
	case CodecZstd:
		return "zstd"
	}
	return fmt.Sprintf("codec(%d)", int8(c))
}

// CodecNames are the codecs' names, in id order.
func CodecNames() []string {
	var names []string
	for c := CodecNone; c <= CodecZstd; c++ {
		names = append(names, c.String())
	}
	return names
}

// ParseCodec parses a compression.type name (case-insensitive).
func ParseCodec(s string) (Codec, error) {
	for c := CodecNone; c <= CodecZstd; c++ {
		if strings.EqualFold(s, c.String()) {
			return c, nil
		}
	}
	return 0, fmt.Errorf("%w %q (want none, gzip, snappy, lz4 or zstd)", ErrUnknownCodec, s)
}

// parallelMin is the input size from which lz4 and zstd compress their
// blocks on several goroutines, when the Compressor may use several: a
// full batch then uses every core, which doubles the throughput of a 1 MiB
// batch on two cores (measured), while a small one avoids the goroutine
// hand-offs. A producer compressing batches in parallel gives each of its
// Compressors one goroutine instead.
const parallelMin = 256 << 10

// zstdWindow is the zstd window. On 1 MiB batches of text, 256 KiB
// compressed as well as 1 MiB (0.7051 of random text, 0.2171 against
// 0.2181 of JSON logs), at the same speed, with an encoder of under 1 MiB
// instead of 2.7 (with zstdEncoderOptions' lower memory): a producer keeps
// one per compression worker.
const zstdWindow = 256 << 10

// zstdEncoderOptions are the options of every zstd encoder besides its
// level and concurrency: no content checksum (the batch's CRC covers the
// records, and Kafka's clients write none either), no frame for empty
// input, the window above, and the encoder's lower-memory mode.
func zstdEncoderOptions(level int) []zstd.EOption {
	return []zstd.EOption{zstd.WithEncoderLevel(zstdEncoderLevel(level)), zstd.WithEncoderCRC(false),
		zstd.WithZeroFrames(true), zstd.WithWindowSize(zstdWindow), zstd.WithLowerEncoderMem(true)}
}

// Compressor compresses record sets. It keeps its encoders so that
// steady-state compression does not allocate them. It is not safe for
// concurrent use; give each goroutine its own.
type Compressor struct {
	levels  [CodecZstd + 1]int // per codec, resolved (see effectiveLevel); immutable
	gz      *gzip.Writer
	lz4     lz4Frame
	zs      *zstd.Encoder // EncodeAll, one goroutine
	zsPar   *zstd.Encoder // streaming, blocks on several goroutines
	workers int           // goroutines for large inputs; immutable
	out     appendWriter
	scratch []byte // snappy's output, reused
	owned   []byte // CompressOwned's output, reused
}

// CompressorOption configures a Compressor.
type CompressorOption func(*Compressor)

// WithLevel compresses codec's data at level (see CompressionLevels;
// DefaultCompressionLevel and -1 keep its default). Check a level from
// the outside world with CheckCompressionLevel first: one the codec does
// not take is clamped to its range.
func WithLevel(codec Codec, level int) CompressorOption {
	return func(c *Compressor) {
		if codec < 0 || codec > CodecZstd {
			return
		}
		level = effectiveLevel(codec, level)
		if lowest, highest, ok := CompressionLevels(codec); ok {
			level = min(max(level, lowest), highest)
		}
		c.levels[codec] = level
	}
}

// WithGoroutines lets a large input (parallelMin bytes or more) of lz4 or
// zstd be compressed on up to n goroutines; 1 keeps every compression on
// the caller's goroutine.
func WithGoroutines(n int) CompressorOption {
	return func(c *Compressor) { c.workers = max(n, 1) }
}

// NewCompressor returns a Compressor, with no encoder created yet, that
// uses each codec's default level and compresses large inputs with up to
// GOMAXPROCS goroutines, unless options say otherwise.
func NewCompressor(opts ...CompressorOption) *Compressor {
	c := &Compressor{workers: runtime.GOMAXPROCS(0)}
	for codec := range c.levels {
		c.levels[codec] = effectiveLevel(Codec(codec), DefaultCompressionLevel)
	}
	for _, o := range opts {
		o(c)
	}
	c.lz4.depth = lz4Depth(c.levels[CodecLz4])
	return c
}

// CompressionOverhead bounds how much the Compressor's output for n bytes
// can exceed n (incompressible input: stored blocks and frame headers).
// Producers keep room for it so that a full batch still fits its buffer
// once compressed.
func CompressionOverhead(codec Codec, n int) int {
	if codec == CodecNone {
		return 0
	}
	return 64 + n/1024
}

// appendWriter is an io.Writer that appends to a byte slice.
type appendWriter struct{ b []byte }

func (a *appendWriter) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

// Compress appends the compressed form of src to dst. CodecNone appends src
// unchanged. Snappy output is a raw snappy block, which Kafka brokers and
// clients accept alongside the xerial framing.
func (c *Compressor) Compress(codec Codec, dst, src []byte) ([]byte, error) {
	switch codec {
	case CodecNone:
		return append(dst, src...), nil
	case CodecSnappy:
		// The encoder wants room for its worst case (n + n/6 + 32), far
		// beyond what it writes: encode into a scratch buffer, then copy.
		n := s2.MaxEncodedLen(len(src))
		if n < 0 {
			return dst, fmt.Errorf("snappy: input of %d bytes too large", len(src))
		}
		c.scratch = grow(c.scratch[:0], n)
		return append(dst, s2.EncodeSnappy(c.scratch, src)...), nil
	case CodecZstd:
		if len(src) >= parallelMin && c.workers > 1 {
			return c.zstdParallel(dst, src)
		}
		if c.zs == nil {
			enc, err := zstd.NewWriter(nil, append(zstdEncoderOptions(c.levels[CodecZstd]), zstd.WithEncoderConcurrency(1))...)
			if err != nil {
				return dst, fmt.Errorf("zstd: %w", err)
			}
			c.zs = enc
		}
		return c.zs.EncodeAll(src, dst), nil
	case CodecGzip:
		c.out.b = dst
		if c.gz == nil {
			gz, err := gzip.NewWriterLevel(&c.out, c.levels[CodecGzip])
			if err != nil {
				return dst, fmt.Errorf("gzip: %w", err)
			}
			c.gz = gz
		} else {
			c.gz.Reset(&c.out)
		}
		return c.finish(c.gz, src)
	case CodecLz4:
		return c.lz4.appendFrame(dst, src, c.workers), nil
	}
	return dst, fmt.Errorf("%w %d", ErrUnknownCodec, codec)
}

// CompressOwned is Compress into a buffer of the Compressor's own,
// reused: the result is valid until the Compressor's next call. It saves
// the caller a buffer per compression when it copies the result anyway.
func (c *Compressor) CompressOwned(codec Codec, src []byte) ([]byte, error) {
	if codec == CodecSnappy {
		// The encoder writes into its scratch buffer anyway.
		n := s2.MaxEncodedLen(len(src))
		if n < 0 {
			return nil, fmt.Errorf("snappy: input of %d bytes too large", len(src))
		}
		c.scratch = grow(c.scratch[:0], n)
		return s2.EncodeSnappy(c.scratch, src), nil
	}
	out, err := c.Compress(codec, c.owned[:0], src)
	if cap(out) > cap(c.owned) {
		c.owned = out[:0]
	}
	return out, err
}

// zstdParallel compresses a large input with the streaming encoder, whose
// blocks are compressed on several goroutines.
func (c *Compressor) zstdParallel(dst, src []byte) ([]byte, error) {
	c.out.b = dst
	if c.zsPar == nil {
		enc, err := zstd.NewWriter(&c.out, append(zstdEncoderOptions(c.levels[CodecZstd]), zstd.WithEncoderConcurrency(c.workers))...)
		if err != nil {
			return dst, fmt.Errorf("zstd: %w", err)
		}
		c.zsPar = enc
	} else {
		c.zsPar.Reset(&c.out)
	}
	return c.finish(c.zsPar, src)
}

// finish writes src through a stream encoder into c.out and closes it.
func (c *Compressor) finish(w io.WriteCloser, src []byte) ([]byte, error) {
	if _, err := w.Write(src); err != nil {
		return c.out.b, err
	}
	if err := w.Close(); err != nil {
		return c.out.b, err
	}
	out := c.out.b
	c.out.b = nil
	return out, nil
}

// grow extends b's length by n, reallocating when needed.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), len(b)+n)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

// xerialMagic starts a snappy stream in the xerial (snappy-java) framing.
const xerialMagic = "\x82SNAPPY\x00"

// Decompress returns the decompressed form of src, failing with
// ErrDecompressedTooLarge rather than producing more than maxSize bytes.
// Snappy input may be a raw block or xerial-framed. CodecNone returns src
// itself, whatever its size. Memory use is bounded by the output actually
// produced (at most about maxSize) plus, for lz4 and zstd, the block or
// window buffer the stream's header asks for (at most 4 MiB for lz4; see
// zstdMaxWindow).
func Decompress(codec Codec, src []byte, maxSize int) ([]byte, error) {
	maxSize = max(maxSize, 0)
	switch codec {
	case CodecNone:
		return src, nil
	case CodecSnappy:
		if bytes.HasPrefix(src, []byte(xerialMagic)) {
			return decodeXerial(src, maxSize)
		}
		return decodeSnappyBlock(nil, src, maxSize)
	case CodecGzip:
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return readStream("gzip", zr, maxSize)
	case CodecLz4:
		return readStream("lz4", lz4.NewReader(bytes.NewReader(src)), maxSize)
	case CodecZstd:
		return decodeZstd(src, maxSize)
	}
	return nil, fmt.Errorf("%w %d", ErrUnknownCodec, codec)
}

// snappyMaxRatio bounds how much a snappy block can expand: its densest
// element is a 3-byte copy of 64 bytes. A block claiming more than this is
// corrupt, so its claim is refused before anything is allocated.
const snappyMaxRatio = 22

// Zstd window limits. A frame's window is the history its decoder keeps, so
// it is allocated whatever the frame's size; frames whose header asks for
// more than zstdMaxWindow are refused (zstd recommends decoders accept 8 MiB;
// Kafka's Java client accepts up to 128 MiB, as does kproduce when the
// caller's size limit is at least that large).
const (
	zstdMinWindowLimit = 8 << 20
	zstdMaxWindow      = 128 << 20
)

func decodeSnappyBlock(dst, src []byte, maxSize int) ([]byte, error) {
	n, err := s2.DecodedLen(src)
	if err != nil {
		return nil, fmt.Errorf("snappy: %w", err)
	}
	if n > maxSize-len(dst) {
		return nil, fmt.Errorf("snappy: %w (%d bytes, limit %d)", ErrDecompressedTooLarge, len(dst)+n, maxSize)
	}
	if n/snappyMaxRatio > len(src) {
		return nil, fmt.Errorf("snappy: a %d-byte block cannot decode to the %d bytes it claims", len(src), n)
	}
	start := len(dst)
	dst = grow(dst, n)
	if _, err := s2.Decode(dst[start:], src); err != nil {
		return nil, fmt.Errorf("snappy: %w", err)
	}
	return dst, nil
}

// decodeXerial decodes the xerial framing: magic, two int32 versions, then
// chunks of a big-endian int32 length and a raw snappy block. The chunk
// headers are checked and their sizes summed first, so the output is
// allocated once.
func decodeXerial(src []byte, maxSize int) ([]byte, error) {
	const headerLen = 16
	if len(src) < headerLen {
		return nil, fmt.Errorf("snappy: xerial header truncated")
	}
	chunks := src[headerLen:]
	total, err := xerialDecodedLen(chunks, maxSize)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, total)
	for len(chunks) > 0 {
		n := binary.BigEndian.Uint32(chunks)
		if out, err = decodeSnappyBlock(out, chunks[4:4+n], maxSize); err != nil {
			return nil, err
		}
		chunks = chunks[4+n:]
	}
	return out, nil
}

// xerialDecodedLen validates the chunk framing and returns the total size
// the chunks claim to decode to, refusing claims above maxSize.
func xerialDecodedLen(chunks []byte, maxSize int) (int, error) {
	total := 0
	for len(chunks) > 0 {
		if len(chunks) < 4 {
			return 0, fmt.Errorf("snappy: xerial chunk length truncated")
		}
		n := binary.BigEndian.Uint32(chunks)
		chunks = chunks[4:]
		if uint64(n) > uint64(len(chunks)) {
			return 0, fmt.Errorf("snappy: xerial chunk of %d bytes with %d left", n, len(chunks))
		}
		l, err := s2.DecodedLen(chunks[:n])
		if err != nil {
			return 0, fmt.Errorf("snappy: %w", err)
		}
		if l > maxSize-total {
			return 0, fmt.Errorf("snappy: %w (more than %d bytes, limit %d)", ErrDecompressedTooLarge, total+l, maxSize)
		}
		total += l
		chunks = chunks[n:]
	}
	return total, nil
}

// decodeZstd decodes src as a stream, so that memory grows with the output
// actually produced (plus one window) rather than with sizes claimed by frame
// headers, and stops once more than maxSize bytes come out.
func decodeZstd(src []byte, maxSize int) ([]byte, error) {
	window := min(max(maxSize, zstdMinWindowLimit), zstdMaxWindow)
	dec, err := zstd.NewReader(bytes.NewReader(src),
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(uint64(window)),
		zstd.WithDecoderMaxWindow(uint64(window)))
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	defer dec.Close()
	return readStream("zstd", dec, maxSize)
}

// readStream is readLimited with decoding errors named after the codec.
func readStream(codec string, r io.Reader, maxSize int) ([]byte, error) {
	out, err := readLimited(r, maxSize)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", codec, err)
	}
	return out, nil
}

// readLimited reads r to the end, failing with ErrDecompressedTooLarge as
// soon as it yields more than maxSize bytes.
func readLimited(r io.Reader, maxSize int) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(r, int64(maxSize)+1))
	if err != nil {
		return nil, err
	}
	if len(out) > maxSize {
		return nil, fmt.Errorf("%w (limit %d)", ErrDecompressedTooLarge, maxSize)
	}
	return out, nil
}
