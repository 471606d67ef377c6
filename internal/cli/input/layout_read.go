package input

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/kproduce/kproduce/internal/escape"
)

// keep adds bytes of the record to the arena while the record is within
// the limit; a record over it is read on but not kept.
func (l *layoutReader) keep(b []byte) {
	l.started = l.started || len(b) > 0
	l.used += int64(len(b))
	if l.used > l.limit {
		l.tooBig = true
		return
	}
	l.arena = append(l.arena, b...)
}

// fill reads once more from the source; at its end it sets eof.
func (l *layoutReader) fill() error {
	_, err := l.br.Peek(l.br.Buffered() + 1)
	l.readAt = time.Now()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, io.EOF):
		l.eof = true
		return nil
	}
	return err
}

// peek returns the next n bytes, reading as needed; fewer at the end of
// the input, with io.EOF.
func (l *layoutReader) peek(n int) ([]byte, error) {
	for l.br.Buffered() < n && !l.eof {
		if err := l.fill(); err != nil {
			return nil, err
		}
	}
	b, _ := l.br.Peek(min(n, l.br.Buffered()))
	if len(b) < n {
		return b, io.EOF
	}
	return b, nil
}

// readText reads text the layout holds.
func (l *layoutReader) readText(want []byte) error {
	b, err := l.peek(len(want))
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if len(b) == 0 && errors.Is(err, io.EOF) {
		return io.EOF
	}
	if !bytes.Equal(b, want) {
		return mismatch("expected %s, read %s", escape.QuoteClipped(string(want)), escape.QuoteClipped(string(b)))
	}
	l.discard(len(want))
	return nil
}

// consume drops the next n buffered bytes, showing them to the tap first:
// every byte the reader consumes goes through it.
func (l *layoutReader) consume(n int) {
	if l.tap != nil {
		b, _ := l.br.Peek(n) // buffered: no read
		_, _ = l.tap.Write(b)
	}
	_, _ = l.br.Discard(n)
}

// discard consumes n buffered bytes of the record without keeping them.
func (l *layoutReader) discard(n int) {
	l.consume(n) // the bytes are buffered
	l.used += int64(n)
	l.started = l.started || n > 0
}

// readUntil reads a field up to delim, which it consumes. At the end of
// the input it returns the field with errFieldAtEOF (io.EOF when nothing
// of the record was read).
func (l *layoutReader) readUntil(delim []byte) (fieldSpan, error) {
	sp := fieldSpan{start: len(l.arena)}
	d := len(delim)
	scanned := 0
	for {
		buf, _ := l.br.Peek(l.br.Buffered())
		from := max(0, scanned-(d-1))
		if i := bytes.Index(buf[from:], delim); i >= 0 {
			l.keep(buf[:from+i])
			sp.end = len(l.arena)
			l.consume(from + i)
			l.discard(d)
			return sp, nil
		}
		if l.eof {
			if len(buf) == 0 && !l.started {
				return sp, io.EOF
			}
			l.keep(buf)
			l.consume(len(buf))
			sp.end = len(l.arena)
			return sp, errFieldAtEOF
		}
		// No delimiter in buf: all but a possible delimiter prefix is the
		// field's, moved out when the buffer is full; a record that
		// crosses the limit then fails at once.
		if move := len(buf) - (d - 1); move > 0 && len(buf) == l.br.Size() {
			l.keep(buf[:move])
			l.consume(move)
			buf = buf[move:]
			if l.crossed() {
				return sp, errCrossed
			}
		}
		scanned = len(buf)
		if err := l.fill(); err != nil {
			return sp, err
		}
	}
}

// readN reads a field of n bytes.
func (l *layoutReader) readN(n int64) (fieldSpan, error) {
	sp := fieldSpan{start: len(l.arena)}
	for n > 0 {
		if l.br.Buffered() == 0 {
			if l.eof {
				return sp, io.ErrUnexpectedEOF
			}
			if err := l.fill(); err != nil {
				return sp, err
			}
			continue
		}
		buf, _ := l.br.Peek(int(min(int64(l.br.Buffered()), n)))
		l.keep(buf)
		l.consume(len(buf))
		n -= int64(len(buf))
	}
	sp.end = len(l.arena)
	return sp, nil
}

