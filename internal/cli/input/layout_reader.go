package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
	"github.com/kproduce/kproduce/pkg/sender"
)

// layoutError is an input that does not match the format string: the
// record fails.
type layoutError struct{ msg string }

func (e *layoutError) Error() string { return e.msg }

// isLayoutError reports whether err is a layoutError.
func isLayoutError(err error) bool {
	var lerr *layoutError
	return errors.As(err, &lerr)
}

// mismatch returns a layoutError.
func mismatch(format string, args ...any) error {
	return &layoutError{msg: fmt.Sprintf(format, args...)}
}

// errFieldAtEOF: the input ended inside a field that ends at a text.
var errFieldAtEOF = errors.New("the input ends inside a field")

// fieldSpan is a part of a record, as offsets in the reader's arena.
type fieldSpan struct {
	start, end int
	set        bool
}

// headerSpan is one header read by %h.
type headerSpan struct{ key, value fieldSpan }

// layoutReader reads records as a format string says. The parts of a
// record are gathered in one arena, reused, never more than
// Config.MaxRecordBytes of them: a larger record is read to its end and
// fails.
type layoutReader struct {
	source    string
	br        *bufio.Reader
	steps     []step
	term      []byte
	limit     int64
	skipEmpty bool
	// timeLayout reads %d{go#...#}.
	timeLayout string
	shaper     recordShaper
	number     int64
	tap        io.Writer // sees the bytes consumed; nil: none
	readAt     time.Time
	eof        bool
	broken     error // set after a failed record that cannot be skipped
	// skipPending: the last record was cut short at the limit; the rest
	// of it is skipped before the next one is read.
	skipPending bool

	// The record being read.
	arena   []byte
	used    int64 // bytes of input read for it
	started bool  // some of it was read
	tooBig  bool
	// decodeErr is the first field of the record that did not decode.
	decodeErr error
	fields    [4]fieldSpan // topic, key, value, timestamp text
	nums      [partIgnored]int64
	numSet    [partIgnored]bool
	hdrs      []headerSpan
	headers   []protocol.Header
}

// newLayoutReader returns a reader of cfg.Layout over r.
func newLayoutReader(cfg *Config, source string, r io.Reader, bufSize int) *layoutReader {
	longest, timeLayout := maxDigits+1, ""
	var walk func([]step)
	walk = func(steps []step) {
		for _, st := range steps {
			longest = max(longest, len(st.text))
			if st.goLayout != "" {
				timeLayout = st.goLayout
			}
			walk(st.sub)
		}
	}
	walk(cfg.Layout.steps)
	return &layoutReader{
		source: source, br: bufio.NewReaderSize(r, max(bufSize, 2*longest, minSplitBuffer)),
		steps: cfg.Layout.steps, term: cfg.Layout.terminator, limit: cfg.MaxRecordBytes,
		skipEmpty: cfg.SkipEmpty, timeLayout: timeLayout, shaper: newRecordShaper(cfg),
	}
}

// Next reads the next record.
func (l *layoutReader) Next(rec *Record) error {
	if l.skipPending {
		l.skipPending = false
		l.skipBadRecord(errCrossed)
	}
	if l.broken != nil {
		return l.broken
	}
	for {
		l.reset()
		err := l.readSteps(l.steps, nil)
		if !l.started && (errors.Is(err, io.EOF) || l.drained()) {
			return io.EOF
		}
		if !l.started && err == nil {
			l.broken = fmt.Errorf("%w: the format string reads no input", ErrBadRecord)
			return l.broken
		}
		if err != nil && !isLayoutError(err) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, errCrossed) {
			return err // the source could not be read
		}
		l.number++
		*rec = Record{Record: sender.Record{Topic: l.shaper.topic, Partition: l.shaper.partition}, Source: l.source, Number: l.number, ReadAt: l.readAt}
		switch {
		case errors.Is(err, errCrossed):
			rec.Err = l.crossedError()
			l.skipPending = true // by the next call: this one reports at once
			return nil
		case errors.Is(err, io.ErrUnexpectedEOF):
			rec.Err = fmt.Errorf("%w: the input ends inside the record", ErrBadRecord)
			l.consume(l.br.Buffered()) // the end of the input: the rest belongs to this record
			l.eof = true
			return nil
		case err != nil:
			rec.Err = fmt.Errorf("%w: %w", ErrBadRecord, err)
			l.skipBadRecord(err)
			return nil
		case l.tooBig:
			rec.Err = tooLarge(l.used, l.limit)
			return nil
		case l.decodeErr != nil:
			rec.Err = fmt.Errorf("%w: %w", ErrBadRecord, l.decodeErr)
			return nil
		}
		if l.skipEmpty && l.fieldLen(partKey) == 0 && l.fieldLen(partValue) == 0 {
			continue
		}
		l.build(rec)
		return nil
	}
}

// drained reports whether the whole input was read.
func (l *layoutReader) drained() bool { return l.eof && l.br.Buffered() == 0 }

// reset starts a record.
func (l *layoutReader) reset() {
	l.arena, l.used, l.started, l.tooBig, l.decodeErr = l.arena[:0], 0, false, false, nil
	l.fields = [4]fieldSpan{}
	l.numSet = [partIgnored]bool{}
	l.hdrs = l.hdrs[:0]
}

