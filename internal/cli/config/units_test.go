package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestParseBytes(t *testing.T) {
	good := map[string]int64{
		"0": 0, "16384": 16384, "16k": 16 << 10, "16K": 16 << 10, "512KiB": 512 << 10, "512kib": 512 << 10,
		"1MiB": 1 << 20, "1MB": 1000000, "1kB": 1000, "1m": 1 << 20, "2g": 2 << 30, "2GiB": 2 << 30,
		"3GB": 3000000000, "10B": 10, " 7 MiB ": 7 << 20,
	}
	for in, want := range good {
		got, err := parseBytes(in)
		if assert.NoError(t, err, in) {
			assert.Equal(t, want, got, in)
		}
	}
	for _, in := range []string{"", "-1", "-1MiB", "1.5MiB", "MiB", "1TiB", "1 x", "99999999999999999999", "9223372036854775807k"} {
		_, err := parseBytes(in)
		assert.ErrorIs(t, err, ErrBadValue, in)
	}
}

func TestParseDuration(t *testing.T) {
	good := map[string]time.Duration{"0": 0, "5ms": 5 * time.Millisecond, "1m30s": 90 * time.Second, "2m": 2 * time.Minute}
	for in, want := range good {
		got, err := parseDuration(in)
		if assert.NoError(t, err, in) {
			assert.Equal(t, want, got, in)
		}
	}
	for _, in := range []string{"", "5", "-1s", "soon", "1d"} {
		_, err := parseDuration(in)
		assert.ErrorIs(t, err, ErrBadValue, in)
	}
}
