package producecmd_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// binaryValues are values with NUL bytes, invalid UTF-8 and every byte
// value but the newline.
func binaryValues() [][]byte {
	var all []byte
	for b := range 256 {
		if b != '\n' {
			all = append(all, byte(b))
		}
	}
	return [][]byte{[]byte("\x00"), []byte("a\x00b\x00"), []byte("\xff\xfe"), []byte("\xc3\x28\xa0\xa1"), []byte("\xed\xa0\x80"), all}
}

// TestBadInputBinaryBytesLines checks the lines format byte for byte: NUL
// bytes, invalid UTF-8 and every byte but the delimiter, a CR before it
// included, with no key split (-K splits are covered elsewhere).
func TestBadInputBinaryBytesLines(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	vals := append(binaryValues(), []byte("cr\r"), []byte("\r"))
	var in bytes.Buffer
	for _, v := range vals {
		in.Write(v)
		in.WriteByte('\n')
	}
	res := produceTo(t, c, &in, "-t", "t", "-p", "4")
	require.Equal(t, 0, res.Code, res.Stderr)
	recs := kafkatest.ByOffset(kafkatest.ConsumeExactly(t, c, "t", len(vals)))
	for i, v := range vals {
		assert.True(t, bytes.Equal(v, recs[i].Value), "line %d: want %q, got %q", i+1, v, recs[i].Value)
		assert.Nil(t, recs[i].Key, "line %d: no key", i+1)
	}
}

// TestBadInputBinaryBytesJSON checks that raw bytes inside JSON strings
// (NUL through \u0000, invalid UTF-8 as it is) reach the broker byte for
// byte, in keys, values and header values.
func TestBadInputBinaryBytesJSON(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	var in bytes.Buffer
	vals := binaryValues()
	for i, v := range vals {
		s := jsonRawString(v)
		// The key holds a raw 0xff byte and an escaped NUL.
		fmt.Fprintf(&in, `{"partition":0,"key":"k%d`+"\xff"+`\u0000","value":%s,"headers":{"h":%s}}`+"\n", i, s, s)
	}
	res := produceTo(t, c, &in, "-t", "t", "-f", "json")
	require.Equal(t, 0, res.Code, res.Stderr)
	recs := kafkatest.ByOffset(kafkatest.ConsumeExactly(t, c, "t", len(vals)))
	for i, v := range vals {
		assert.Equal(t, []byte(fmt.Sprintf("k%d\xff\x00", i)), recs[i].Key, "key %d", i)
		assert.True(t, bytes.Equal(v, recs[i].Value), "value %d: want %q, got %q", i, v, recs[i].Value)
		require.Len(t, recs[i].Headers, 1)
		assert.True(t, bytes.Equal(v, recs[i].Headers[0].Value), "header %d: want %q, got %q", i, v, recs[i].Headers[0].Value)
	}
}

// jsonRawString writes b as a JSON string: control bytes and the JSON
// specials escaped, every other byte (invalid UTF-8 included) as it is.
func jsonRawString(b []byte) string {
	var s strings.Builder
	s.WriteByte('"')
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			s.WriteByte('\\')
			s.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&s, `\u%04x`, c)
		default:
			s.WriteByte(c)
		}
	}
	s.WriteByte('"')
	return s.String()
}

// TestBadInputBinaryBytesFile checks the file format byte for byte,
// newlines and a trailing CR included.
func TestBadInputBinaryBytesFile(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	dir := t.TempDir()
	vals := append(binaryValues(), []byte("line\nline\r\n"), []byte("\n"))
	var files []string
	for i, v := range vals {
		files = append(files, kafkatest.WriteFile(t, dir, fmt.Sprintf("f%d.bin", i), v))
	}
	res := produceTo(t, c, nil, append([]string{"-t", "t", "-p", "2", "-f", "file"}, files...)...)
	require.Equal(t, 0, res.Code, res.Stderr)
	recs := kafkatest.ByOffset(kafkatest.ConsumeExactly(t, c, "t", len(vals)))
	for i, v := range vals {
		assert.True(t, bytes.Equal(v, recs[i].Value), "file %d: want %q, got %q", i, v, recs[i].Value)
	}
}

// TestBadInputMalformedJSON checks that each malformed JSON record fails
// on its own, with its line number and what is wrong, while the good
// records around it are delivered.
func TestBadInputMalformedJSON(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	bad := []struct{ line, reason string }{
		{`{"value":"unterminated"`, `expected ',' or '}'`},
		{`{"value":x}`, `expected a value`},
		{`[1,2]`, `expected a JSON object`},
		{`{"value":"a"} trailing`, `unexpected data after the object`},
		{`{"key":"no value"}`, `no "value"`},
		{`{"value":"bad escape \q"}`, `invalid escape`},
		{`{"partition":"x","value":"v"}`, `invalid number`},
		{`{"partition":99999999999,"value":"v"}`, `partition 99999999999 is out of range`},
		{`{"timestamp":-5,"value":"v"}`, `timestamp -5 is out of range`},
		{`{"headers":5,"value":"v"}`, `headers must be an object or a list`},
		{`{"value":` + deep + `}`, `nested more than`},
		{"{\"value\":\"v\"\x00}", `expected ',' or '}'`},
		{`null`, `expected a JSON object`},
		{`{`, ``},
	}
	var in strings.Builder
	for i, b := range bad {
		fmt.Fprintf(&in, "{\"value\":\"good-%d\"}\n%s\n", i, b.line)
	}
	res := produceTo(t, c, strings.NewReader(in.String()), "-t", "t", "-f", "json")
	require.Equal(t, 1, res.Code, res.Stderr)
	assert.Len(t, kafkatest.Lines(res.Stdout), len(bad))
	errs := kafkatest.Lines(res.Stderr)
	require.Len(t, errs, len(bad)+1, res.Stderr)
	for i, b := range bad {
		assert.Regexp(t, fmt.Sprintf(`^error: -:%d: t/-1: malformed JSON at byte \d+: .*%s`, 2*i+2, regexp.QuoteMeta(b.reason)), errs[i])
	}
	assert.Equal(t, fmt.Sprintf("%d delivered, %d failed", len(bad), len(bad)), errs[len(bad)])
	recs := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", len(bad)))
	for i := range bad {
		assert.Contains(t, recs, fmt.Sprintf("good-%d", i))
	}
}

// TestBadInputEmpty checks that an input without records exits 0 with no
// report at all and produces nothing.
func TestBadInputEmpty(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	dir := t.TempDir()
	empty := kafkatest.WriteFile(t, dir, "empty", nil)
	blank := kafkatest.WriteFile(t, dir, "blank.jsonl", []byte("\n  \n\t\n"))
	cases := []struct {
		name  string
		stdin string
		args  []string
	}{
		{"lines from stdin", "", nil},
		{"lines from an empty file", "", []string{empty}},
		{"json from stdin", "", []string{"-f", "json"}},
		{"json of blank lines", "", []string{"-f", "json", blank}},
		{"skipped empty lines", "\n\n\n", []string{"--skip-empty"}},
		{"an empty file skipped", "", []string{"-f", "file", "--skip-empty", empty}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := produceTo(t, c, strings.NewReader(tc.stdin), append([]string{"-t", "t"}, tc.args...)...)
			assert.Equal(t, 0, res.Code, res.Stderr)
			assert.Empty(t, res.Stdout)
			assert.Empty(t, res.Stderr)
		})
	}
	kafkatest.RequireEmpty(t, c, "t")
}
