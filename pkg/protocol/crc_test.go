package protocol

import (
	"bytes"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestCRC32CVector(t *testing.T) {
	// The check value of CRC-32C (Castagnoli), RFC 3720 appendix B.4.
	assert.Equal(t, uint32(0xe3069283), CRC32C([]byte("123456789")))
	assert.Equal(t, uint32(0), CRC32C(nil))
	// 32 bytes of zeros, RFC 3720 B.4.
	assert.Equal(t, uint32(0x8a9136aa), CRC32C(make([]byte, 32)))
}

// crcHeader has every field set to a distinct value.
func crcHeader() BatchHeader {
	return BatchHeader{
		BaseOffset:           0x0102030405060708,
		PartitionLeaderEpoch: 17,
		Attributes:           int16(CodecLz4) | AttrTransactional,
		LastOffsetDelta:      2,
		BaseTimestamp:        1_700_000_000_000,
		MaxTimestamp:         1_700_000_000_123,
		ProducerID:           4242,
		ProducerEpoch:        3,
		BaseSequence:         99,
		RecordCount:          3,
	}
}

// TestPutBatchHeaderMatchesKmsg writes a header with PutBatchHeader and reads
// it with franz-go's RecordBatch, which also checks the length field.
func TestPutBatchHeaderMatchesKmsg(t *testing.T) {
	records := []byte("opaque records section")
	batch := append(make([]byte, RecordBatchHeaderSize), records...)
	h := crcHeader()
	PutBatchHeader(batch, &h)

	var kb kmsg.RecordBatch
	require.NoError(t, kb.ReadFrom(batch))
	assert.Equal(t, h.BaseOffset, kb.FirstOffset)
	assert.Equal(t, int32(len(batch)-12), kb.Length)
	assert.Equal(t, h.PartitionLeaderEpoch, kb.PartitionLeaderEpoch)
	assert.Equal(t, int8(2), kb.Magic)
	assert.Equal(t, h.Attributes, kb.Attributes)
	assert.Equal(t, h.LastOffsetDelta, kb.LastOffsetDelta)
	assert.Equal(t, h.BaseTimestamp, kb.FirstTimestamp)
	assert.Equal(t, h.MaxTimestamp, kb.MaxTimestamp)
	assert.Equal(t, h.ProducerID, kb.ProducerID)
	assert.Equal(t, h.ProducerEpoch, kb.ProducerEpoch)
	assert.Equal(t, h.BaseSequence, kb.FirstSequence)
	assert.Equal(t, h.RecordCount, kb.NumRecords)
	assert.Equal(t, records, kb.Records)

	// The CRC covers attributes..end, computed independently here.
	want := crc32.Checksum(batch[21:], crc32.MakeTable(crc32.Castagnoli))
	assert.Equal(t, int32(want), kb.CRC)

	// kmsg re-encodes the same bytes.
	assert.Equal(t, batch, kb.AppendTo(nil))
}

func TestSetBatchProducerStateRestamps(t *testing.T) {
	batch := append(make([]byte, RecordBatchHeaderSize), "records"...)
	h := crcHeader()
	PutBatchHeader(batch, &h)
	before := append([]byte(nil), batch...)

	SetBatchProducerState(batch, 777, 9, 1000)

	var kb kmsg.RecordBatch
	require.NoError(t, kb.ReadFrom(batch))
	assert.Equal(t, int64(777), kb.ProducerID)
	assert.Equal(t, int16(9), kb.ProducerEpoch)
	assert.Equal(t, int32(1000), kb.FirstSequence)
	assert.Equal(t, int32(CRC32C(batch[21:])), kb.CRC)
	assert.NotEqual(t, before[17:21], batch[17:21], "the CRC changed")
	// Nothing else moved.
	assert.Equal(t, before[:17], batch[:17])
	assert.Equal(t, before[21:43], batch[21:43])
	assert.Equal(t, before[57:], batch[57:])
}

// BenchmarkPutBatchHeader measures finishing a 1 MiB batch: the header and
// the CRC32C over the whole batch.
func BenchmarkPutBatchHeader(b *testing.B) {
	batch := make([]byte, RecordBatchHeaderSize+1<<20)
	copy(batch[RecordBatchHeaderSize:], bytes.Repeat([]byte("0123456789"), (1<<20)/10))
	h := crcHeader()
	b.ReportAllocs()
	b.SetBytes(int64(len(batch)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.BaseSequence = int32(i)
		PutBatchHeader(batch, &h)
	}
}
