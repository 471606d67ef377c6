package input

import (
	"bytes"
	"fmt"
)

// cutShort ends a record that crossed the limit: buf, the buffered bytes,
// hold no delimiter, and with the size bytes of the record already read
// they are more than the limit. All of buf but a possible delimiter prefix
// is consumed; the rest of the record is skipped by the next call. It
// returns the record's size so far.
func (s *splitter) cutShort(buf []byte, size int64) int64 {
	move := max(len(buf)-(len(s.delim)-1), 0)
	size += int64(move)
	s.discard(buf, move)
	s.skipping = true
	s.recErr = fmt.Errorf("%w: more than --max-record-bytes %d: no delimiter in its first %d bytes; "+
		"the rest of it is skipped, up to the next delimiter", ErrRecordTooLarge, s.limit, size)
	return size
}

// skipRest consumes the rest of a record cut short, up to and including
// its delimiter (or to the end of the input), holding no more than the
// read buffer.
func (s *splitter) skipRest() error {
	d := len(s.delim)
	for {
		buf := s.buffered()
		if i := bytes.Index(buf, s.delim); i >= 0 {
			s.discard(buf, i+d)
			s.skipping = false
			return nil
		}
		if s.eof {
			s.discard(buf, len(buf))
			s.skipping = false
			return nil
		}
		if move := len(buf) - (d - 1); move > 0 {
			s.discard(buf, move)
		}
		if err := s.fill(); err != nil {
			return err
		}
	}
}
