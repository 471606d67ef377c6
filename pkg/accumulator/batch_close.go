package accumulator

import (
	"errors"
	"fmt"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// errReleased is returned by Close on a batch whose memory was released.
var errReleased = errors.New("batch memory already released")

// Close finishes the batch for sending: it writes the header (base offset
// 0, leader epoch -1, codec and transactional bits, last offset delta,
// base/max timestamp, producer state, record count) and the CRC, after the
// records were compressed, by a compression worker or, without workers,
// here with comp (nil when no codec is configured). It is idempotent. The
// sender calls it after Drain, outside the accumulator's lock.
//
// Compressed records replace the uncompressed ones in the batch's buffer
// (see compressRecords), so a compressed batch holds only its compressed
// bytes while it waits for its answer, as in Kafka's producer.
func (b *Batch) Close(comp *protocol.Compressor) error {
	if b.encoded != nil {
		return nil
	}
	if b.compressErr != nil {
		return b.compressErr
	}
	h := b.header()
	codec := b.acc.cfg.Codec
	if codec == protocol.CodecNone {
		if b.buf == nil {
			return fmt.Errorf("close batch for %s/%d: %w", b.tp.Topic, b.tp.Partition, errReleased)
		}
		protocol.PutBatchHeader(b.buf, &h)
		b.encoded = b.buf
		return nil
	}
	if b.compressed == nil {
		if err := b.compressHere(comp); err != nil {
			return err
		}
	}
	protocol.PutBatchHeader(b.compressed, &h)
	b.encoded = b.compressed
	return nil
}

// compressHere compresses the records on the caller's goroutine (no
// workers).
func (b *Batch) compressHere(comp *protocol.Compressor) error {
	if b.buf == nil {
		return fmt.Errorf("close batch for %s/%d: %w", b.tp.Topic, b.tp.Partition, errReleased)
	}
	if comp == nil {
		return fmt.Errorf("close batch for %s/%d: %s needs a compressor", b.tp.Topic, b.tp.Partition, b.acc.cfg.Codec)
	}
	compressed, release, err := b.compressRecords(comp)
	if err != nil {
		return err
	}
	b.compressed = compressed
	if release {
		b.buf = nil
	}
	return nil
}
