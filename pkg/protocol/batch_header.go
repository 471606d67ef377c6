package protocol

import (
	"encoding/binary"
	"hash/crc32"
	"math"
)

// Record batch v2 header layout (KIP-98). Offsets are from the start of the
// batch; the CRC covers everything from the attributes to the end.
const (
	offBaseOffset      = 0
	offBatchLength     = 8
	offLeaderEpoch     = 12
	offMagic           = 16
	offCRC             = 17
	offAttributes      = 21
	offLastOffsetDelta = 23
	offBaseTimestamp   = 27
	offMaxTimestamp    = 35
	offProducerID      = 43
	offProducerEpoch   = 51
	offBaseSequence    = 53
	offRecordCount     = 57

	// RecordBatchHeaderSize is the size of a record batch v2 header.
	RecordBatchHeaderSize = 61
	// batchLengthOverhead is the part of the header not counted in the
	// batch length field (base offset and the length itself).
	batchLengthOverhead = 12
)

// Record batch attribute bits.
const (
	AttrCompressionMask    = 0x07
	AttrTimestampLogAppend = 0x08
	AttrTransactional      = 0x10
	AttrControl            = 0x20
)

// NoProducerID is the producer id of a batch sent without idempotence.
const NoProducerID int64 = -1

// castagnoli is the CRC32C table; it is never modified.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC32C is the Castagnoli CRC of b.
func CRC32C(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// BatchHeader is the header of a record batch v2, minus the fields derived
// from the bytes (length, magic, CRC).
type BatchHeader struct {
	BaseOffset           int64
	PartitionLeaderEpoch int32
	Attributes           int16
	LastOffsetDelta      int32
	BaseTimestamp        int64
	MaxTimestamp         int64
	ProducerID           int64
	ProducerEpoch        int16
	BaseSequence         int32
	RecordCount          int32
}

// PutBatchHeader writes h into batch[:RecordBatchHeaderSize], where batch is
// a whole record batch whose records (compressed or not) follow the header,
// and then computes the batch length and the CRC32C. Call it last: any
// later change to the batch invalidates the CRC.
func PutBatchHeader(batch []byte, h *BatchHeader) {
	be := binary.BigEndian
	be.PutUint64(batch[offBaseOffset:], uint64(h.BaseOffset))
	be.PutUint32(batch[offBatchLength:], uint32(len(batch)-batchLengthOverhead))
	be.PutUint32(batch[offLeaderEpoch:], uint32(h.PartitionLeaderEpoch))
	batch[offMagic] = 2
	be.PutUint16(batch[offAttributes:], uint16(h.Attributes))
	be.PutUint32(batch[offLastOffsetDelta:], uint32(h.LastOffsetDelta))
	be.PutUint64(batch[offBaseTimestamp:], uint64(h.BaseTimestamp))
	be.PutUint64(batch[offMaxTimestamp:], uint64(h.MaxTimestamp))
	be.PutUint32(batch[offRecordCount:], uint32(h.RecordCount))
	SetBatchProducerState(batch, h.ProducerID, h.ProducerEpoch, h.BaseSequence)
}

// SetBatchProducerState rewrites the producer id, epoch and base sequence
// of a finished batch and recomputes its CRC. The records are not touched,
// so a compressed batch is re-stamped without recompressing.
func SetBatchProducerState(batch []byte, producerID int64, epoch int16, baseSequence int32) {
	be := binary.BigEndian
	be.PutUint64(batch[offProducerID:], uint64(producerID))
	be.PutUint16(batch[offProducerEpoch:], uint16(epoch))
	be.PutUint32(batch[offBaseSequence:], uint32(baseSequence))
	be.PutUint32(batch[offCRC:], CRC32C(batch[offAttributes:]))
}

// IncrementSequence adds n to an idempotent producer sequence number,
// wrapping past MaxInt32 to 0 as Kafka's DefaultRecordBatch does.
func IncrementSequence(seq, n int32) int32 {
	if seq > math.MaxInt32-n {
		return n - (math.MaxInt32 - seq) - 1
	}
	return seq + n
}
