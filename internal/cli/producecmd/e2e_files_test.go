package producecmd_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// positionTemplate prints "SOURCE:N TOPIC/PARTITION@OFFSET" per record.
const positionTemplate = `%s:%n %t/%p@%o\n`

// positionsOf maps each report of positionTemplate to the stored record
// it names.
func positionsOf(t testing.TB, stdout string, recs []*kgo.Record) map[string]*kgo.Record {
	t.Helper()
	at := recordAt(recs)
	out := map[string]*kgo.Record{}
	for _, l := range kafkatest.Lines(stdout) {
		pos, where, ok := strings.Cut(l, " ")
		require.True(t, ok, "report %q", l)
		r := at[where]
		require.NotNil(t, r, "report %q names no stored record", l)
		_, dup := out[pos]
		require.False(t, dup, "position %s reported twice", pos)
		out[pos] = r
	}
	return out
}

// TestE2EFileFormatOneRecordPerFile checks that each FILE is one record,
// byte for byte, at position FILE:1, with "-" reading stdin among them.
func TestE2EFileFormatOneRecordPerFile(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	dir := t.TempDir()
	blob := []byte("line 1\nline 2\r\n\x00\xff\xfe tail without newline")
	files := []string{
		kafkatest.WriteFile(t, dir, "blob.bin", blob),
		kafkatest.WriteFile(t, dir, "empty", nil),
		"-",
		kafkatest.WriteFile(t, dir, "text.txt", []byte("hello\n")),
	}
	res := produceTo(t, c, strings.NewReader("from\nstdin\n"),
		append([]string{"-t", "t", "-f", "file", "-k", "fk", "-o", positionTemplate}, files...)...)
	require.Equal(t, 0, res.Code, res.Stderr)
	got := positionsOf(t, res.Stdout, kafkatest.ConsumeExactly(t, c, "t", 4))
	want := map[string][]byte{
		files[0] + ":1": blob,
		files[1] + ":1": {},
		"-:1":           []byte("from\nstdin\n"),
		files[3] + ":1": []byte("hello\n"),
	}
	require.Len(t, got, len(want))
	for pos, v := range want {
		require.Contains(t, got, pos)
		assertNullable(t, v, got[pos].Value, "value of "+pos)
		assert.Equal(t, "fk", string(got[pos].Key))
	}
}

// TestE2ELinesFromSeveralFiles checks that positions count per source, with
// stdin among the files and a last line without its delimiter.
func TestE2ELinesFromSeveralFiles(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	dir := t.TempDir()
	f1 := kafkatest.WriteFile(t, dir, "one.txt", []byte("a1\na2\na3\n"))
	f2 := kafkatest.WriteFile(t, dir, "two.txt", []byte("c1"))
	res := produceTo(t, c, strings.NewReader("b1\nb2\n"), "-t", "t", "-o", positionTemplate, f1, "-", f2)
	require.Equal(t, 0, res.Code, res.Stderr)
	got := positionsOf(t, res.Stdout, kafkatest.ConsumeExactly(t, c, "t", 6))
	want := map[string]string{
		f1 + ":1": "a1", f1 + ":2": "a2", f1 + ":3": "a3",
		"-:1": "b1", "-:2": "b2",
		f2 + ":1": "c1",
	}
	require.Len(t, got, len(want))
	for pos, v := range want {
		require.Contains(t, got, pos)
		assert.Equal(t, v, string(got[pos].Value), pos)
	}
}

// TestE2ECountStopsReading checks that -c N produces N records and reads
// no further than the Nth record's delimiter.
func TestE2ECountStopsReading(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	var chunks [][]byte
	for i := range 10 {
		chunks = append(chunks, []byte(fmt.Sprintf("r%d\n", i)))
	}
	in := &lineFeeder{chunks: chunks, allowed: 3}
	res := produceTo(t, c, in, "-t", "t", "-c", "3")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.False(t, in.wasReadPast(), "input read past the third record")
	assert.Len(t, kafkatest.Lines(res.Stdout), 3)
	recs := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", 3))
	for i := range 3 {
		assert.Contains(t, recs, fmt.Sprintf("r%d", i))
	}
}

// TestE2ECountSpansFiles checks that -c counts records across inputs.
func TestE2ECountSpansFiles(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	dir := t.TempDir()
	f1 := kafkatest.WriteFile(t, dir, "one.txt", []byte("a1\na2\n"))
	f2 := kafkatest.WriteFile(t, dir, "two.txt", []byte("b1\nb2\nb3\n"))
	res := produceTo(t, c, nil, "-t", "t", "-c", "3", "-o", positionTemplate, f1, f2)
	require.Equal(t, 0, res.Code, res.Stderr)
	got := positionsOf(t, res.Stdout, kafkatest.ConsumeExactly(t, c, "t", 3))
	assert.Len(t, got, 3)
	for _, pos := range []string{f1 + ":1", f1 + ":2", f2 + ":1"} {
		assert.Contains(t, got, pos)
	}
}

// TestE2ESkipEmptyKeepsNumbers checks that --skip-empty skips empty records
// but keeps their numbers, and that without it they are empty values.
func TestE2ESkipEmptyKeepsNumbers(t *testing.T) {
	t.Parallel()
	in := "a\n\n\nb\n\nc"
	t.Run("skip", func(t *testing.T) {
		t.Parallel()
		c := kafkatest.ProducerCluster(t)
		res := produceTo(t, c, strings.NewReader(in), "-t", "t", "--skip-empty", "-o", positionTemplate)
		require.Equal(t, 0, res.Code, res.Stderr)
		got := positionsOf(t, res.Stdout, kafkatest.ConsumeExactly(t, c, "t", 3))
		require.Len(t, got, 3)
		for pos, v := range map[string]string{"-:1": "a", "-:4": "b", "-:6": "c"} {
			require.Contains(t, got, pos)
			assert.Equal(t, v, string(got[pos].Value))
		}
	})
	t.Run("keep", func(t *testing.T) {
		t.Parallel()
		c := kafkatest.ProducerCluster(t)
		res := produceTo(t, c, strings.NewReader(in), "-t", "t", "-o", positionTemplate)
		require.Equal(t, 0, res.Code, res.Stderr)
		got := positionsOf(t, res.Stdout, kafkatest.ConsumeExactly(t, c, "t", 6))
		for i, v := range strings.Split(in, "\n") {
			pos := fmt.Sprintf("-:%d", i+1)
			require.Contains(t, got, pos)
			assertNullable(t, []byte(v), got[pos].Value, pos)
		}
	})
}
