package perfcmd

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The entries are those between the delimiters, whatever the reads cut
// (a delimiter across two reads included); the empty entry after a
// last delimiter is not one, the empty ones inside are.
func TestPayloadSplitter(t *testing.T) {
	for _, tt := range []struct{ data, delim string }{
		{"a\nbb\n\nccc\n", "\n"}, {"a\nbb", "\n"}, {"", "\n"}, {"\n", "\n"}, {"x", "\n"},
		{"one<|>two<|three<|><|>four<|", "<|>"}, {strings.Repeat("ab<|>", 300), "<|>"},
	} {
		for _, oneByte := range []bool{false, true} {
			s := payloadSplitter{delim: []byte(tt.delim), maxEntry: 1 << 20, maxCount: 1 << 20}
			var r io.Reader = strings.NewReader(tt.data)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			require.NoError(t, s.read(r))
			want := bytes.Split([]byte(tt.data), []byte(tt.delim))
			if n := len(want); len(want[n-1]) == 0 {
				want = want[:n-1]
			}
			got := s.entries()
			require.Len(t, got, len(want), "%q", tt.data)
			for i := range want {
				assert.Equal(t, string(want[i]), string(got[i]), "%q entry %d", tt.data, i)
			}
		}
	}
}

// An entry larger than a request, or one entry too many, stops the
// reading where it is found, naming it.
func TestPayloadSplitterBounds(t *testing.T) {
	s := payloadSplitter{delim: []byte("\n"), maxEntry: 4, maxCount: 10}
	err := s.read(strings.NewReader("abcd\nab\nabcde\nabc\n"))
	assert.EqualError(t, err, "entry 3, at byte 8, is more than 4 bytes: with the records' key and headers it cannot fit in a request"+
		" of --max-request-size; is --payload-delimiter right? (raise --max-request-size, and the topic's max.message.bytes, for larger values)")
	s = payloadSplitter{delim: []byte("<>"), maxEntry: 4, maxCount: 10}
	assert.NoError(t, s.read(iotest.OneByteReader(strings.NewReader("abcd<>abcd"))), "an entry of the largest size, its delimiter read a byte at a time")
	s = payloadSplitter{delim: []byte("\n"), maxEntry: 4, maxCount: 3}
	assert.ErrorContains(t, s.read(strings.NewReader("\n\n\n\n\n")), "more than 3 entries")
}
