package schema

import (
	"errors"
	"math/big"
	"time"
)

// The logical types whose values plain JSON may also write as strings.
const (
	logicalDate            = "date"
	logicalTimeMillis      = "time-millis"
	logicalTimeMicros      = "time-micros"
	logicalTimestampMillis = "timestamp-millis"
	logicalTimestampMicros = "timestamp-micros"
	logicalLocalTSMillis   = "local-timestamp-millis"
	logicalLocalTSMicros   = "local-timestamp-micros"
)

// acceptsTimeString reports whether an int or long of n's logical type
// may be written as a date, time or timestamp string.
func acceptsTimeString(n *avroNode) bool {
	switch n.logical {
	case logicalDate, logicalTimeMillis, logicalTimeMicros, logicalTimestampMillis, logicalTimestampMicros,
		logicalLocalTSMillis, logicalLocalTSMicros:
		return true
	}
	return false
}

// parseTimeString reads a date (2024-01-31: days since 1970-01-01), a
// time of day (13:45:00.250: ms or µs since midnight) or a timestamp (RFC
// 3339, 2024-01-31T13:45:00.250Z; a local timestamp may omit the zone: ms
// or µs since the epoch).
func parseTimeString(n *avroNode, raw []byte) (int64, error) {
	s := string(raw)
	switch n.logical {
	case logicalDate:
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return 0, errors.New("want a date YYYY-MM-DD")
		}
		return t.Unix() / 86400, nil
	case logicalTimeMillis, logicalTimeMicros:
		t, err := time.Parse("15:04:05.999999999", s)
		if err != nil {
			return 0, errors.New("want a time of day HH:MM:SS[.fraction]")
		}
		since := time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute +
			time.Duration(t.Second())*time.Second + time.Duration(t.Nanosecond())
		if n.logical == logicalTimeMillis {
			return since.Milliseconds(), nil
		}
		return since.Microseconds(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil && (n.logical == logicalLocalTSMillis || n.logical == logicalLocalTSMicros) {
		t, err = time.Parse("2006-01-02T15:04:05.999999999", s)
	}
	if err != nil {
		return 0, errors.New("want an RFC 3339 timestamp, e.g. 2024-01-31T13:45:00.250Z")
	}
	if n.logical == logicalTimestampMillis || n.logical == logicalLocalTSMillis {
		return t.UnixMilli(), nil
	}
	return t.UnixMicro(), nil
}

// isUUID reports whether b is a UUID in its canonical text form.
func isUUID(b []byte) bool {
	if len(b) != 36 {
		return false
	}
	for i, c := range b {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// decimal encodes a decimal written as a JSON number or a string of one
// (12.34): its unscaled value, two's complement big-endian, in as few
// bytes as hold it (bytes) or sign-extended to the size (fixed). ok is
// false, the scanner untouched, for a string that is not a number: it is
// then Avro JSON's bytes.
func (e *avroEncoder) decimal(dst []byte, n *avroNode) (out []byte, ok bool, err error) {
	pos := e.sc.pos
	var text []byte
	if e.sc.kind() == kindString {
		raw, _, isStr := e.sc.str()
		if !isStr || !isDecimalText(raw) {
			e.sc.pos = pos
			return dst, false, nil
		}
		text = raw
	} else {
		num, isNum := e.sc.number()
		if !isNum {
			return dst, true, e.syntax("invalid number")
		}
		text = num
	}
	unscaled, err := unscaledDecimal(text, n.scale, n.precision)
	if err != nil {
		return dst, true, e.failf("decimal(%d,%d) %s: %v", n.precision, n.scale, text, err)
	}
	b := twosComplement(unscaled)
	if n.kind == avroFixed {
		if len(b) > n.size {
			return dst, true, e.failf("decimal %s does not fit fixed %s of %d bytes", text, n.name, n.size)
		}
		pad := byte(0)
		if unscaled.Sign() < 0 {
			pad = 0xff
		}
		for range n.size - len(b) {
			dst = append(dst, pad)
		}
		return append(dst, b...), true, nil
	}
	dst = appendLong(dst, int64(len(b)))
	return append(dst, b...), true, nil
}

// isDecimalText reports whether s is a plain decimal number: an optional
// sign, digits, an optional fraction.
func isDecimalText(s []byte) bool {
	i, digits := 0, 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	return digits > 0 && i == len(s)
}

// unscaledDecimal reads a decimal number as its unscaled value at scale:
// more fraction digits than the scale, or more digits than the precision,
// are refused rather than rounded.
func unscaledDecimal(text []byte, scale, precision int) (*big.Int, error) {
	r, ok := new(big.Rat).SetString(string(text))
	if !ok {
		return nil, errors.New("not a decimal number")
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	if !r.IsInt() {
		return nil, errors.New("more fraction digits than the scale")
	}
	v := r.Num()
	if precision > 0 && len(new(big.Int).Abs(v).String()) > precision && v.Sign() != 0 {
		return nil, errors.New("more digits than the precision")
	}
	return v, nil
}

// twosComplement returns v in two's complement big-endian, in as few bytes
// as keep its sign.
func twosComplement(v *big.Int) []byte {
	if v.Sign() >= 0 {
		b := v.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -v - 1, inverted, is v's two's complement.
	m := new(big.Int).Neg(v)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}
