package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// byteUnit returns the multiplier of a lower-cased unit suffix. The IEC
// units (KiB, MiB, GiB) and the bare letters (k, m, g, as dd and most
// command-line tools read them) are powers of 1024; the SI units (KB, MB,
// GB) are powers of 1000.
func byteUnit(u string) (int64, bool) {
	switch u {
	case "", "b":
		return 1, true
	case "k", "kib":
		return 1 << 10, true
	case "kb":
		return 1000, true
	case "m", "mib":
		return 1 << 20, true
	case "mb":
		return 1000 * 1000, true
	case "g", "gib":
		return 1 << 30, true
	case "gb":
		return 1000 * 1000 * 1000, true
	}
	return 0, false
}

// parseBytes parses a byte count: a non-negative integer with an optional
// unit (16384, 16k, 512KiB, 1MiB, 1MB, 2g). Units are case-insensitive and
// may follow a space.
func parseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		if strings.HasPrefix(t, "-") {
			return 0, fmt.Errorf("%w: negative", ErrBadValue)
		}
		return 0, fmt.Errorf("%w: not a byte count (e.g. 16384, 512KiB, 1MiB)", ErrBadValue)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: too large", ErrBadValue)
	}
	mult, ok := byteUnit(strings.ToLower(strings.TrimSpace(t[i:])))
	if !ok {
		return 0, fmt.Errorf("%w: unknown unit (want B, k, KiB, KB, m, MiB, MB, g, GiB or GB)", ErrBadValue)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%w: too large", ErrBadValue)
	}
	return n * mult, nil
}

// parseDuration parses a Go duration ("5ms", "1m30s"); a bare "0" is zero.
// Negative durations are an error.
func parseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	d, err := time.ParseDuration(t)
	if err != nil {
		return 0, fmt.Errorf("%w: not a duration (e.g. 5ms, 30s, 2m)", ErrBadValue)
	}
	if d < 0 {
		return 0, fmt.Errorf("%w: negative", ErrBadValue)
	}
	return d, nil
}
