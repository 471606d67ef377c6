package producecmd_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// largeValue is n pseudo-random bytes (seeded by seed), newlines among
// them unless noDelimiter, starting with seed in decimal so that a value
// read back names the one it should be.
func largeValue(seed uint64, n int, noDelimiter bool) []byte {
	rng := rand.New(rand.NewPCG(seed, 99))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
		if noDelimiter && b[i] == '\n' {
			b[i] = ' '
		}
	}
	return append([]byte(fmt.Sprintf("%08d:", seed)), b[:n-9]...)
}

// TestLargeRecordsEachFileByteForByte: files of up to 1,000,000 bytes
// with -f file, sizes mixed so that each input is read into the memory the
// one before it left (a large file, then small and empty ones, then large
// again), come back byte for byte, their batches' CRCs checked by the
// consumer.
func TestLargeRecordsEachFileByteForByte(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	dir := t.TempDir()
	sizes := []int{1_000_000, 10, 700_000, 0, 999_999, 64 << 10, 1_000_000, 65<<10 + 1, 300_000, 1_000_000}
	var files []string
	want := map[string][]byte{}
	for i, n := range sizes {
		v := largeValue(uint64(i), max(n, 9), false)[:n]
		files = append(files, kafkatest.WriteFile(t, dir, fmt.Sprintf("v%02d", i), v))
		if n >= 9 {
			want[string(v[:8])] = v
		}
	}
	res := produceTo(t, c, nil, append([]string{"-t", "big", "-f", "file", "-p", "0", "-o", "none"}, files...)...)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	recs := kafkatest.ByOffset(kafkatest.ConsumeExactly(t, c, "big", len(sizes)))
	for i, r := range recs {
		require.Len(t, r.Value, sizes[i], "record %d", i)
		if sizes[i] >= 9 {
			require.True(t, bytes.Equal(want[string(r.Value[:8])], r.Value), "record %d differs from %s", i, files[i])
		}
	}
}

// TestLargeRecordsAsLines: lines of 1,000,000 bytes (each longer than the
// read buffer, gathered from several reads) come back byte for byte, with
// a short line between two long ones, CRCs checked by the consumer.
func TestLargeRecordsAsLines(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	var in bytes.Buffer
	var want [][]byte
	for i := range 6 {
		v := largeValue(uint64(100+i), 1_000_000, true)
		if i == 3 {
			v = []byte("short")
		}
		want = append(want, v)
		in.Write(v)
		in.WriteByte('\n')
	}
	file := kafkatest.WriteFile(t, t.TempDir(), "lines.txt", in.Bytes())
	res := produceTo(t, c, nil, "-t", "big", "-p", "0", "-o", "none", "--max-record-bytes", "2MiB", "--max-request-size", "2MiB", file)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	recs := kafkatest.ByOffset(kafkatest.ConsumeExactly(t, c, "big", len(want)))
	for i, r := range recs {
		require.True(t, bytes.Equal(want[i], r.Value), "line %d: %d bytes, want %d (%q...)", i+1, len(r.Value), len(want[i]),
			strings.ToValidUTF8(string(r.Value[:min(len(r.Value), 12)]), "?"))
	}
}
