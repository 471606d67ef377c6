package input

import (
	"errors"
	"fmt"

	"github.com/kproduce/kproduce/internal/escape"
)

// errCrossed ends the reading of a record that crossed the limit: it is
// reported failed at once and the rest of it skipped.
var errCrossed = errors.New("the record crossed --max-record-bytes")

// crossed reports whether the record being read is over the limit (not
// while skipping, when nothing is kept).
func (l *layoutReader) crossed() bool { return l.tooBig && l.limit >= 0 }

// crossedError is the failure of a record cut short at the limit.
func (l *layoutReader) crossedError() error {
	rest := "nothing more can be read: the format string ends with no text to resume reading at"
	if l.term != nil {
		rest = "the rest of it is skipped, up to the next " + escape.QuoteClipped(string(l.term))
	}
	return fmt.Errorf("%w: more than --max-record-bytes %d: %d bytes read; %s", ErrRecordTooLarge, l.limit, l.used, rest)
}
