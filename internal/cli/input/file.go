package input

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/kproduce/kproduce/pkg/sender"
)

// fileReadChunk is how much a file reader asks for per read when the
// size of its input is not known.
const fileReadChunk = 64 << 10

// minFittedBuffer is the smallest read buffer of a source whose size is
// known (Start.Size).
const minFittedBuffer = 512

// fileReader reads the file format: the whole input is one record, byte
// for byte. At most --max-record-bytes+1 bytes are read: a larger input
// fails as one too-large record without being read to its end.
type fileReader struct {
	source    string
	r         io.Reader
	limit     int64
	skipEmpty bool
	shaper    recordShaper
	buf       []byte
	size      int64 // the input's size if known (Start.Size), else 0
	done      bool
	tap       io.Writer // sees the bytes read; nil: none
}

// newFileReader returns a file reader over r.
func newFileReader(cfg *Config, source string, r io.Reader) *fileReader {
	return &fileReader{
		source:    source,
		r:         r,
		limit:     cfg.MaxRecordBytes,
		skipEmpty: cfg.SkipEmpty,
		shaper:    newRecordShaper(cfg),
	}
}

// Next returns the input as one record, then io.EOF.
func (f *fileReader) Next(rec *Record) error {
	if f.done {
		return io.EOF
	}
	f.done = true
	data, err := f.readAll()
	if err != nil {
		return err
	}
	if f.tap != nil {
		_, _ = f.tap.Write(data)
	}
	if len(data) == 0 && f.skipEmpty {
		return io.EOF
	}
	*rec = Record{Record: sender.Record{Topic: f.shaper.topic, Partition: f.shaper.partition, Headers: f.shaper.headers},
		Source: f.source, Number: 1, ReadAt: time.Now()}
	if int64(len(data)) > f.limit {
		rec.Err = fmt.Errorf("%w: more than --max-record-bytes %d", ErrRecordTooLarge, f.limit)
		return nil
	}
	f.shaper.shape(rec, nil, false, data)
	return nil
}

// readAll reads the input up to limit+1 bytes, growing the buffer as data
// arrives (by doubling, never past limit+1 bytes). An input of known size
// is read into a buffer of that size and one byte more, in one read and
// the one that sees its end.
func (f *fileReader) readAll() ([]byte, error) {
	if l, ok := f.r.(*lazyFile); ok {
		if data, ok := l.takeWhole(f.limit); ok {
			return data, nil // a small file read ahead: its bytes as they are
		}
	}
	buf := f.buf[:0]
	first := int64(fileReadChunk)
	if f.size > 0 {
		first = f.size + 1
	}
	for int64(len(buf)) <= f.limit {
		remaining := f.limit - int64(len(buf)) // bytes that may still be read, minus the one that tells "too large"
		if len(buf) == cap(buf) {
			grow := max(cap(buf), int(first))
			if int64(grow) > remaining {
				grow = int(remaining) + 1
			}
			buf = slices.Grow(buf, grow)
		}
		room := cap(buf) - len(buf)
		if int64(room) > remaining {
			room = int(remaining) + 1
		}
		n, err := f.r.Read(buf[len(buf) : len(buf)+room])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	f.buf = buf
	return buf, nil
}
