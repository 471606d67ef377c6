package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tapRead reads every record of a reader of data at cfg from start,
// and returns them with the tapped bytes after each record.
func tapRead(t *testing.T, cfg *Config, data []byte, bufSize int, start Start) (recs []gotRecord, tapped []int) {
	t.Helper()
	var tap bytes.Buffer
	start.Tap = &tap
	rr, err := newReaderSize(cfg, "in", bytes.NewReader(data), bufSize, start)
	require.NoError(t, err)
	for {
		var rec Record
		err := rr.Next(&rec)
		if errors.Is(err, io.EOF) {
			require.Equal(t, string(data), tap.String(), "at the end every byte was tapped, in order")
			return recs, tapped
		}
		require.NoError(t, err)
		recs = append(recs, copyRecord(&rec))
		tapped = append(tapped, tap.Len())
		require.Equal(t, string(data[:tap.Len()]), tap.String())
	}
}

// recordEnd is where record i (from 0) of data ends, delimiter included,
// given a reader that numbers records from 1.
func recordEnds(data, delim []byte) []int {
	var ends []int
	for off := 0; off < len(data); {
		i := bytes.Index(data[off:], delim)
		if i < 0 {
			ends = append(ends, len(data))
			break
		}
		off += i + len(delim)
		ends = append(ends, off)
	}
	return ends
}

// TestTapAndStart: after each record the tap has seen exactly the bytes up
// to its end (a record longer than the buffer, skipped empty records and
// a too-large record included), but for a record cut short as it crossed
// the limit (its failure is reported before its end is read; a failure
// ends a resumable load, so no checkpoint is taken there), and a reader
// started after record n at that byte reads the rest with the same
// records and numbers.
func TestTapAndStart(t *testing.T) {
	rng := newTestRand()
	for i := range 200 {
		delim := []string{"\n", "||", "\r\n"}[i%3]
		format := []string{FormatLines, FormatJSON}[i/3%2]
		var data []byte
		for range rng.IntN(30) {
			switch rng.IntN(5) {
			case 0: // empty
			case 1:
				data = append(data, bytes.Repeat([]byte("x"), 50+rng.IntN(200))...) // longer than a small buffer
			default:
				data = fmt.Appendf(data, `{"value":"v%d"}`, rng.IntN(1000))
			}
			data = append(data, delim...)
		}
		if rng.IntN(2) == 0 {
			data = append(data, `{"value":"last"}`...) // no final delimiter
		}
		args := []string{"-f", format, "-D", map[string]string{"\n": `\n`, "||": "||", "\r\n": `\r\n`}[delim], "--max-record-bytes", "220"}
		if rng.IntN(2) == 0 {
			args = append(args, "--skip-empty")
		}
		cfg := testConfig(t, args...)
		bufSize := minSplitBuffer + rng.IntN(100)
		t.Run(fmt.Sprintf("%d-%s", i, format), func(t *testing.T) {
			all, tapped := tapRead(t, cfg, data, bufSize, Start{})
			ends := recordEnds(data, []byte(delim))
			var whole []int // the records not cut short
			for j, r := range all {
				if tapped[j] < ends[r.Number-1] {
					assert.True(t, errors.Is(r.Err, ErrRecordTooLarge) || errors.Is(r.Err, ErrMalformedJSON),
						"record %d, cut short before its end, failed: %v", r.Number, r.Err)
					continue
				}
				whole = append(whole, j)
				assert.Equal(t, ends[r.Number-1], tapped[j], "record %d ends where the tap stands", r.Number)
			}
			if len(whole) == 0 {
				return
			}
			j := whole[rng.IntN(len(whole))]
			after := all[j].Number
			rest, _ := tapRead(t, cfg, data[tapped[j]:], bufSize, Start{After: after})
			if want := all[j+1:]; len(want) > 0 || len(rest) > 0 {
				assert.Equal(t, want, rest, "resumed after record %d", after)
			}
		})
	}
}

func TestFileFormatStart(t *testing.T) {
	cfg := testConfig(t, "-f", "file")
	recs, tapped := tapRead(t, cfg, []byte("whole\nfile"), 16, Start{})
	require.Len(t, recs, 1)
	assert.Equal(t, []int{10}, tapped)
	recs, _ = tapRead(t, cfg, nil, 16, Start{After: 1})
	assert.Empty(t, recs, "a file record read by an earlier run is not read again")
}

// TestLayoutTapAndStart: the format-string reader taps what it consumes
// too, a record too large included, and starts after a record as the
// others do.
func TestLayoutTapAndStart(t *testing.T) {
	layout, err := ParseLayout(`%k:%v\n`)
	require.NoError(t, err)
	cfg := &Config{Format: FormatLayout, Layout: layout, Delimiter: []byte("\n"), MaxRecordBytes: 40}
	data := []byte("k1:v1\nk2:v2\nk3:" + string(bytes.Repeat([]byte("x"), 60)) + "\nk4:v4\n")
	all, tapped := tapRead(t, cfg, data, 32, Start{})
	require.Len(t, all, 4)
	assert.Equal(t, []int{6, 12, 82}, []int{tapped[0], tapped[1], tapped[3]}, "after each record, its bytes and nothing more")
	assert.Less(t, tapped[2], 76, "but a record too large is reported as it crosses the limit, before its end")
	assert.Greater(t, tapped[2], 12+40)
	assert.ErrorIs(t, all[2].Err, ErrRecordTooLarge)
	rest, _ := tapRead(t, cfg, data[tapped[1]:], 32, Start{After: 2})
	require.Len(t, rest, 2)
	assert.ErrorIs(t, rest[0].Err, ErrRecordTooLarge)
	assert.Equal(t, all[3:], rest[1:])
}
