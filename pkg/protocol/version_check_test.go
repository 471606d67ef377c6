package protocol

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encodedBatch encodes a one-record batch compressed with codec.
func encodedBatch(t *testing.T, codec Codec) []byte {
	t.Helper()
	b := &RecordBatch{Attributes: int16(codec), BaseSequence: -1, ProducerID: -1, ProducerEpoch: -1,
		Records: []Record{{Value: []byte("v")}}}
	out, err := b.AppendTo(nil, nil)
	require.NoError(t, err)
	return out
}

func TestProduceRequestCheckVersionZstd(t *testing.T) {
	zstd := encodedBatch(t, CodecZstd)
	lz4 := encodedBatch(t, CodecLz4)
	tests := []struct {
		name    string
		records []byte
		version int16
		refused bool
	}{
		{"zstd at v6", zstd, 6, true},
		{"zstd at v3", zstd, 3, true},
		{"zstd at v7", zstd, 7, false},
		{"zstd at v11", zstd, 11, false},
		{"lz4 at v3", lz4, 3, false},
		{"zstd behind lz4 at v5", append(append([]byte(nil), lz4...), zstd...), 5, true},
		{"no records", nil, 3, false},
		{"truncated batch", zstd[:20], 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &ProduceRequest{Acks: -1, Topics: []ProduceRequestTopic{
				{Name: "a", Partitions: []ProduceRequestPartition{{Index: 0, Records: lz4}}},
				{Name: "t", Partitions: []ProduceRequestPartition{{Index: 2, Records: tt.records}}},
			}}
			err := req.CheckVersion(tt.version)
			if !tt.refused {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrUnsupportedCompressionType)
			assert.Contains(t, err.Error(), "t/2: zstd needs Produce v7")
			assert.Contains(t, err.Error(), fmt.Sprintf("at most v%d", tt.version))
		})
	}
	var _ VersionChecker = (*ProduceRequest)(nil)
}
