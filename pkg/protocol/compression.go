package protocol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
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

// ParseCodec parses a compression.type name (case-insensitive).
func ParseCodec(s string) (Codec, error) {
	for c := CodecNone; c <= CodecZstd; c++ {
		if strings.EqualFold(s, c.String()) {
			return c, nil
		}
	}
	return 0, fmt.Errorf("%w %q (want none, gzip, snappy, lz4 or zstd)", ErrUnknownCodec, s)
}

// Compressor compresses record sets. It keeps one encoder per codec so that
// steady-state compression does not allocate encoders. It is not safe for
// concurrent use; give each goroutine its own.
type Compressor struct {
	gz  *gzip.Writer
	lz  *lz4.Writer
	zs  *zstd.Encoder
	out appendWriter
}

// NewCompressor returns a Compressor with no encoder created yet.
func NewCompressor() *Compressor { return &Compressor{} }

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
		n := s2.MaxEncodedLen(len(src))
		if n < 0 {
			return dst, fmt.Errorf("snappy: input of %d bytes too large", len(src))
		}
		start := len(dst)
		dst = grow(dst, n)
		enc := s2.EncodeSnappy(dst[start:start+n], src)
		return dst[:start+len(enc)], nil
	case CodecZstd:
		if c.zs == nil {
			enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
			if err != nil {
				return dst, fmt.Errorf("zstd: %w", err)
			}
			c.zs = enc
		}
		return c.zs.EncodeAll(src, dst), nil
	case CodecGzip:
		c.out.b = dst
		if c.gz == nil {
			c.gz = gzip.NewWriter(&c.out)
		} else {
			c.gz.Reset(&c.out)
		}
		return c.finish(c.gz, src)
	case CodecLz4:
		c.out.b = dst
		if c.lz == nil {
			c.lz = lz4.NewWriter(&c.out)
			if err := c.lz.Apply(lz4.BlockSizeOption(lz4.Block64Kb)); err != nil {
				return dst, fmt.Errorf("lz4: %w", err)
			}
		} else {
			c.lz.Reset(&c.out)
		}
		return c.finish(c.lz, src)
	}
	return dst, fmt.Errorf("%w %d", ErrUnknownCodec, codec)
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
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// Decompress returns the decompressed form of src, failing with
// ErrDecompressedTooLarge rather than producing more than maxSize bytes.
// Snappy input may be a raw block or xerial-framed.
func Decompress(codec Codec, src []byte, maxSize int) ([]byte, error) {
	switch codec {
	case CodecNone:
		return src, nil
	case CodecSnappy:
		if bytes.HasPrefix(src, xerialMagic) {
			return decodeXerial(src, maxSize)
		}
		return decodeSnappyBlock(nil, src, maxSize)
	case CodecGzip:
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return readLimited(zr, maxSize)
	case CodecLz4:
		return readLimited(lz4.NewReader(bytes.NewReader(src)), maxSize)
	case CodecZstd:
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(maxSize)+1))
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		defer dec.Close()
		out, err := dec.DecodeAll(src, nil)
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		if len(out) > maxSize {
			return nil, ErrDecompressedTooLarge
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w %d", ErrUnknownCodec, codec)
}

func decodeSnappyBlock(dst, src []byte, maxSize int) ([]byte, error) {
	n, err := s2.DecodedLen(src)
	if err != nil {
		return nil, fmt.Errorf("snappy: %w", err)
	}
	if n > maxSize-len(dst) {
		return nil, ErrDecompressedTooLarge
	}
	start := len(dst)
	dst = grow(dst, n)
	if _, err := s2.Decode(dst[start:], src); err != nil {
		return nil, fmt.Errorf("snappy: %w", err)
	}
	return dst, nil
}

// decodeXerial decodes the xerial framing: magic, two int32 versions, then
// chunks of a big-endian int32 length and a raw snappy block.
func decodeXerial(src []byte, maxSize int) ([]byte, error) {
	const headerLen = 16
	if len(src) < headerLen {
		return nil, fmt.Errorf("snappy: xerial header truncated")
	}
	src = src[headerLen:]
	var out []byte
	for len(src) > 0 {
		if len(src) < 4 {
			return nil, fmt.Errorf("snappy: xerial chunk length truncated")
		}
		n := binary.BigEndian.Uint32(src)
		src = src[4:]
		if uint64(n) > uint64(len(src)) {
			return nil, fmt.Errorf("snappy: xerial chunk of %d bytes with %d left", n, len(src))
		}
		var err error
		if out, err = decodeSnappyBlock(out, src[:n], maxSize); err != nil {
			return nil, err
		}
		src = src[n:]
	}
	return out, nil
}

func readLimited(r io.Reader, maxSize int) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(r, int64(maxSize)+1))
	if err != nil {
		return nil, err
	}
	if len(out) > maxSize {
		return nil, ErrDecompressedTooLarge
	}
	return out, nil
}
