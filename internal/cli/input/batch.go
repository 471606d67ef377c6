package input

import "github.com/kproduce/kproduce/pkg/protocol"

// arenaChunk is the size of the chunks a Batch copies record bytes into.
const arenaChunk = 64 << 10

// Batch is the records of one ReadBatch: those an input had in its read
// buffer. It is reused from call to call.
type Batch struct {
	// Records are valid until the next ReadBatch or Next on the reader.
	Records []Record

	// Copies of record bytes for readers that parse each record into the
	// same scratch (json): chunks never move once records point into them.
	chunks  [][]byte
	chunk   int // the chunk being filled
	headers []protocol.Header
	empty   []byte // a non-nil empty slice
	// whole is the memory a file reader reads a whole input into, lent
	// to the reader of each input in turn: a run of large files reuses
	// one buffer (the size of the largest) rather than allocating, and
	// zeroing, one per file.
	whole []byte
}

// batchReader is a Reader that can also return records without reading
// its source.
type batchReader interface {
	Reader
	// readBuffered appends to b the records wholly in the read buffer,
	// until b holds max records. It never reads the source, so b's records
	// stay valid.
	readBuffered(b *Batch, max int)
}

// ReadBatch reads the next records of r into b: one as Next does (waiting
// for the source if need be), then those already in r's read buffer, up to
// max (at least 1) in all, never waiting for more input: a record is handed
// on as soon as it was read, as with Next. At the end of the input it
// returns io.EOF with no records; any other error is a read error of the
// source, as Next's.
func ReadBatch(r Reader, b *Batch, max int) error {
	b.reset()
	if f, ok := r.(*fileReader); ok && !f.done {
		f.buf = b.whole
		defer func() { b.whole = f.buf }()
	}
	if err := r.Next(b.slot()); err != nil {
		return err
	}
	b.Records = b.Records[:1]
	if br, ok := r.(batchReader); ok && max > 1 {
		br.readBuffered(b, max)
	}
	return nil
}

// reset empties the batch, keeping its memory. The records are not
// cleared: the readers set every field of a slot they fill.
func (b *Batch) reset() {
	b.Records = b.Records[:0]
	b.chunk = 0
	if len(b.chunks) > 0 {
		b.chunks[0] = b.chunks[0][:0]
	}
	b.headers = b.headers[:0]
}

// slot returns the record after the last one, growing Records' capacity
// without changing its length.
func (b *Batch) slot() *Record {
	if len(b.Records) == cap(b.Records) {
		b.Records = append(b.Records, Record{})[:len(b.Records)]
	}
	return &b.Records[:len(b.Records)+1][len(b.Records)]
}

// keep copies the key, value and headers of rec into the batch, so that
// they outlive the reader's scratch.
func (b *Batch) keep(rec *Record) {
	rec.Key = b.copy(rec.Key)
	rec.Value = b.copy(rec.Value)
	if len(rec.Headers) == 0 {
		return
	}
	if len(b.headers)+len(rec.Headers) > cap(b.headers) {
		// A new array: the records kept so far point into the old one.
		b.headers = make([]protocol.Header, 0, max(2*cap(b.headers), len(rec.Headers), 64))
	}
	start := len(b.headers)
	for _, h := range rec.Headers {
		b.headers = append(b.headers, protocol.Header{Key: h.Key, Value: b.copy(h.Value)})
	}
	rec.Headers = b.headers[start:len(b.headers):len(b.headers)]
}

// copy returns a copy of p in the batch's chunks (nil stays nil, empty
// stays non-nil).
func (b *Batch) copy(p []byte) []byte {
	switch {
	case p == nil:
		return nil
	case len(p) == 0:
		if b.empty == nil {
			b.empty = make([]byte, 0)
		}
		return b.empty
	case len(p) > arenaChunk/4:
		return append([]byte(nil), p...) // large: a buffer of its own
	}
	for {
		if b.chunk == len(b.chunks) {
			b.chunks = append(b.chunks, make([]byte, 0, arenaChunk))
		}
		c := b.chunks[b.chunk]
		if len(c)+len(p) <= cap(c) {
			out := append(c, p...)
			b.chunks[b.chunk] = out
			return out[len(c):len(out):len(out)]
		}
		b.chunk++
		if b.chunk < len(b.chunks) {
			b.chunks[b.chunk] = b.chunks[b.chunk][:0]
		}
	}
}
