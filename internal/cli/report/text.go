package report

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/sender"
)

// textFormat prints "TOPIC/PARTITION@OFFSET" per delivery, and in a dry
// run where each record would go.
type textFormat struct{}

func (textFormat) String() string                          { return "text" }
func (textFormat) appendRecord(b []byte, r *Record) []byte { return appendTextReport(b, r) }
func (textFormat) appendDry(b []byte, r *Record) []byte    { return appendDryText(b, r) }
func (textFormat) failuresOnStdout() bool                  { return false }
func (textFormat) needsRecordBytes() bool                  { return false }
func (textFormat) printsDeliveries() bool                  { return true }

// appendTextReport appends "TOPIC/PARTITION@OFFSET\n".
func appendTextReport(b []byte, rep *Record) []byte {
	b = append(b, rep.Topic...)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(rep.Partition), 10)
	b = append(b, '@')
	b = strconv.AppendInt(b, rep.Offset, 10)
	return append(b, '\n')
}

// appendTextError appends "error: SOURCE:N: TOPIC/PARTITION: REASON\n".
func appendTextError(b []byte, rep *Record) []byte {
	b = append(b, "error: "...)
	b = append(b, rep.Source...)
	b = append(b, ':')
	b = strconv.AppendInt(b, rep.Number, 10)
	b = append(b, ": "...)
	b = append(b, rep.Topic...)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(rep.Partition), 10)
	b = append(b, ": "...)
	b = append(b, rep.Err.Error()...)
	return append(b, '\n')
}

// appendDryText appends
// "dry-run: SOURCE:N TOPIC/PARTITION key=KEY value_bytes=N headers=N\n":
// the key Go-quoted (escapes for control bytes and invalid UTF-8) or null,
// the value's size, or value=null for a null value (a tombstone).
func appendDryText(b []byte, rep *Record) []byte {
	b = append(b, "dry-run: "...)
	b = append(b, rep.Source...)
	b = append(b, ':')
	b = strconv.AppendInt(b, rep.Number, 10)
	b = append(b, ' ')
	b = append(b, rep.Topic...)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(rep.Partition), 10)
	b = append(b, " key="...)
	if rep.Key == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendQuote(b, string(rep.Key))
	}
	if rep.Value == nil {
		b = append(b, " value=null"...)
	} else {
		b = append(b, " value_bytes="...)
		b = strconv.AppendInt(b, int64(len(rep.Value)), 10)
	}
	b = append(b, " headers="...)
	b = strconv.AppendInt(b, int64(len(rep.Headers)), 10)
	return append(b, '\n')
}

// The failure of a record caused by the authentication failure that
// stopped the producer (see referToFatal), which the run prints once at
// its end.
var (
	errStoppedBelow        = errors.New("the producer stopped (the error below says why)")
	errNotSentStoppedBelow = fmt.Errorf("%w: %w", sender.ErrNotSent, errStoppedBelow)
)

// referToFatal returns err, or a reference to fatal when fatal is an
// authentication failure, or SASL credentials never obtained (the same
// for every broker and every record), and err is caused by it.
func referToFatal(err, fatal error) error {
	switch {
	case fatal == nil || !errors.Is(err, fatal):
		return err
	case !errors.Is(fatal, network.ErrAuthentication) && !errors.Is(fatal, network.ErrSASLPending):
		return err
	case errors.Is(err, sender.ErrNotSent):
		return errNotSentStoppedBelow
	}
	return errStoppedBelow
}