// readRest reads a field to the end of the input.
func (l *layoutReader) readRest() (fieldSpan, error) {
	sp := fieldSpan{start: len(l.arena)}
	for {
		buf, _ := l.br.Peek(l.br.Buffered())
		l.keep(buf)
		l.consume(len(buf))
		if l.crossed() {
			return sp, errCrossed
		}
		if l.eof {
			sp.end = len(l.arena)
			return sp, nil
		}
		if err := l.fill(); err != nil {
			return sp, err
		}
	}
}

// readNumber reads a number as f says; signed allows a leading '-' in
// ASCII.
func (l *layoutReader) readNumber(f numFormat, signed bool) (int64, error) {
	switch f.kind {
	case "fixed":
		return f.fixed, nil
	case "ascii", "hex":
		return l.readDigits(f.kind == "hex", signed)
	case "bool":
		if b, _ := l.peek(4); string(b) == "true" {
			l.discard(4)
			return 1, nil
		}
		if b, _ := l.peek(5); string(b) == "false" {
			l.discard(5)
			return 0, nil
		}
		return 0, mismatch("expected true or false")
	}
	b, err := l.peek(f.width)
	if err != nil {
		if len(b) == 0 && errors.Is(err, io.EOF) {
			return 0, io.EOF
		}
		return 0, io.ErrUnexpectedEOF
	}
	n := len(b)
	var v uint64
	switch f.kind {
	case "hexN":
		if v, err = strconv.ParseUint(string(b), 16, 64); err != nil {
			return 0, mismatch("expected %d hex digits, read %q", n, b)
		}
	case "big":
		var full [8]byte
		copy(full[8-n:], b)
		v = binary.BigEndian.Uint64(full[:])
	case "little":
		var full [8]byte
		copy(full[:], b)
		v = binary.LittleEndian.Uint64(full[:])
	}
	l.discard(n)
	return int64(v), nil
}

// maxDigits bounds an ASCII or hex number.
const maxDigits = 20

// readDigits reads decimal (or hex) digits up to the first other byte.
func (l *layoutReader) readDigits(isHex, signed bool) (int64, error) {
	b, err := l.peek(maxDigits + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	if len(b) == 0 {
		return 0, io.EOF
	}
	i := 0
	if signed && !isHex && b[0] == '-' {
		i = 1
	}
	for i < len(b) && (('0' <= b[i] && b[i] <= '9') || (isHex && isHexDigit(b[i]))) {
		i++
	}
	text := string(b[:i])
	base := map[bool]int{true: 16, false: 10}[isHex]
	v, perr := strconv.ParseInt(text, base, 64)
	if perr != nil {
		return 0, mismatch("expected a number, read %q", b[:min(len(b), 12)])
	}
	l.discard(i)
	return v, nil
}

// isHexDigit reports whether c is a hex digit.
func isHexDigit(c byte) bool {
	_, ok := escape.HexValue(c)
	return ok
}

// decodeField decodes a field read as {hex}, {base64} or {base64raw}.
func (l *layoutReader) decodeField(st step, hdr *headerSpan) error {
	if l.tooBig {
		return nil
	}
	sp := &l.fields[st.part]
	if hdr != nil {
		sp = &hdr.value
		if st.part == partKey {
			sp = &hdr.key
		}
	}
	src := l.arena[sp.start:sp.end]
	start := len(l.arena)
	var out []byte
	var err error
	switch st.decode {
	case "hex":
		out, err = hex.AppendDecode(l.arena, src)
	case "base64":
		out, err = base64.StdEncoding.AppendDecode(l.arena, src)
	case "base64raw":
		out, err = base64.RawStdEncoding.AppendDecode(l.arena, src)
	}
	if err != nil {
		return mismatch("%s{%s}: %v", partVerb(st.part), st.decode, err)
	}
	l.arena = out
	sp.start, sp.end = start, len(out)
	return nil
}

// buildTime parses a %d{go#...#} timestamp.
func (l *layoutReader) buildTime(rec *Record, sp fieldSpan) {
	t, err := time.Parse(l.timeLayout, string(l.bytesOf(sp)))
	if err != nil {
		rec.Err = errors.Join(ErrBadRecord, err)
		return
	}
	rec.Timestamp = t
}
