package protocol

import (
	"encoding/binary"
	"fmt"
)

// VersionChecker is implemented by requests whose content needs a minimum
// version of their API beyond the version floor (Kafka's
// AbstractRequest.Builder checks at build time). The network client calls
// CheckVersion with the version it chose before writing anything; an error
// fails the request unsent.
type VersionChecker interface {
	// CheckVersion returns nil when the request can be sent at version,
	// otherwise an error saying what needs a newer version.
	CheckVersion(version int16) error
}

// MinProduceVersionZstd is the first Produce version that may carry zstd
// batches (KIP-110, Kafka 2.1); brokers refuse them below it, and Kafka's
// Java client does not send them.
const MinProduceVersionZstd = 7

// CheckVersion refuses zstd-compressed batches below Produce v7, as the Java
// client does (UNSUPPORTED_COMPRESSION_TYPE): a broker older than Kafka 2.1
// cannot store them, and one that does not check would store batches its
// consumers cannot read. The error wraps ErrUnsupportedCompressionType.
func (m *ProduceRequest) CheckVersion(version int16) error {
	if version >= MinProduceVersionZstd {
		return nil
	}
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			if batchesUse(p.Records, CodecZstd) {
				return fmt.Errorf("%w: %s/%d: zstd needs Produce v%d (Kafka 2.1 or newer), the broker speaks at most v%d:"+
					" choose another compression or upgrade the broker", ErrUnsupportedCompressionType,
					t.Name, p.Index, MinProduceVersionZstd, version)
			}
		}
	}
	return nil
}

// batchesUse reports whether any record batch v2 in records (batches back
// to back) is compressed with codec. A truncated batch ends the scan.
func batchesUse(records []byte, codec Codec) bool {
	for len(records) >= RecordBatchHeaderSize {
		attrs := int16(binary.BigEndian.Uint16(records[offAttributes:]))
		if Codec(attrs&AttrCompressionMask) == codec {
			return true
		}
		n := int64(int32(binary.BigEndian.Uint32(records[offBatchLength:]))) + batchLengthOverhead
		if n <= batchLengthOverhead || n > int64(len(records)) {
			return false
		}
		records = records[n:]
	}
	return false
}
