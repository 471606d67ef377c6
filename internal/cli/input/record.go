package input

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
	"github.com/kproduce/kproduce/pkg/sender"
)

// inputBufferSize is the read buffer of the lines and json readers: a
// record that fits is returned without being copied. 256 KiB reads as fast
// as 1 MiB (measured on 100-byte lines) and keeps the peak RSS lower.
const inputBufferSize = 256 << 10

// The input formats.
const (
	FormatLines = "lines" // records split at a delimiter, an optional key split off each
	FormatJSON  = "json"  // one JSON object per record (kcat -J's output among them)
	FormatFile  = "file"  // each input is one record
	// FormatLayout reads records as an rpk-style format string says
	// (Config.Layout).
	FormatLayout = "layout"
)

// Formats are the input formats, in the order the help lists them.
func Formats() []string { return []string{FormatLines, FormatJSON, FormatFile} }

// ErrUnknownFormat is wrapped by the error of NewReader for a format it
// does not know.
var ErrUnknownFormat = errors.New("unknown input format")

// Config says how input is split into records and what every record
// gets. The zero value is not usable: Format and Delimiter are needed.
type Config struct {
	// Format is FormatLines, FormatJSON or FormatFile.
	Format string
	// Delimiter separates records in the lines and json formats (never empty).
	Delimiter []byte
	// KeyDelimiter splits a line into key and value; nil means no split.
	KeyDelimiter []byte
	// HeaderDelimiter ends the headers that start each line, before its
	// key; nil means lines hold no headers. HeaderSeparator separates two
	// headers and HeaderKeySeparator a header's key from its value (both
	// needed with HeaderDelimiter).
	HeaderDelimiter, HeaderSeparator, HeaderKeySeparator []byte
	// RequireDelimiters fails a line without its header or key delimiter,
	// or a header without its key separator (the console producer's
	// LineMessageReader without ignore.error); otherwise such a line has
	// no headers or key, and such a header a null value.
	RequireDelimiters bool
	// Layout is the format string of FormatLayout.
	Layout *Layout
	// Topic is the topic of every record that names none ("": such a
	// record has none, and fails); with ForceTopic (-t given on the
	// command line), of every record, whatever topic it names, so that
	// copying a topic (kcat -J | kproduce -t dst) never writes into the
	// source.
	Topic      string
	ForceTopic bool
	// OnTopicOverride, when set, is called with each topic a record names
	// that ForceTopic overrides, and the topic it goes to instead (to warn).
	OnTopicOverride func(own, topic string)
	// Partition is the partition of every record that names none
	// (sender.AnyPartition: the partitioner chooses).
	Partition int32
	// Key is the key of every record without a key of its own; nil: none.
	Key []byte
	// Headers are added to every record, after the record's own headers.
	Headers []protocol.Header
	// NullMarker is the key or value sent as null when NullEnabled.
	NullMarker []byte
	// NullEnabled says whether a null marker was given (it may be empty).
	NullEnabled bool
	// EmptyAsNull sends an empty key or value as null (kcat -Z, rpk
	// --tombstone).
	EmptyAsNull bool
	// SkipEmpty skips empty input records (they still use a record number).
	SkipEmpty bool
	// MaxRecordBytes is the largest raw input record accepted.
	MaxRecordBytes int64
	// KeyEncoder and ValueEncoder, when set, turn every record's key and
	// value (a JSON text each) into the bytes produced: a schema's
	// encoding (a null key or value, or JSON's null, stays null).
	KeyEncoder, ValueEncoder Encoder
}

// CanNameTopics reports whether records of this format may name their own
// topic (json's "topic", a format string's %t).
func (c *Config) CanNameTopics() bool {
	return c.Format == FormatJSON || (c.Format == FormatLayout && c.Layout != nil && c.Layout.HasTopic())
}

// ErrMissingDelimiter is wrapped by the error of a line without its key
// or header delimiter, or of a header without its key separator, when
// Config.RequireDelimiters is set.
var ErrMissingDelimiter = errors.New("missing delimiter")

// ErrBadHeader is wrapped by the error of a header a line cannot hold.
var ErrBadHeader = errors.New("bad header")

