package main

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// hugeRecord generates head, then left filler bytes, then tail, without
// holding the filler in memory.
type hugeRecord struct {
	head, tail []byte
	chunk      []byte // filler bytes, copied out again and again
	left       int64  // filler bytes still to generate
}

// newHugeRecord returns a generator of head, n times filler, then tail.
func newHugeRecord(head, tail string, filler byte, n int64) *hugeRecord {
	return &hugeRecord{head: []byte(head), tail: []byte(tail), chunk: bytes.Repeat([]byte{filler}, 64<<10), left: n}
}

// Read serves head, the filler, then tail.
func (h *hugeRecord) Read(p []byte) (int, error) {
	switch {
	case len(h.head) > 0:
		n := copy(p, h.head)
		h.head = h.head[n:]
		return n, nil
	case h.left > 0:
		n := copy(p, h.chunk[:min(int64(len(h.chunk)), h.left)])
		h.left -= int64(n)
		return n, nil
	case len(h.tail) > 0:
		n := copy(p, h.tail)
		h.tail = h.tail[n:]
		return n, nil
	}
	return 0, io.EOF
}

// hugeLine is the size of the record without a delimiter: 2 GiB.
const hugeLine = 2 << 30

// maxPeakRSS bounds the resident memory of a run that reads a 2 GiB
// record: the read buffer, one record of --max-record-bytes and the
// runtime, far below the record's size.
const maxPeakRSS = 100 << 20

// TestBadInputHugeRecord feeds the real binary a 2 GiB record with no
// delimiter between normal records, through a pipe from a generator: the
// huge record fails alone with its position and size, the others are
// delivered, and the process's peak resident memory stays bounded.
func TestBadInputHugeRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 2 GiB per format through a pipe")
	}
	t.Parallel()
	cases := []struct {
		format        string
		head, tail    string
		filler        byte
		size          int64 // the huge record's size as reported
		before, after []string
	}{
		{"lines", "first\n", "\nafter-1\nafter-2\n", 'x', hugeLine, []string{"first"}, []string{"after-1", "after-2"}},
		{"json", `{"value":"first"}` + "\n" + `{"value":"`, `"}` + "\n" + `{"value":"after-1"}` + "\n", 'j',
			hugeLine + int64(len(`{"value":""}`)), []string{"first"}, []string{"after-1"}},
	}
	for _, tc := range cases {
		t.Run(tc.format, func(t *testing.T) {
			c := kafkatest.ProducerCluster(t)
			gen := newHugeRecord(tc.head, tc.tail, tc.filler, hugeLine)
			proc := startProcess(t, func(cmd *exec.Cmd) { cmd.Stdin = gen },
				"-b", kafkatest.Brokers(c), "-t", "t", "-f", tc.format, "--log-level", "error")
			peakRSS := proc.trackPeakRSS(t)
			code, elapsed := proc.wait(t, 2*time.Minute)
			rss := peakRSS()
			t.Logf("%s: exit %d after %v, peak RSS %d MiB", tc.format, code, elapsed.Round(time.Millisecond), rss>>20)
			require.Equal(t, cmdutil.ExitFailed, code, proc.stderr.String())
			assert.Less(t, rss, int64(maxPeakRSS), "peak resident memory")
			want := len(tc.before) + len(tc.after)
			assert.Len(t, kafkatest.Lines(proc.stdout.String()), want)
			errs := kafkatest.Lines(proc.stderr.String())
			require.Len(t, errs, 2, proc.stderr.String())
			// Reported as the limit is crossed, before the record's end.
			assert.Regexp(t, fmt.Sprintf(`^error: -:%d: t/-1: record too large: more than --max-record-bytes %d: no delimiter in its first \d+ bytes;`,
				len(tc.before)+1, 1<<20), errs[0])
			assert.Equal(t, fmt.Sprintf("%d delivered, 1 failed", want), errs[1])
			recs := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", want))
			for _, v := range append(tc.before, tc.after...) {
				assert.Contains(t, recs, v)
			}
		})
	}
}
