package protocol

import (
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Golden encodings are committed as hex under testdata. To regenerate them
// from kmsg's encoding (never from ours), run the tests with
// KPRODUCE_UPDATE_GOLDEN=1.
const msgUpdateGoldenEnv = "KPRODUCE_UPDATE_GOLDEN"

// msgGoldenProduceRequest is a Produce v9 request carrying one real record
// batch of three records from an idempotent producer.
func msgGoldenProduceRequest(t *testing.T) *ProduceRequest {
	return &ProduceRequest{
		TransactionalID: nil,
		Acks:            -1,
		TimeoutMs:       30_000,
		Topics: []ProduceRequestTopic{{
			Name:       "orders",
			Partitions: []ProduceRequestPartition{{Index: 2, Records: msgTestBatch(t, 3, 10, 4242, 1, 0)}},
		}},
	}
}

func msgReadGolden(t *testing.T, name string, kmsgBytes []byte) []byte {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv(msgUpdateGoldenEnv) != "" {
		var sb strings.Builder
		for b := kmsgBytes; len(b) > 0; {
			n := min(32, len(b))
			sb.WriteString(hex.EncodeToString(b[:n]))
			sb.WriteByte('\n')
			b = b[n:]
		}
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(sb.String()), 0o644))
	}
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	b, err := hex.DecodeString(strings.Join(strings.Fields(string(text)), ""))
	require.NoError(t, err, "bad hex in %s", path)
	return b
}

func TestGoldenProduceRequestV9(t *testing.T) {
	req := msgGoldenProduceRequest(t)
	ours := msgEncode(req, 9)
	theirs := produceRequestToKmsg(req)
	theirs.Version = 9
	kmsgBytes := theirs.AppendTo(nil)
	golden := msgReadGolden(t, "produce_v9_request.hex", kmsgBytes)

	assert.Equal(t, kmsgBytes, ours, "ours differs from kmsg")
	assert.Equal(t, golden, ours, "ours differs from the committed fixture")

	var got ProduceRequest
	require.NoError(t, got.Decode(NewReader(golden), 9))
	assert.Equal(t, req, &got)

	// The batch inside is a valid record batch v2 for an independent
	// decoder.
	var batch kmsg.RecordBatch
	require.NoError(t, batch.ReadFrom(got.Topics[0].Partitions[0].Records))
	assert.Equal(t, int8(2), batch.Magic)
	assert.Equal(t, int64(4242), batch.ProducerID)
	assert.Equal(t, int16(1), batch.ProducerEpoch)
	assert.Equal(t, int32(3), batch.NumRecords)
	assert.Equal(t, int32(2), batch.LastOffsetDelta)
	records := got.Topics[0].Partitions[0].Records
	crc := crc32.Checksum(records[21:], crc32.MakeTable(crc32.Castagnoli))
	assert.Equal(t, uint32(batch.CRC), crc, "CRC32C")

	rest := batch.Records
	for i := range 3 {
		length, n := binary.Varint(rest)
		require.Positive(t, n)
		var rec kmsg.Record
		require.NoError(t, rec.ReadFrom(rest[:n+int(length)]))
		rest = rest[n+int(length):]
		assert.Equal(t, int32(i), rec.OffsetDelta)
		assert.Equal(t, int64(i*10), rec.TimestampDelta64)
		assert.Len(t, rec.Value, 10)
		assert.Len(t, rec.Headers, 2)
		if i == 2 {
			assert.Nil(t, rec.Key)
		} else {
			assert.Equal(t, []byte{'k', byte('0' + i)}, rec.Key)
		}
	}
	assert.Empty(t, rest)
}

func TestGoldenMetadataResponseV12(t *testing.T) {
	resp := metadataResponseCase().at(12).(*MetadataResponse)
	ours := msgEncode(resp, 12)
	theirs := metadataResponseToKmsg(resp)
	theirs.Version = 12
	kmsgBytes := theirs.AppendTo(nil)
	golden := msgReadGolden(t, "metadata_v12_response.hex", kmsgBytes)

	assert.Equal(t, kmsgBytes, ours, "ours differs from kmsg")
	assert.Equal(t, golden, ours, "ours differs from the committed fixture")

	var got MetadataResponse
	require.NoError(t, got.Decode(NewReader(golden), 12))
	assert.Equal(t, resp, &got)
	assert.Nil(t, got.Topics[1].Name, "a null topic name survives at v12")
}
