package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// inputBufferSize is the read buffer of the lines and json readers: a
// record that fits is returned without being copied. 256 KiB reads as fast
// as 1 MiB (measured on 100-byte lines) and keeps the peak RSS lower.
const inputBufferSize = 256 << 10

// errRecordTooLarge is wrapped by the error of an input record larger than
// --max-record-bytes.
var errRecordTooLarge = errors.New("record too large")

// inputRecord is one record read from an input, with its position.
type inputRecord struct {
	Source    string // file name or "-"
	Number    int64  // 1-based record number in its source (skipped empty records still count)
	Topic     string // "" = the default topic (--topic)
	Partition int32  // -1 = use --partition / partitioner
	Key       []byte // nil = null; valid until the next Next call
	Value     []byte // nil = null; valid until the next Next call
	// Headers are the record's own headers (json) followed by the -H
	// headers; valid until the next Next call.
	Headers   []protocol.Header
	Timestamp int64 // ms; 0 = none given (use ReadAt)
	// ReadAt is when the record's bytes were read from the source (the
	// read that completed it); its timestamp unless one is given.
	ReadAt time.Time
	// Err is non-nil when this record failed while being read (too large,
	// malformed JSON): report it, do not produce it.
	Err error
}

// recordReader reads the records of one input.
type recordReader interface {
	// Next fills rec with the next record. It returns io.EOF at the end of
	// the input; any other error is a read error of the source, after
	// which the reader must not be used. A record that could not be parsed
	// is returned with rec.Err set and a nil error.
	Next(rec *inputRecord) error
}

// newRecordReader returns the reader of opts.Format for the input r named
// source.
func newRecordReader(opts *Options, source string, r io.Reader) (recordReader, error) {
	return newRecordReaderSize(opts, source, r, inputBufferSize)
}

// newRecordReaderSize is newRecordReader with the read buffer size given.
func newRecordReaderSize(opts *Options, source string, r io.Reader, bufSize int) (recordReader, error) {
	switch opts.Format {
	case formatLines:
		return newLinesReader(opts, source, r, bufSize), nil
	case formatJSON:
		return newJSONReader(opts, source, r, bufSize), nil
	case formatFile:
		return newFileReader(opts, source, r), nil
	}
	return nil, usageErrorf("--format %q: %w: want lines, json or file", opts.Format, errBadValue)
}

// namedInput is an opened input.
type namedInput struct {
	Name string    // the file name, "-" for stdin
	R    io.Reader // the data
	c    io.Closer // nil for stdin
}

// Close closes the input (stdin is left open).
func (n namedInput) Close() error {
	if n.c == nil {
		return nil
	}
	return n.c.Close()
}

// openInputs opens every input of opts before anything is produced: the
// files in order, "-" (or no file at all) being stdin. If one cannot be
// opened, the ones already opened are closed and a usage error is returned.
func openInputs(opts *Options, stdin io.Reader) ([]namedInput, error) {
	names := opts.Files
	if len(names) == 0 {
		names = []string{"-"}
	}
	inputs := make([]namedInput, 0, len(names))
	for _, name := range names {
		in, err := openInput(name, stdin)
		if err != nil {
			closeInputs(inputs)
			return nil, usageErrorf("input: %w", err)
		}
		inputs = append(inputs, in)
	}
	return inputs, nil
}

// openInput opens one input and checks that it can be read as a stream. A
// named pipe is only checked: it is opened when first read (see
// fifoInput).
func openInput(name string, stdin io.Reader) (namedInput, error) {
	if name == "-" {
		return namedInput{Name: name, R: stdin}, nil
	}
	if st, err := os.Stat(name); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
		p, err := openFIFO(name)
		if err != nil {
			return namedInput{}, err
		}
		return namedInput{Name: name, R: p, c: p}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return namedInput{}, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return namedInput{}, err
	}
	if st.IsDir() {
		f.Close()
		return namedInput{}, fmt.Errorf("%s is a directory", name)
	}
	return namedInput{Name: name, R: f, c: f}, nil
}

// closeInputs closes every input.
func closeInputs(inputs []namedInput) {
	for _, in := range inputs {
		_ = in.Close()
	}
}

// recordShaper applies the options every format shares: the default key
// (-k), --null and the -H headers.
type recordShaper struct {
	key         []byte
	nullMarker  []byte
	nullEnabled bool
	headers     []protocol.Header
	empty       []byte // a non-nil empty value
}

// newRecordShaper returns the shaper of opts.
func newRecordShaper(opts *Options) recordShaper {
	return recordShaper{
		key:         opts.Key,
		nullMarker:  opts.NullMarker,
		nullEnabled: opts.NullEnabled,
		headers:     opts.Headers,
		empty:       make([]byte, 0),
	}
}

// shape sets rec's key and value. hasKey says whether the record has a key
// of its own (else -k applies); --null applies to its own key and to the
// value.
func (s *recordShaper) shape(rec *inputRecord, key []byte, hasKey bool, value []byte) {
	if hasKey {
		rec.Key = s.nullify(key)
	} else {
		rec.Key = s.key
	}
	rec.Value = s.nullify(value)
}

// nullify returns nil for the --null marker, and a non-nil slice for an
// empty value.
func (s *recordShaper) nullify(b []byte) []byte {
	if b == nil {
		return nil
	}
	if s.nullEnabled && bytes.Equal(b, s.nullMarker) {
		return nil
	}
	if len(b) == 0 {
		return s.empty
	}
	return b
}

// tooLarge is the error of a record of size bytes over the limit.
func tooLarge(size, limit int64) error {
	return fmt.Errorf("%w: %d bytes, more than --max-record-bytes %d", errRecordTooLarge, size, limit)
}
