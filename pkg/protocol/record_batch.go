package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrCorruptBatch is wrapped by every error about a record batch whose bytes
// are present but wrong: bad length, magic, CRC, codec, compressed data,
// record count, offset deltas or record encoding. A batch cut short (the
// usual end of a fetch response) wraps ErrShortBuffer instead, and one that
// inflates past the caller's limit ErrDecompressedTooLarge.
var ErrCorruptBatch = errors.New("corrupt record batch")

// minRecordSize is the smallest encoded record: a one-byte length prefix and
// a six-byte body (attributes, timestamp delta, offset delta, null key, null
// value, zero headers).
const minRecordSize = 7

// RecordBatch is a decoded record batch v2 (magic 2). The fields mirror the
// wire header; Records holds the decompressed records.
type RecordBatch struct {
	BaseOffset           int64
	PartitionLeaderEpoch int32
	Magic                int8   // 2 once decoded; AppendTo always writes 2
	CRC                  uint32 // as read; AppendTo computes it afresh
	Attributes           int16  // codec, timestamp type, transactional, control
	LastOffsetDelta      int32
	BaseTimestamp        int64
	MaxTimestamp         int64
	ProducerID           int64
	ProducerEpoch        int16
	BaseSequence         int32
	Records              []Record
}

// Codec is the compression codec named by the batch attributes.
func (b *RecordBatch) Codec() Codec { return Codec(b.Attributes & AttrCompressionMask) }

// DecodeRecordBatch reads one record batch v2 from the front of b and returns
// it with the bytes that follow it (b may hold several batches back to back,
// as the records of a produce request or a fetch response do).
//
// It checks the batch length against the bytes present, the magic byte, the
// CRC32C, the codec, that the record count fits in the data, and that offset
// deltas increase and stay within LastOffsetDelta. Compressed records are
// inflated to at most maxUncompressed bytes (ErrDecompressedTooLarge beyond). The records' keys, values and
// header values alias b when the batch is not compressed, and the inflated
// buffer otherwise.
func DecodeRecordBatch(b []byte, maxUncompressed int) (batch *RecordBatch, rest []byte, err error) {
	total, err := batchSize(b)
	if err != nil {
		return nil, b, err
	}
	raw := b[:total]
	batch, err = decodeBatchHeader(raw)
	if err != nil {
		return nil, b, err
	}
	count := int32(binary.BigEndian.Uint32(raw[offRecordCount:]))
	data, err := Decompress(batch.Codec(), raw[RecordBatchHeaderSize:], maxUncompressed)
	if errors.Is(err, ErrDecompressedTooLarge) {
		return nil, b, fmt.Errorf("record batch at offset %d: %w", batch.BaseOffset, err)
	}
	if err != nil {
		return nil, b, fmt.Errorf("%w: %s records: %w", ErrCorruptBatch, batch.Codec(), err)
	}
	if batch.Records, err = decodeRecords(data, count, batch.LastOffsetDelta); err != nil {
		return nil, b, err
	}
	return batch, b[total:], nil
}

// batchSize returns the full size of the batch at the front of b, checking
// that it is plausible and entirely present.
func batchSize(b []byte) (int, error) {
	if len(b) < batchLengthOverhead {
		return 0, fmt.Errorf("%w: record batch truncated: %d bytes, need %d for its length", ErrShortBuffer, len(b), batchLengthOverhead)
	}
	length := int32(binary.BigEndian.Uint32(b[offBatchLength:]))
	if length < RecordBatchHeaderSize-batchLengthOverhead {
		return 0, fmt.Errorf("%w: batch length %d is shorter than a batch header", ErrCorruptBatch, length)
	}
	total := int(length) + batchLengthOverhead
	if total > len(b) {
		return 0, fmt.Errorf("%w: record batch truncated: length says %d bytes, %d present", ErrShortBuffer, total, len(b))
	}
	return total, nil
}

