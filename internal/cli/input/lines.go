package input

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"time"
)

// minSplitBuffer is the smallest read buffer of a splitter (bufio's own
// minimum).
const minSplitBuffer = 16

// splitter cuts a stream into records at a delimiter of one or more bytes.
//
// It scans bytes buffered in a bufio.Reader (Peek, then Discard), so a
// record that fits in the buffer is returned without a copy. A longer
// record is gathered in chunks, then whole in acc, but never more than the
// record size limit: a larger record fails once the limit is crossed and
// the rest of it is thrown away up to its delimiter, so its size costs no
// memory. When the buffer fills without a delimiter, the last
// len(delim)-1 bytes stay buffered, so a delimiter split across two reads
// is still found. The underlying reader is read only when the buffered
// bytes hold no delimiter, and each read returns as soon as the source
// gives any bytes, so a record is returned as soon as its delimiter
// arrives (prompt on pipes).
type splitter struct {
	br    *bufio.Reader
	delim []byte
	limit int64 // the largest record returned
	// chunks hold the part of a record longer than the buffer that left
	// it, within the limit (see hold); acc is such a record whole, reused.
	chunks [][]byte
	spare  []byte // a chunk kept for the next record
	acc    []byte
	eof    bool      // the source has ended
	tap    io.Writer // sees the bytes consumed; nil: none
	// readAt is when the last read from the source returned: the time the
	// records now buffered became available.
	readAt time.Time
	// skipping: the last record was cut short (recErr); the rest of it,
	// up to its delimiter, is skipped before the next one is read.
	skipping bool
	// recErr is the failure of the record last returned when it was cut
	// short (too large, or refused by early), nil otherwise.
	recErr error
	// early, when not nil, looks at the start of a record that outgrows
	// the read buffer (what left it first): an error fails the
	// record at once, and the rest of it is skipped.
	early func(prefix []byte) error
}

// newSplitter returns a splitter reading r through a buffer of bufSize
// bytes (at least twice the delimiter).
func newSplitter(r io.Reader, delim []byte, limit int64, bufSize int) *splitter {
	bufSize = max(bufSize, minSplitBuffer, 2*len(delim))
	return &splitter{br: bufio.NewReaderSize(r, bufSize), delim: delim, limit: limit}
}

// next returns the next record without its delimiter and its size in
// bytes. When size is above the limit, rec is nil: the record was skipped.
// rec is valid until the next call. At the end of the input it returns
// io.EOF; a final record without a delimiter is still a record.
//
// A record is cut short, as soon as the bytes read show it, when it
// crosses the limit (size above the limit, rec nil) or the early check
// refuses it: s.recErr then says why, and the next call first skips the
// rest of it up to its delimiter, holding no more than the read buffer.
func (s *splitter) next() (rec []byte, size int64, err error) {
	if s.skipping {
		if err := s.skipRest(); err != nil {
			return nil, 0, err
		}
	}
	s.release()
	s.recErr = nil
	spanning := false // part of the record left the buffer
	scanned := 0      // buffered bytes already searched for the delimiter
	d := len(s.delim)
	for {
		buf, _ := s.br.Peek(s.br.Buffered()) // cannot fail: the bytes are buffered
		from := max(0, scanned-(d-1))
		if i := bytes.Index(buf[from:], s.delim); i >= 0 {
			end := from + i
			rec = buf[:end]
			size += int64(end)
			if spanning {
				rec = s.whole(size, buf[:end])
			}
			s.discard(buf, end+d)
			if size > s.limit {
				return nil, size, nil
			}
			return rec, size, nil
		}
		scanned = len(buf)
		if s.eof {
			if len(buf) == 0 && !spanning {
				return nil, 0, io.EOF
			}
			size += int64(len(buf))
			rec = buf
			if spanning {
				rec = s.whole(size, buf)
			}
			s.discard(buf, len(buf))
			if size > s.limit {
				return nil, size, nil
			}
			return rec, size, nil
		}
		// No delimiter in buf: the record has at least its bytes but a
		// possible delimiter prefix. Once it is over the limit and left
		// the buffer or fills it (so that one that fits in the buffer is
		// reported with its size when its end is there), it fails.
		if (spanning || len(buf) == s.br.Size()) && size+int64(len(buf)-(d-1)) > s.limit {
			return nil, s.cutShort(buf, size), nil
		}
		if len(buf) == s.br.Size() { // full: move all but a possible delimiter prefix out
			var refused bool
			size, refused = s.spill(buf, size, !spanning)
			if refused {
				return nil, size, nil
			}
			spanning, scanned = true, d-1
		}
		if err := s.fill(); err != nil {
			return nil, 0, err
		}
	}
}

