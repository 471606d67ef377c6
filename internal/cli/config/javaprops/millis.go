package javaprops

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// millis converts the value of a Java *.ms property (a non-negative
// integer count of milliseconds) to a Go duration string.
func millis(s string) (string, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return "", fmt.Errorf("%w: not a non-negative number of milliseconds", ErrBadValue)
	}
	if n > math.MaxInt64/int64(time.Millisecond) {
		return "", fmt.Errorf("%w: too many milliseconds", ErrBadValue)
	}
	return (time.Duration(n) * time.Millisecond).String(), nil
}