// decodeBatchHeader checks the magic, CRC and codec of a complete batch and
// returns its header fields.
func decodeBatchHeader(raw []byte) (*RecordBatch, error) {
	be := binary.BigEndian
	if magic := int8(raw[offMagic]); magic != 2 {
		return nil, fmt.Errorf("%w: magic %d, want 2", ErrCorruptBatch, magic)
	}
	stored := be.Uint32(raw[offCRC:])
	if computed := CRC32C(raw[offAttributes:]); computed != stored {
		return nil, fmt.Errorf("%w: crc32c is %08x, batch says %08x", ErrCorruptBatch, computed, stored)
	}
	batch := &RecordBatch{
		BaseOffset:           int64(be.Uint64(raw[offBaseOffset:])),
		PartitionLeaderEpoch: int32(be.Uint32(raw[offLeaderEpoch:])),
		Magic:                2,
		CRC:                  stored,
		Attributes:           int16(be.Uint16(raw[offAttributes:])),
		LastOffsetDelta:      int32(be.Uint32(raw[offLastOffsetDelta:])),
		BaseTimestamp:        int64(be.Uint64(raw[offBaseTimestamp:])),
		MaxTimestamp:         int64(be.Uint64(raw[offMaxTimestamp:])),
		ProducerID:           int64(be.Uint64(raw[offProducerID:])),
		ProducerEpoch:        int16(be.Uint16(raw[offProducerEpoch:])),
		BaseSequence:         int32(be.Uint32(raw[offBaseSequence:])),
	}
	if c := batch.Codec(); c > CodecZstd {
		return nil, fmt.Errorf("%w: %w %d", ErrCorruptBatch, ErrUnknownCodec, int8(c))
	}
	return batch, nil
}

// decodeRecords decodes exactly count records filling data, checking that
// offset deltas increase and do not pass lastOffsetDelta.
func decodeRecords(data []byte, count, lastOffsetDelta int32) ([]Record, error) {
	if count < 0 || int64(count) > int64(len(data)/minRecordSize) {
		return nil, fmt.Errorf("%w: %d records cannot fit in %d bytes", ErrCorruptBatch, count, len(data))
	}
	if count == 0 {
		if len(data) != 0 {
			return nil, fmt.Errorf("%w: %d bytes after zero records", ErrCorruptBatch, len(data))
		}
		return nil, nil
	}
	records := make([]Record, count)
	r := NewReader(data)
	prev := int32(-1)
	for i := range records {
		rec := &records[i]
		if err := rec.Decode(r); err != nil {
			return nil, fmt.Errorf("%w: record %d: %w", ErrCorruptBatch, i, err)
		}
		if rec.OffsetDelta <= prev || rec.OffsetDelta > lastOffsetDelta {
			return nil, fmt.Errorf("%w: record %d has offset delta %d after %d (last offset delta %d)",
				ErrCorruptBatch, i, rec.OffsetDelta, prev, lastOffsetDelta)
		}
		prev = rec.OffsetDelta
	}
	if r.Remaining() != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the last of %d records", ErrCorruptBatch, r.Remaining(), count)
	}
	return records, nil
}

// AppendTo appends the batch, encoded as record batch v2, to dst. Records
// keep their own attributes and deltas; the records section is compressed
// with the codec named by Attributes using comp (a nil comp uses a
// throw-away Compressor). The length, magic (always 2), record count and
// CRC32C are computed; the CRC field of b is ignored. On error dst is
// returned unchanged in length.
//
// This is the general-purpose encoder. The producer's hot path builds
// batches in place with AppendRecord and PutBatchHeader instead.
func (b *RecordBatch) AppendTo(dst []byte, comp *Compressor) ([]byte, error) {
	start := len(dst)
	dst = grow(dst, RecordBatchHeaderSize)
	codec := b.Codec()
	if codec == CodecNone {
		dst = appendRecords(dst, b.Records)
	} else {
		if comp == nil {
			comp = NewCompressor()
		}
		raw := appendRecords(nil, b.Records)
		var err error
		if dst, err = comp.Compress(codec, dst, raw); err != nil {
			return dst[:start], fmt.Errorf("encode record batch: %w", err)
		}
	}
	if size := len(dst) - start; size > math.MaxInt32 || len(b.Records) > math.MaxInt32 {
		return dst[:start], fmt.Errorf("encode record batch: %d bytes and %d records exceed the format's limits", size, len(b.Records))
	}
	PutBatchHeader(dst[start:], &BatchHeader{
		BaseOffset:           b.BaseOffset,
		PartitionLeaderEpoch: b.PartitionLeaderEpoch,
		Attributes:           b.Attributes,
		LastOffsetDelta:      b.LastOffsetDelta,
		BaseTimestamp:        b.BaseTimestamp,
		MaxTimestamp:         b.MaxTimestamp,
		ProducerID:           b.ProducerID,
		ProducerEpoch:        b.ProducerEpoch,
		BaseSequence:         b.BaseSequence,
		RecordCount:          int32(len(b.Records)),
	})
	return dst, nil
}

// appendRecords appends each record, length-prefixed, keeping its
// attributes.
func appendRecords(dst []byte, records []Record) []byte {
	w := Writer{buf: dst}
	for i := range records {
		records[i].Encode(&w)
	}
	return w.buf
}