// ErrRecordTooLarge is wrapped by the error of an input record larger than
// --max-record-bytes.
var ErrRecordTooLarge = errors.New("record too large")

// Record is one record read from an input: the record to produce and
// where it was read.
type Record struct {
	// Record is what is produced: its Topic and Partition as Config
	// says (its own, else the default), its Timestamp the zero time
	// unless the record gives one (then the producer stamps it). Key, Value and Headers (the record's
	// own, json, followed by the -H headers) are valid until the next Next
	// call; nil is null.
	sender.Record
	Source string // file name or "-"
	Number int64  // 1-based record number in its source (skipped empty records still count)
	// ReadAt is when the record's bytes were read from the source (the
	// read that completed it).
	ReadAt time.Time
	// Err is non-nil when this record failed while being read (too large,
	// malformed JSON): report it, do not produce it.
	Err error
}

// Reader reads the records of one input.
type Reader interface {
	// Next fills rec with the next record. It returns io.EOF at the end of
	// the input; any other error is a read error of the source, after
	// which the reader must not be used. A record that could not be parsed
	// is returned with rec.Err set and a nil error.
	Next(rec *Record) error
}

// NewReader returns the reader of cfg.Format for the input r named source.
func NewReader(cfg *Config, source string, r io.Reader) (Reader, error) {
	return newReaderSize(cfg, source, r, inputBufferSize, Start{})
}

// Start says where a reader begins and who sees the bytes it consumes.
type Start struct {
	// After is the number of the record before the first one read: r is
	// positioned right after it (its delimiter included). 0: the start of
	// the source.
	After int64
	// Tap, when set, receives every byte the reader consumes, in order
	// (records, delimiters, skipped records), when it consumes them: after
	// Next returns a record, Tap has seen exactly the bytes up to the end
	// of that record. Tap must not fail.
	Tap io.Writer
	// Size, when above 0, is the number of bytes left to read in the
	// source as far as is known (Input.Size): the reader's buffers are
	// then made no larger than the source needs, so that a run of many
	// small files does not allocate a full read buffer for each. A source
	// that holds more is still read to its end.
	Size int64
}

// NewReaderAt is NewReader for a source read from start (a load resumed
// after record start.After, its consumed bytes tapped).
func NewReaderAt(cfg *Config, source string, r io.Reader, start Start) (Reader, error) {
	return newReaderSize(cfg, source, r, inputBufferSize, start)
}

// newReaderSize is NewReaderAt with the read buffer size given, the
// records' keys and values encoded when cfg says so.
func newReaderSize(cfg *Config, source string, r io.Reader, bufSize int, start Start) (Reader, error) {
	rd, err := newFormatReader(cfg, source, r, bufSize, start)
	if err != nil {
		return nil, err
	}
	return withEncoders(cfg, rd), nil
}

// newFormatReader returns the reader of cfg.Format.
func newFormatReader(cfg *Config, source string, r io.Reader, bufSize int, start Start) (Reader, error) {
	if start.Size > 0 && start.Size < int64(bufSize) {
		bufSize = max(int(start.Size)+1, minFittedBuffer)
	}
	switch cfg.Format {
	case FormatLines:
		l := newLinesReader(cfg, source, r, bufSize)
		l.number, l.split.tap = start.After, start.Tap
		return l, nil
	case FormatJSON:
		j := newJSONReader(cfg, source, r, bufSize)
		j.number, j.split.tap = start.After, start.Tap
		return j, nil
	case FormatFile:
		f := newFileReader(cfg, source, r)
		f.done, f.tap, f.size = start.After >= 1, start.Tap, start.Size
		return f, nil
	case FormatLayout:
		if cfg.Layout == nil {
			return nil, fmt.Errorf("%w: no format string", ErrUnknownFormat)
		}
		l := newLayoutReader(cfg, source, r, bufSize)
		l.number, l.tap = start.After, start.Tap
		return l, nil
	}
	return nil, fmt.Errorf("--format %q: %w: want lines, json or file", cfg.Format, ErrUnknownFormat)
}

// tooLarge is the error of a record of size bytes over the limit.
func tooLarge(size, limit int64) error {
	return fmt.Errorf("%w: %d bytes, more than --max-record-bytes %d", ErrRecordTooLarge, size, limit)
}