// skipBadRecord moves past a record that did not match: to after the
// next terminator when the layout has one, unless err came after it;
// without one, nothing more can be read.
func (l *layoutReader) skipBadRecord(err error) {
	if errors.Is(err, io.ErrUnexpectedEOF) || l.drained() {
		return
	}
	if l.term == nil {
		l.broken = fmt.Errorf("%w after record %d: the format string ends with no text to resume reading at", ErrBadRecord, l.number)
		return
	}
	for {
		save := l.limit
		l.limit = -1 // keep nothing
		_, err := l.readUntil(l.term)
		l.limit = save
		if err == nil || errors.Is(err, errFieldAtEOF) || errors.Is(err, io.EOF) {
			return
		}
		if _, ok := err.(*layoutError); !ok {
			l.broken = err
			return
		}
	}
}

// ErrBadRecord is wrapped by the error of a record that does not match
// the format string.
var ErrBadRecord = errors.New("record does not match the format string")

// readSteps reads one level of a layout: the record's (hdr nil) or one
// header's.
func (l *layoutReader) readSteps(steps []step, hdr *headerSpan) error {
	var sizes [3]int64
	for i, st := range steps {
		last := hdr == nil && i == len(steps)-1
		var err error
		switch st.kind {
		case stepText:
			err = l.readText(st.text)
		case stepNumber:
			err = l.readStepNumber(st, hdr, &sizes)
		case stepField:
			err = l.readField(st, hdr, sizes, last)
		case stepHeaders:
			err = l.readHeaders(st.sub)
		}
		if err != nil {
			if errors.Is(err, io.EOF) && l.started {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// readStepNumber reads a number into its part (a header's sizes into
// sizes).
func (l *layoutReader) readStepNumber(st step, hdr *headerSpan, sizes *[3]int64) error {
	n, err := l.readNumber(st.num, st.part == partPartition || st.part == partTimestamp || st.part == partIgnored)
	if err != nil {
		return err
	}
	switch {
	case st.part >= partTopicSize && st.part <= partValueSize:
		if n < 0 {
			return mismatch("%s: negative size %d", partVerb(st.part), n)
		}
		sizes[st.part-partTopicSize] = n
	case st.part < partIgnored:
		l.nums[st.part], l.numSet[st.part] = n, true
	}
	return nil
}

// readField reads a topic, key, value or timestamp text.
func (l *layoutReader) readField(st step, hdr *headerSpan, sizes [3]int64, last bool) error {
	var sp fieldSpan
	var err error
	switch {
	case st.sized:
		sp, err = l.readN(sizes[st.part])
	case st.text != nil:
		sp, err = l.readUntil(st.text)
		if errors.Is(err, errFieldAtEOF) && last {
			err = nil // the last record needs no terminator
		}
	default:
		sp, err = l.readRest()
	}
	if err != nil {
		if errors.Is(err, errFieldAtEOF) {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	sp.set = true
	switch {
	case hdr != nil && st.part == partKey:
		hdr.key = sp
	case hdr != nil:
		hdr.value = sp
	case st.part == partTimestamp:
		l.fields[3] = sp
	default:
		l.fields[st.part] = sp
	}
	if st.decode != "" {
		if err := l.decodeField(st, hdr); err != nil && l.decodeErr == nil {
			l.decodeErr = err // the record is read to its end first
		}
	}
	return nil
}

// readHeaders reads the %H headers, each by the header layout.
func (l *layoutReader) readHeaders(sub []step) error {
	count := l.nums[partHeaderCount]
	for i := int64(0); i < count; i++ {
		var h headerSpan
		before := l.used
		if err := l.readSteps(sub, &h); err != nil {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		if l.used == before {
			return mismatch("the header layout read nothing")
		}
		if !l.tooBig {
			l.hdrs = append(l.hdrs, h)
		}
	}
	return nil
}

// fieldLen is the length of a record part read, 0 when not read.
func (l *layoutReader) fieldLen(p part) int { return l.fields[p].end - l.fields[p].start }

// bytesOf returns a fieldSpan's bytes, never nil.
func (l *layoutReader) bytesOf(sp fieldSpan) []byte {
	if sp.start == sp.end {
		return l.shaper.empty
	}
	return l.arena[sp.start:sp.end:sp.end]
}

// build fills rec from the parts read.
func (l *layoutReader) build(rec *Record) {
	if sp := l.fields[partTopic]; sp.set {
		rec.Topic = l.shaper.topicOf(string(l.bytesOf(sp)))
	}
	var key []byte
	if sp := l.fields[partKey]; sp.set {
		key = l.bytesOf(sp)
	}
	l.shaper.shape(rec, key, l.fields[partKey].set, l.bytesOf(l.fields[partValue]))
	rec.Headers = l.shaper.headers
	if len(l.hdrs) > 0 {
		l.headers = l.headers[:0]
		for _, h := range l.hdrs {
			v := l.bytesOf(h.value)
			if l.shaper.nullEnabled && bytes.Equal(v, l.shaper.nullMarker) {
				v = nil
			}
			l.headers = append(l.headers, protocol.Header{Key: string(l.bytesOf(h.key)), Value: v})
		}
		rec.Headers = append(l.headers, l.shaper.headers...)
	}
	if l.numSet[partPartition] {
		p := l.nums[partPartition]
		if p < -1 || p > 1<<31-1 {
			rec.Err = fmt.Errorf("%w: partition %d out of range", ErrBadRecord, p)
			return
		}
		if p >= 0 { // -1: the default partition
			rec.Partition = int32(p)
		}
	}
	if l.numSet[partTimestamp] {
		rec.Timestamp = time.UnixMilli(l.nums[partTimestamp])
	}
	if sp := l.fields[3]; sp.set {
		l.buildTime(rec, sp)
	}
}
