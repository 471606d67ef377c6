package accumulator

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// recordView is one record parsed from a batch's own buffer. Its slices
// alias the buffer.
type recordView struct {
	timestampDelta int64
	offsetDelta    int32
	// tail is the record body after the offset delta: key, value and
	// headers, encoded.
	tail []byte
}

// readVarlong reads a zig-zag varlong from the front of b.
func readVarlong(b []byte) (int64, []byte, bool) {
	u, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, b, false
	}
	return int64(u>>1) ^ -int64(u&1), b[n:], true
}

// readVarint reads a zig-zag varint that must fit in an int32.
func readVarint(b []byte) (int32, []byte, bool) {
	v, rest, ok := readVarlong(b)
	if !ok || v < math.MinInt32 || v > math.MaxInt32 {
		return 0, b, false
	}
	return int32(v), rest, true
}

// nextRecord parses the record at the front of records into rec and
// returns the bytes after it.
func nextRecord(records []byte, rec *recordView) ([]byte, error) {
	length, rest, ok := readVarint(records)
	if !ok || length < 1 || int(length) > len(rest) {
		return records, fmt.Errorf("%w: bad record length", ErrCorruptBatch)
	}
	body := rest[1:length] // skip the attributes
	rest = rest[length:]
	if rec.timestampDelta, body, ok = readVarlong(body); !ok {
		return records, fmt.Errorf("%w: bad timestamp delta", ErrCorruptBatch)
	}
	if rec.offsetDelta, body, ok = readVarint(body); !ok {
		return records, fmt.Errorf("%w: bad offset delta", ErrCorruptBatch)
	}
	rec.tail = body
	return rest, nil
}

// readNullableBytes reads varint-length-prefixed bytes; -1 is nil.
func readNullableBytes(b []byte) ([]byte, []byte, bool) {
	n, rest, ok := readVarint(b)
	switch {
	case !ok || n < -1 || int(n) > len(rest):
		return nil, b, false
	case n == -1:
		return nil, rest, true
	}
	return rest[:n:n], rest[n:], true
}

// decodeTail reads the key, value and headers of a record's tail. Header
// values alias tail; header keys are copied into strings; headers are
// appended to hdrs[:0].
func decodeTail(tail []byte, hdrs []protocol.Header) (key, value []byte, _ []protocol.Header, _ error) {
	var ok bool
	if key, tail, ok = readNullableBytes(tail); !ok {
		return nil, nil, hdrs[:0], fmt.Errorf("%w: bad key", ErrCorruptBatch)
	}
	if value, tail, ok = readNullableBytes(tail); !ok {
		return nil, nil, hdrs[:0], fmt.Errorf("%w: bad value", ErrCorruptBatch)
	}
	n, tail, ok := readVarint(tail)
	if !ok || n < 0 || int(n) > len(tail) {
		return nil, nil, hdrs[:0], fmt.Errorf("%w: bad header count", ErrCorruptBatch)
	}
	hdrs = hdrs[:0]
	for i := int32(0); i < n; i++ {
		var k, v []byte
		k, tail, ok = readNullableBytes(tail)
		if ok {
			v, tail, ok = readNullableBytes(tail)
		}
		if !ok {
			return nil, nil, hdrs, fmt.Errorf("%w: bad header %d", ErrCorruptBatch, i)
		}
		hdrs = append(hdrs, protocol.Header{Key: string(k), Value: v})
	}
	return key, value, hdrs, nil
}

// appendRewritten appends rec re-encoded with new deltas (its tail copied
// as is) and returns the buffer.
func appendRewritten(b []byte, rec *recordView, offsetDelta int32, timestampDelta int64) []byte {
	body := 1 + protocol.VarlongLen(timestampDelta) + protocol.VarintLen(offsetDelta) + len(rec.tail)
	b = protocol.AppendVarint(b, int32(body))
	b = append(b, 0)
	b = protocol.AppendVarlong(b, timestampDelta)
	b = protocol.AppendVarint(b, offsetDelta)
	return append(b, rec.tail...)
}

// rewrittenSize is the size appendRewritten would add.
func rewrittenSize(rec *recordView, offsetDelta int32, timestampDelta int64) int {
	body := 1 + protocol.VarlongLen(timestampDelta) + protocol.VarintLen(offsetDelta) + len(rec.tail)
	return protocol.VarintLen(int32(body)) + body
}
