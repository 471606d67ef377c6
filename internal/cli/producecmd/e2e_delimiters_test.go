package producecmd_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestE2EDelimiters checks record and key delimiters end to end: multi-byte,
// NUL, CRLF, and CR kept by the default delimiter.
func TestE2EDelimiters(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		input string
		args  []string
		want  []string // key=value, or value without a key
	}{
		{"multi-byte", "k1::a||k2::b||c", []string{"-D", "||", "-K", "::"}, []string{"k1=a", "k2=b", "c"}},
		{"NUL", "a\x00b\x00", []string{"-D", `\0`}, []string{"a", "b"}},
		{"CRLF", "a\r\nb\r\n", []string{"-D", `\r\n`}, []string{"a", "b"}},
		{"CR kept", "a\r\nb\r\n", nil, []string{"a\r", "b\r"}},
		{"hex", "aXbXc", []string{"-D", `\x58`}, []string{"a", "b", "c"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := kafkatest.ProducerCluster(t)
			res := produceTo(t, c, strings.NewReader(tc.input), append([]string{"-t", "t", "-p", "0"}, tc.args...)...)
			require.Equal(t, 0, res.Code, res.Stderr)
			recs := kafkatest.ByOffset(kafkatest.ConsumeExactly(t, c, "t", len(tc.want)))
			for i, w := range tc.want {
				assert.Equal(t, w, joinKV(recs[i].Key, recs[i].Value), "record %d", i+1)
			}
		})
	}
}

// TestE2EJSONReportEscapesSource checks that the json report of a file with
// quotes, backslashes and control bytes in its name is valid JSON naming
// the file.
func TestE2EJSONReportEscapesSource(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	path := kafkatest.WriteFile(t, t.TempDir(), "we\"ird\\na\tme.txt", []byte("x\n"))
	res := produceTo(t, c, nil, "-t", "t", "-o", "json", path)
	require.Equal(t, 0, res.Code, res.Stderr)
	reps := kafkatest.ParseJSONReports(t, res.Stdout)
	require.Len(t, reps, 1)
	assert.Equal(t, path, reps[0].Source)
	kafkatest.ConsumeExactly(t, c, "t", 1)
}
