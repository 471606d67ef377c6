package config

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// readCompression reads --compression, --compression-level and
// --compression-workers.
func (r *optionReader) readCompression(o *Options) {
	codec := r.str("compression")
	c, err := protocol.ParseCodec(strings.TrimSpace(codec))
	if err != nil {
		r.failValue("compression", codec, err)
	}
	o.Compression = c
	if raw := strings.TrimSpace(r.str("compression-level")); raw != "" && err == nil {
		level, err := compressionLevel(c, raw)
		if err != nil {
			r.failValue("compression-level", raw, err)
		}
		o.CompressionLevel = level
	}
	o.CompressionWorkers = runtime.GOMAXPROCS(0)
	if strings.TrimSpace(r.str("compression-workers")) != "" {
		o.CompressionWorkers = int(r.integer("compression-workers", 0, math.MaxInt16))
	}
}

// compressionLevel is the level --compression-level gives codec: the last
// of its comma-separated items that is a bare LEVEL or CODEC:LEVEL for
// codec (Java's compression.gzip.level and the like become such items, and
// apply only to their codec, as in Java). The level must be one codec
// takes.
func compressionLevel(codec protocol.Codec, raw string) (int, error) {
	level, bare := protocol.DefaultCompressionLevel, false
	for item := range strings.SplitSeq(raw, ",") {
		item = strings.TrimSpace(item)
		name, num, qualified := strings.Cut(item, ":")
		if !qualified {
			num = name
		}
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if err != nil {
			return 0, fmt.Errorf("%w: %q is not a level: want LEVEL or CODEC:LEVEL, comma-separated", ErrBadValue, item)
		}
		if !qualified {
			level, bare = n, true
			continue
		}
		c, err := protocol.ParseCodec(strings.TrimSpace(name))
		if err != nil {
			return 0, fmt.Errorf("%w: %q: %w", ErrBadValue, item, err)
		}
		if c == codec {
			level, bare = n, false
		}
	}
	if codec == protocol.CodecNone && bare && level != protocol.DefaultCompressionLevel && level != -1 {
		return 0, fmt.Errorf("%w: a level needs a codec: give --compression gzip, lz4 or zstd", ErrBadValue)
	}
	if err := protocol.CheckCompressionLevel(codec, level); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrBadValue, err)
	}
	return level, nil
}
