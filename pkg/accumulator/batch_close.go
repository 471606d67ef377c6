package accumulator

import (
	"errors"
	"fmt"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// errReleased is returned by Close on a batch whose memory was released.
var errReleased = errors.New("batch memory already released")

// Close finishes the batch for sending: with a codec it compresses the
// records into a pooled buffer, then it writes the header (base offset 0,
// leader epoch -1, codec and transactional bits, last offset delta,
// base/max timestamp, producer state, record count) and the CRC. It is
// idempotent. The sender calls it after Drain, outside the accumulator's
// lock; comp may be nil when no codec is configured.
//
// The compressed copy is charged to the buffer memory without waiting (the
// sender must not block), so it can overdraw the budget for a moment;
// appenders wait meanwhile. The uncompressed records are then released
// (see releaseRecords), so a compressed batch holds only its compressed
// bytes while it waits for its answer, as in Kafka's producer.
func (b *Batch) Close(comp *protocol.Compressor) error {
	if b.encoded != nil {
		return nil
	}
	if b.buf == nil {
		return fmt.Errorf("close batch for %s/%d: %w", b.tp.Topic, b.tp.Partition, errReleased)
	}
	h := b.header()
	codec := b.acc.cfg.Codec
	if codec == protocol.CodecNone {
		protocol.PutBatchHeader(b.buf, &h)
		b.encoded = b.buf
		return nil
	}
	if comp == nil {
		return fmt.Errorf("close batch for %s/%d: %s needs a compressor", b.tp.Topic, b.tp.Partition, codec)
	}
	records := b.buf[protocol.RecordBatchHeaderSize:]
	// Room for as much as went in and the codec's overhead on data that
	// does not compress: a full batch left that room (see Accumulator.limit),
	// so its compressed copy takes a buffer of the same size class.
	bound := len(b.buf) + protocol.CompressionOverhead(codec, len(records))
	pool := b.acc.pool
	dst := pool.forceAllocate(pool.sizeFor(bound))
	out, err := comp.Compress(codec, dst[:protocol.RecordBatchHeaderSize], records)
	if err != nil {
		pool.release(dst)
		return fmt.Errorf("close batch for %s/%d: compress %d bytes with %s: %w", b.tp.Topic, b.tp.Partition, len(records), codec, err)
	}
	if &out[:1][0] != &dst[:1][0] {
		// The encoder outgrew the buffer and allocated its own.
		pool.release(dst)
		pool.charge(cap(out))
	}
	protocol.PutBatchHeader(out, &h)
	b.compressed = out
	b.encoded = out
	b.releaseRecords()
	return nil
}

// releaseRecords gives the uncompressed records of a compressed batch back
// to the buffer memory, as soon as they are compressed: the reports come
// from the record list, and a split decompresses. They are kept when the
// reports need them (ResultRecords, or timestamps too far apart for the
// record list).
func (b *Batch) releaseRecords() {
	if b.acc.cfg.ResultRecords || b.wideTimestamps {
		return
	}
	buf := b.buf
	b.buf = nil
	b.acc.pool.release(buf)
}