// spill moves all of a full buffer without a delimiter but a possible
// delimiter prefix out, to the chunks of the record (size bytes so far),
// and returns its new size. The first spill of a record (first) shows the
// record's start to the early check: refused says it failed it.
func (s *splitter) spill(buf []byte, size int64, first bool) (int64, bool) {
	move := len(buf) - (len(s.delim) - 1)
	size += int64(move)
	s.hold(size, buf[:move])
	s.discard(buf, move)
	if first && s.early != nil {
		if err := s.early(s.chunks[0]); err != nil {
			s.recErr, s.skipping = err, true
			return size, true
		}
	}
	return size, false
}

// buffered returns the bytes in the read buffer, not yet consumed. They
// stay valid until the source is read again; consume them with discard.
func (s *splitter) buffered() []byte {
	buf, _ := s.br.Peek(s.br.Buffered()) // cannot fail: the bytes are buffered
	return buf
}

// cut splits the front record off buf, bytes from the read buffer: it
// returns the record's end in buf and the length of what follows it
// (the delimiter, none for a last record without one), or ok false when
// buf holds no whole record (next would read the source).
func (s *splitter) cut(buf []byte) (end, skip int, ok bool) {
	if len(s.delim) == 1 {
		end = bytes.IndexByte(buf, s.delim[0])
	} else {
		end = bytes.Index(buf, s.delim)
	}
	switch {
	case end >= 0:
		return end, len(s.delim), true
	case s.eof && len(buf) > 0: // the last record, without a delimiter
		return len(buf), 0, true
	}
	return 0, 0, false
}

// discard consumes the first n bytes of buf, the buffered bytes, showing
// them to the tap first.
func (s *splitter) discard(buf []byte, n int) {
	if s.tap != nil {
		_, _ = s.tap.Write(buf[:n])
	}
	_, _ = s.br.Discard(n)
}

// fill reads once more from the source; at its end it sets eof.
func (s *splitter) fill() error {
	_, err := s.br.Peek(s.br.Buffered() + 1)
	s.readAt = time.Now()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, io.EOF):
		s.eof = true
		return nil
	}
	return err
}

// linesReader reads the lines format: records split at --delimiter,
// headers split off at the first --header-delimiter, then a key at the
// first --key-delimiter.
type linesReader struct {
	source    string
	split     *splitter
	fields    lineFields
	skipEmpty bool
	// plain: the line is the value, neither headers nor a key split off.
	plain  bool
	shaper recordShaper
	number int64
}

// newLinesReader returns a lines reader over r with a read buffer of
// bufSize bytes.
func newLinesReader(cfg *Config, source string, r io.Reader, bufSize int) *linesReader {
	return &linesReader{
		source:    source,
		split:     newSplitter(r, cfg.Delimiter, cfg.MaxRecordBytes, bufSize),
		fields:    newLineFields(cfg),
		skipEmpty: cfg.SkipEmpty,
		plain:     cfg.HeaderDelimiter == nil && cfg.KeyDelimiter == nil,
		shaper:    newRecordShaper(cfg),
	}
}

// Next reads the next record.
func (l *linesReader) Next(rec *Record) error {
	for {
		data, size, err := l.split.next()
		if err != nil {
			return err
		}
		if l.record(rec, data, size) {
			return nil
		}
	}
}

// readBuffered appends to b the records wholly in the read buffer, until b
// holds max records. They alias the buffer, which is not read again
// before b is done with.
func (l *linesReader) readBuffered(b *Batch, max int) {
	if l.split.skipping {
		return // the buffer holds the rest of a record cut short
	}
	buf := l.split.buffered()
	used := 0
	for len(b.Records) < max {
		end, skip, ok := l.split.cut(buf[used:])
		if !ok {
			break
		}
		data, size := buf[used:used+end], int64(end)
		used += end + skip
		if size > l.split.limit {
			data = nil
		}
		if l.record(b.slot(), data, size) {
			b.Records = b.Records[:len(b.Records)+1]
		}
	}
	l.split.discard(buf, used)
}

// record makes rec the next record, of size raw bytes (data, unless it is
// too large); false when the record is an empty one skipped.
func (l *linesReader) record(rec *Record, data []byte, size int64) bool {
	l.number++
	if size == 0 && l.skipEmpty {
		return false
	}
	// Every field, one by one: a struct literal would be built aside and
	// copied whole.
	rec.Source, rec.Number, rec.Topic, rec.Partition = l.source, l.number, l.shaper.topic, l.shaper.partition
	rec.Key, rec.Value, rec.Headers = nil, nil, l.shaper.headers
	rec.Timestamp, rec.ReadAt, rec.Err = time.Time{}, l.split.readAt, nil
	switch {
	case l.split.recErr != nil:
		rec.Err = l.split.recErr
	case size > l.split.limit:
		rec.Err = tooLarge(size, l.split.limit)
	case l.plain: // fields.fill's result, without its calls: the hot path of plain lines
		rec.Key, rec.Value = l.shaper.key, l.shaper.nullify(data)
	default:
		l.fields.fill(rec, data, &l.shaper)
	}
	return true
}
