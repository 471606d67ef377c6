package protocol

import (
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// ErrCompressionLevel is wrapped by the errors about a compression level
// that its codec does not take.
var ErrCompressionLevel = errors.New("invalid compression level")

// DefaultCompressionLevel asks for a codec's default level; -1 (the
// default of librdkafka's compression.level and Java's
// compression.gzip.level) means the same.
const DefaultCompressionLevel = 0

// Default levels, as the encoders number them.
const (
	// gzipDefaultLevel: kproduce's deflate encoder (klauspost/compress) at
	// 7 measured within 5% of the size of zlib's default level (6, Kafka's
	// and librdkafka's) on random text and on JSON logs, at about twice
	// zlib's speed; its own level 6 is as large as 5.5% more on logs.
	gzipDefaultLevel = 7
	// zstdDefaultLevel is the zstd level the fastest encoder stands for:
	// on line-oriented text it measured the ratio of zstd's default level
	// (3, Kafka's) within 4%, at 1.7 times the speed.
	zstdDefaultLevel = 1
	// lz4HCMinLevel is the first level compressed by lz4's high
	// compression (HC) algorithm, as in the reference library; below it
	// lz4's fast algorithm is used, which is the default.
	lz4HCMinLevel = 3
)

// CompressionLevels returns the levels codec takes, besides 0 and -1 (its
// default): gzip 1 to 9, lz4 1 to 17 (3 and up: high compression), zstd
// -131072 to 22 (below 1: its fastest); snappy and none take no level.
func CompressionLevels(codec Codec) (lowest, highest int, ok bool) {
	switch codec {
	case CodecGzip:
		return 1, 9, true
	case CodecLz4:
		return 1, 17, true
	case CodecZstd:
		return -131072, 22, true
	}
	return 0, 0, false
}

// CheckCompressionLevel reports whether codec takes level (0 and -1, its
// default, always do); the error wraps ErrCompressionLevel and says which
// levels it takes.
func CheckCompressionLevel(codec Codec, level int) error {
	if level == DefaultCompressionLevel || level == -1 {
		return nil
	}
	lowest, highest, ok := CompressionLevels(codec)
	if !ok {
		return fmt.Errorf("%w %d: %s takes no level (only 0 or -1, its default)", ErrCompressionLevel, level, codec)
	}
	if level < lowest || level > highest {
		return fmt.Errorf("%w %d for %s: it takes %d to %d (0 or -1: its default)", ErrCompressionLevel, level, codec, lowest, highest)
	}
	return nil
}

// effectiveLevel is level with the default resolved.
func effectiveLevel(codec Codec, level int) int {
	if level != DefaultCompressionLevel && level != -1 {
		return level
	}
	switch codec {
	case CodecGzip:
		return gzipDefaultLevel
	case CodecZstd:
		return zstdDefaultLevel
	}
	return 0
}

// zstdEncoderLevel maps a zstd level to the encoder's speed: 1 and below
// are its fastest.
func zstdEncoderLevel(level int) zstd.EncoderLevel {
	if level <= 1 {
		return zstd.SpeedFastest
	}
	return zstd.EncoderLevelFromZstd(level)
}

// lz4Depth maps an lz4 level from lz4HCMinLevel up to a search depth of
// the HC compressor (the reference library searches deeper from level to
// level too); 0 below it.
func lz4Depth(level int) lz4.CompressionLevel {
	if level < lz4HCMinLevel {
		return 0
	}
	levels := [...]lz4.CompressionLevel{lz4.Level1, lz4.Level2, lz4.Level3, lz4.Level4, lz4.Level5, lz4.Level6, lz4.Level7, lz4.Level8, lz4.Level9}
	return levels[min(level-lz4HCMinLevel, len(levels)-1)]
}
