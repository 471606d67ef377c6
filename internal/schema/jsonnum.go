package schema

import (
	"strconv"
	"unsafe"
)

// bytesString is b as a string without a copy, for calls that do not keep
// it (strconv parsing).
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// parseInt reads an integral JSON number: digits, or a number with a
// fraction or exponent whose value is integral (1e3, 2.0).
func parseInt(num []byte) (int64, bool) {
	if len(num) > 0 && len(num) <= 18 { // digits only: no overflow possible
		neg, digits := num[0] == '-', num
		if neg {
			digits = num[1:]
		}
		var v int64
		for _, c := range digits {
			if c < '0' || c > '9' {
				v = -1
				break
			}
			v = v*10 + int64(c-'0')
		}
		if v >= 0 {
			if neg {
				return -v, true
			}
			return v, true
		}
	}
	if n, err := strconv.ParseInt(bytesString(num), 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(bytesString(num), 64)
	if err != nil || f != float64(int64(f)) || f >= 1<<63 || f < -(1<<63) {
		return 0, false
	}
	return int64(f), true
}

// exactPow10 are the powers of ten a float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat64 reads a JSON number as a float64, correctly rounded: a
// number of at most 15 digits with no exponent is one exact division
// (Clinger's fast path); any other goes to strconv.
func parseFloat64(num []byte) (float64, error) {
	var mant uint64
	digits, frac, i := 0, -1, 0
	neg := len(num) > 0 && num[0] == '-'
	if neg {
		i = 1
	}
	for ; i < len(num); i++ {
		c := num[i]
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
			if frac >= 0 {
				frac++
			}
		case c == '.' && frac < 0:
			frac = 0
		default:
			return strconv.ParseFloat(bytesString(num), 64)
		}
	}
	if digits == 0 || digits > 15 {
		return strconv.ParseFloat(bytesString(num), 64)
	}
	f := float64(mant)
	if frac > 0 {
		f /= exactPow10[frac]
	}
	if neg {
		f = -f
	}
	return f, nil
}
