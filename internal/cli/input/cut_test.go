package input

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// zeros is an endless input of NUL bytes, as /dev/zero, counting what was
// read.
type zeros struct{ read int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.read += int64(len(p))
	return len(p), nil
}

// TestEndlessRecordReportedAtTheLimit reads an endless record without a
// delimiter in each format that has one: the record is reported failed,
// with its number, once the bytes read put it over --max-record-bytes,
// having read no more than the limit and a buffer or two.
func TestEndlessRecordReportedAtTheLimit(t *testing.T) {
	for _, format := range []string{"lines", "json", `%v\n`, `%k %v\n`} {
		t.Run(format, func(t *testing.T) {
			cfg := testConfig(t, "-t", "t", "-f", format, "--max-record-bytes", "100000")
			src := &zeros{}
			r, err := newReaderSize(cfg, "zero", src, 4096, Start{})
			require.NoError(t, err)
			var rec Record
			require.NoError(t, r.Next(&rec))
			require.Error(t, rec.Err)
			assert.Equal(t, int64(1), rec.Number)
			assert.Less(t, src.read, int64(100000+3*4096), "read no further than the limit")
			if format == "json" {
				assert.ErrorIs(t, rec.Err, ErrMalformedJSON, "json fails at its first invalid byte")
				assert.Contains(t, rec.Err.Error(), "at byte 1:")
				assert.Less(t, src.read, int64(3*4096), "as soon as the record outgrows the buffer")
				return
			}
			assert.ErrorIs(t, rec.Err, ErrRecordTooLarge)
			assert.Contains(t, rec.Err.Error(), "more than --max-record-bytes 100000")
		})
	}
}

// TestCutRecordSkippedToItsDelimiter checks that the reader goes on after
// a record cut short at the limit with the record after its delimiter,
// holding no more than the limit and the buffer, and that the numbers
// stay those of the input.
func TestCutRecordSkippedToItsDelimiter(t *testing.T) {
	const huge = 32 << 20
	for _, format := range []string{"lines", "json", `%v\n`} {
		t.Run(format, func(t *testing.T) {
			cfg := testConfig(t, "-t", "t", "-f", format, "--max-record-bytes", "1000")
			first, last := "a", "z"
			if format == "json" {
				first, last = `{"value":"a"}`, `{"value":"z"}`
			}
			body := `{"value":"` // valid so far: json reads on to the limit too
			in := io.MultiReader(strings.NewReader(first+"\n"+body), &endlessX{n: huge, tail: []byte("\n" + last + "\n")})
			r, err := newReaderSize(cfg, "in", in, 4096, Start{})
			require.NoError(t, err)
			got := readAll(t, r)
			require.Len(t, got, 3)
			assert.NoError(t, got[0].Err)
			assert.ErrorIs(t, got[1].Err, ErrRecordTooLarge)
			assert.Equal(t, int64(2), got[1].Number)
			assert.NoError(t, got[2].Err)
			assert.Equal(t, "z", string(got[2].Value))
			assert.Equal(t, int64(3), got[2].Number)
		})
	}
}
