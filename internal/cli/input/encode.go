package input

import (
	"bytes"
	"fmt"
)

// Encoder turns a key's or value's text into the bytes produced: a
// Schema Registry serializer reading JSON (see internal/schema). Encode
// appends to dst and returns it; on error it returns a value's own error
// (the path of the field and what is wrong). An Encoder is used by one
// reader at a time.
type Encoder interface {
	Encode(dst, text []byte) ([]byte, error)
}

// encodingReader encodes the keys and values of the records another
// reader reads (Config.KeyEncoder, Config.ValueEncoder). A null key or
// value, and one whose text is JSON's null, stays null (a tombstone). A
// record whose key or value does not encode fails on its own (rec.Err).
type encodingReader struct {
	inner      Reader
	key, value Encoder
	// keyBuf and valueBuf hold the encodings of the record Next returned.
	keyBuf, valueBuf []byte
}

// withEncoders wraps r when cfg has encoders.
func withEncoders(cfg *Config, r Reader) Reader {
	if cfg.KeyEncoder == nil && cfg.ValueEncoder == nil {
		return r
	}
	return &encodingReader{inner: r, key: cfg.KeyEncoder, value: cfg.ValueEncoder}
}

// Next reads the next record and encodes it into the reader's buffers.
func (e *encodingReader) Next(rec *Record) error {
	if err := e.inner.Next(rec); err != nil {
		return err
	}
	if rec.Err != nil {
		return nil
	}
	var err error
	if rec.Key, e.keyBuf, err = encodePart(e.key, rec.Key, e.keyBuf[:0]); err != nil {
		rec.Err = fmt.Errorf("key: %w", err)
		return nil
	}
	if rec.Value, e.valueBuf, err = encodePart(e.value, rec.Value, e.valueBuf[:0]); err != nil {
		rec.Err = fmt.Errorf("value: %w", err)
	}
	return nil
}

// encodePart encodes one key or value into buf; it returns the encoding
// (text itself without an encoder, nil for null) and buf.
func encodePart(enc Encoder, text, buf []byte) (out, grown []byte, err error) {
	if enc == nil || text == nil {
		return text, buf, nil
	}
	if isJSONNull(text) {
		return nil, buf, nil
	}
	buf, err = enc.Encode(buf, text)
	return buf, buf, err
}

// isJSONNull reports whether text is JSON's null, white space around it.
func isJSONNull(text []byte) bool {
	return len(text) >= 4 && len(text) <= 64 && string(bytes.TrimSpace(text)) == "null"
}

// readBuffered reads the records buffered in the inner reader and encodes
// them into the batch's chunks.
func (e *encodingReader) readBuffered(b *Batch, max int) {
	br, ok := e.inner.(batchReader)
	if !ok {
		return
	}
	from := len(b.Records)
	br.readBuffered(b, max)
	for k := from; k < len(b.Records); k++ {
		rec := &b.Records[k]
		if rec.Err != nil {
			continue
		}
		var err error
		if rec.Key, err = b.encode(e.key, rec.Key); err != nil {
			rec.Err = fmt.Errorf("key: %w", err)
			continue
		}
		if rec.Value, err = b.encode(e.value, rec.Value); err != nil {
			rec.Err = fmt.Errorf("value: %w", err)
		}
	}
}

// encode encodes text into the batch's chunks: in place in the current
// chunk when the encoding fits, else in the next chunk (encoded again);
// an encoding larger than a quarter chunk keeps a buffer of its own.
func (b *Batch) encode(enc Encoder, text []byte) ([]byte, error) {
	if enc == nil || text == nil {
		return text, nil
	}
	if isJSONNull(text) {
		return nil, nil
	}
	for tries := 0; ; tries++ {
		if b.chunk == len(b.chunks) {
			b.chunks = append(b.chunks, make([]byte, 0, arenaChunk))
		}
		c := b.chunks[b.chunk]
		room := c[len(c):len(c):cap(c)]
		out, err := enc.Encode(room, text)
		if err != nil {
			return nil, err
		}
		if inPlace(room, out) {
			b.chunks[b.chunk] = c[:len(c)+len(out)]
			return out[:len(out):len(out)], nil
		}
		if tries > 0 || len(out) > arenaChunk/4 {
			return out, nil // its own buffer
		}
		b.chunk++
		if b.chunk < len(b.chunks) {
			b.chunks[b.chunk] = b.chunks[b.chunk][:0]
		}
	}
}

// inPlace reports whether out, appended to the empty slice room, was
// written in room's memory (it fitted).
func inPlace(room, out []byte) bool {
	if len(out) == 0 {
		return true
	}
	return cap(room) > 0 && len(out) <= cap(room) && &out[0] == &room[:1][0]
}
