package config

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// compressionLevelEffects are the tests of the level properties: each
// sets --compression-level for the codec in use (Java's per-codec ones
// only for their codec).
func compressionLevelEffects() map[string]effect {
	return map[string]effect{
		"compression.level":      {base: []string{"-z", "zstd"}, withProperty: []string{"-X", "compression.level=3"}, withFlags: []string{"--compression-level", "3"}},
		"compression.gzip.level": {base: []string{"-z", "gzip"}, withProperty: []string{"-X", "compression.gzip.level=9"}, withFlags: []string{"--compression-level", "9"}},
		"compression.lz4.level":  {base: []string{"-z", "lz4"}, withProperty: []string{"-X", "compression.lz4.level=9"}, withFlags: []string{"--compression-level", "9"}},
		"compression.zstd.level": {base: []string{"-z", "zstd"}, withProperty: []string{"-X", "compression.zstd.level=10"}, withFlags: []string{"--compression-level", "10"}},
	}
}

func TestCompressionLevel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		level int
	}{
		{"default", []string{"-z", "gzip"}, protocol.DefaultCompressionLevel},
		{"a level", []string{"-z", "gzip", "--compression-level", "9"}, 9},
		{"-1 is the default", []string{"-z", "zstd", "--compression-level", "-1"}, -1},
		{"a negative zstd level", []string{"-z", "zstd", "--compression-level", "-5"}, -5},
		{"the codec's item", []string{"-z", "lz4", "--compression-level", "gzip:9,lz4:12"}, 12},
		{"another codec's item only", []string{"-z", "lz4", "--compression-level", "gzip:9"}, protocol.DefaultCompressionLevel},
		{"the last item that applies", []string{"-z", "zstd", "--compression-level", "3, zstd:7"}, 7},
		{"no codec, another codec's item", []string{"--compression-level", "gzip:9"}, protocol.DefaultCompressionLevel},
		{"Java's properties, each for its codec", []string{"-z", "gzip", "-X", "compression.gzip.level=4", "-X", "compression.zstd.level=12"}, 4},
		{"in the environment", []string{"-z", "gzip"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "in the environment" {
				t.Setenv("KPRODUCE_COMPRESSION_LEVEL", "2")
			}
			o, _, err := parseOptions(t, append([]string{"-t", "t"}, tc.args...)...)
			require.NoError(t, err)
			assert.Equal(t, tc.level, o.CompressionLevel)
		})
	}
}

// TestCompressionLevelRefused: a level the codec does not take, or one
// that does not parse, is a usage error (exit 2) that names the option
// and the levels the codec takes.
func TestCompressionLevelRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-z", "gzip", "--compression-level", "10"}, `--compression-level "10": invalid value: invalid compression level 10 for gzip: it takes 1 to 9 (0 or -1: its default)`},
		{[]string{"-z", "lz4", "--compression-level", "18"}, "it takes 1 to 17"},
		{[]string{"-z", "zstd", "--compression-level", "23"}, "it takes -131072 to 22"},
		{[]string{"-z", "snappy", "--compression-level", "1"}, "snappy takes no level (only 0 or -1, its default)"},
		{[]string{"--compression-level", "5"}, "a level needs a codec: give --compression gzip, lz4 or zstd"},
		{[]string{"-z", "gzip", "--compression-level", "fast"}, `"fast" is not a level: want LEVEL or CODEC:LEVEL, comma-separated`},
		{[]string{"-z", "gzip", "--compression-level", "brotli:3"}, `"brotli:3": unknown compression codec "brotli"`},
		{[]string{"-z", "gzip", "-X", "compression.gzip.level=12"}, "it takes 1 to 9"},
		{[]string{"-z", "gzip", "-X", "compression.gzip.level=high"}, `compression.gzip.level="high": invalid value: not an integer level`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			_, _, err := parseOptions(t, append([]string{"-t", "t"}, tc.args...)...)
			require.Error(t, err)
			assert.True(t, cmdutil.IsUsageError(err), "exit 2: %v", err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestCompressionWorkers(t *testing.T) {
	o, _, err := parseOptions(t, "-t", "t", "-z", "zstd")
	require.NoError(t, err)
	assert.Equal(t, runtime.GOMAXPROCS(0), o.CompressionWorkers, "one per core by default")
	o, _, err = parseOptions(t, "-t", "t", "-z", "zstd", "--compression-workers", "0")
	require.NoError(t, err)
	assert.Zero(t, o.CompressionWorkers)
	_, _, err = parseOptions(t, "-t", "t", "--compression-workers", "-1")
	require.Error(t, err)
	assert.True(t, cmdutil.IsUsageError(err))
	assert.Contains(t, err.Error(), "--compression-workers")
}
