package input

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// TestLineHeaders reads the console producer's layout,
// "headers<TAB>key<TAB>value", and kproduce's own separators.
func TestLineHeaders(t *testing.T) {
	console := []string{"--header-delimiter", `\t`, "-K", `\t`}
	tests := []struct {
		name    string
		args    []string
		input   string
		key     []string // "<nil>" for null
		value   []string
		headers [][]protocol.Header
	}{
		{"headers, key and value", console, "a:1,b:2\tk\tv\n", []string{"k"}, []string{"v"},
			[][]protocol.Header{{h("a", "1"), h("b", "2")}}},
		{"repeated and empty header keys kept in order", console, "a:1,a:2,:3\tk\tv\n", []string{"k"}, []string{"v"},
			[][]protocol.Header{{h("a", "1"), h("a", "2"), h("", "3")}}},
		{"an empty headers field is no header", console, "\tk\tv\n", []string{"k"}, []string{"v"}, [][]protocol.Header{nil}},
		{"empty pairs skipped", console, "a:1,,b:\tk\tv\n", []string{"k"}, []string{"v"},
			[][]protocol.Header{{h("a", "1"), h("b", "")}}},
		{"a value keeps the key separator", console, "url:http://x\tk\tv\n", []string{"k"}, []string{"v"},
			[][]protocol.Header{{h("url", "http://x")}}},
		{"headers without a key", []string{"--header-delimiter", "|"}, "a:1|v\n", []string{"<nil>"}, []string{"v"},
			[][]protocol.Header{{h("a", "1")}}},
		{"one tab: the headers, then a value (LineMessageReader's reading)", console, "k\tv\n", []string{"<nil>"}, []string{"v"},
			[][]protocol.Header{{h("k", "<nil>")}}},
		{"no tab: no headers, no key", console, "v\n", []string{"<nil>"}, []string{"v"}, [][]protocol.Header{nil}},
		{"other separators", []string{"--header-delimiter", "|", "--header-separator", ";", "--header-key-separator", "=", "-K", ":"},
			"x=1;y=2|k:v:w\n", []string{"k"}, []string{"v:w"}, [][]protocol.Header{{h("x", "1"), h("y", "2")}}},
		{"-H headers follow the line's", append(console, "-H", "c=3"), "a:1\tk\tv\n", []string{"k"}, []string{"v"},
			[][]protocol.Header{{h("a", "1"), h("c", "3")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, size := range []int{16, inputBufferSize} {
				recs := linesOf(t, tt.input, size, tt.args...)
				require.Len(t, recs, len(tt.value))
				for i, r := range recs {
					require.NoError(t, r.Err)
					if tt.key[i] == "<nil>" {
						assert.Nil(t, r.Key)
					} else {
						assert.Equal(t, tt.key[i], string(r.Key))
					}
					assert.Equal(t, tt.value[i], string(r.Value))
					assert.Equal(t, tt.headers[i], r.Headers)
				}
			}
		})
	}
}

// TestLineHeadersRequireDelimiters: LineMessageReader without
// ignore.error fails a line without its separators; with it, such a line
// has no key or headers, and a header without a key separator a null
// value.
func TestLineHeadersRequireDelimiters(t *testing.T) {
	args := []string{"--header-delimiter", `\t`, "-K", `\t`}
	strict := linesOf(t, "a:1\tk\tv\nno-tabs\na:1\tno-key-tab\nnokeysep\tk\tv\nok\tk\tv\n", 64, append(args, "--require-delimiters")...)
	require.Len(t, strict, 5)
	assert.NoError(t, strict[0].Err)
	for _, i := range []int{1, 2, 3} {
		assert.ErrorIs(t, strict[i].Err, ErrMissingDelimiter, "record %d", i+1)
	}
	assert.ErrorContains(t, strict[1].Err, "header delimiter")
	assert.ErrorContains(t, strict[2].Err, "key delimiter")
	assert.ErrorContains(t, strict[3].Err, `header "nokeysep" has no key separator`)
	assert.ErrorIs(t, strict[4].Err, ErrMissingDelimiter, "ok has no header key separator either")
	assert.Equal(t, []int64{1, 2, 3, 4, 5}, numbers(strict))

	lenient := linesOf(t, "no-tabs\nnokeysep\tk\tv\n", 64, args...)
	require.Len(t, lenient, 2)
	assert.Nil(t, lenient[0].Key)
	assert.Equal(t, "no-tabs", string(lenient[0].Value))
	assert.Empty(t, lenient[0].Headers)
	assert.Equal(t, []protocol.Header{{Key: "nokeysep"}}, lenient[1].Headers, "ignore.error: the pair is a key with a null value")
}

// TestLineHeadersNullMarker: the marker stands for a null key, value or
// header value, and for no headers at all; a header key cannot be it.
func TestLineHeadersNullMarker(t *testing.T) {
	args := []string{"--header-delimiter", `\t`, "-K", `\t`, "--null", "NULL"}
	recs := linesOf(t, "NULL\tNULL\tNULL\na:NULL\tk\tv\nNULL:1\tk\tv\n", 64, args...)
	require.Len(t, recs, 3)
	assert.Nil(t, recs[0].Key)
	assert.Nil(t, recs[0].Value)
	assert.Empty(t, recs[0].Headers)
	assert.Equal(t, []protocol.Header{{Key: "a"}}, recs[1].Headers)
	assert.ErrorIs(t, recs[2].Err, ErrBadHeader)
}

// TestEmptyAsNull: kcat -Z and rpk --tombstone send an empty key or
// value as null.
func TestEmptyAsNull(t *testing.T) {
	recs := linesOf(t, ":\nk:\n:v\n\n", 64, "-K", ":", "-Z")
	require.Len(t, recs, 4)
	assert.Nil(t, recs[0].Key)
	assert.Nil(t, recs[0].Value)
	assert.Equal(t, "k", string(recs[1].Key))
	assert.Nil(t, recs[1].Value)
	assert.Nil(t, recs[2].Key)
	assert.Equal(t, "v", string(recs[2].Value))
	assert.Nil(t, recs[3].Value, "an empty line is a tombstone")
	plain := linesOf(t, ":\n", 64, "-K", ":")
	assert.NotNil(t, plain[0].Value)
	assert.NotNil(t, plain[0].Key)
}

// TestLineHeadersOwnSlice: each record's headers are its own, so that
// records read ahead of each other keep theirs.
func TestLineHeadersOwnSlice(t *testing.T) {
	cfg := testConfig(t, "--header-delimiter", "|")
	r := newLinesReader(cfg, "-", strings.NewReader("a:1|x\nb:2|y\n"), 64)
	var first, second Record
	require.NoError(t, r.Next(&first))
	require.NoError(t, r.Next(&second))
	assert.Equal(t, "a", first.Headers[0].Key)
	assert.Equal(t, "b", second.Headers[0].Key)
}
