package producecmd_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// kcatFilesNote is the note printed once when -P makes each FILE a record.
const kcatFilesNote = "-P with FILE arguments: each FILE is one record, as in kcat (-l reads them as lines)"

// binaryBlob is 3,000 bytes holding newline bytes, as a binary file does.
func binaryBlob() []byte {
	b := make([]byte, 3000)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

// TestE2EKcatFilesAreRecords: with kcat's -P, each FILE argument is one
// record, byte for byte, as kcat sends it (one note on stderr, whatever the
// number of files); -l, -f or a line-splitting option reads them as lines;
// without -P, and from stdin, FILEs are lines as always.
func TestE2EKcatFilesAreRecords(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	dir := t.TempDir()
	blob := binaryBlob()
	require.Equal(t, 12, bytes.Count(blob, []byte("\n")), "the blob holds newlines: 13 lines")
	a := kafkatest.WriteFile(t, dir, "a.bin", blob)
	b := kafkatest.WriteFile(t, dir, "b.txt", []byte("k1:one\nk2:two\n"))

	res := produceTo(t, c, nil, "-P", "-t", "blobs", "-k", "img", a, b)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Len(t, kafkatest.Lines(res.Stdout), 2, "one report per FILE")
	assert.Equal(t, 1, strings.Count(res.Stderr, kcatFilesNote), res.Stderr)
	recs := kafkatest.ConsumeExactly(t, c, "blobs", 2)
	assert.ElementsMatch(t, []string{string(blob), "k1:one\nk2:two\n"}, []string{string(recs[0].Value), string(recs[1].Value)})
	for _, r := range recs {
		assert.Equal(t, "img", string(r.Key))
	}

	for i, args := range [][]string{
		{"-P", "-l"}, {"-P", "-f", "lines"}, {"-P", "-K", ":"}, {"-P", "-D", `\n`}, {"-P", "-l", "-q", "-o", "text"}, {},
	} {
		topic := fmt.Sprintf("lines-%d", i)
		res := produceTo(t, c, nil, append(append([]string{"-t", topic}, args...), b)...)
		require.Equal(t, cmdutil.ExitOK, res.Code, "%v: %s", args, res.Stderr)
		assert.Len(t, kafkatest.Lines(res.Stdout), 2, "%v: the file's two lines", args)
		assert.NotContains(t, res.Stderr, kcatFilesNote, "%v", args)
		kafkatest.ConsumeExactly(t, c, topic, 2)
	}

	res = produceTo(t, c, strings.NewReader("x\ny\n"), "-P", "-t", "stdin")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Len(t, kafkatest.Lines(res.Stdout), 2, "-P from stdin: lines, as kcat reads stdin")
	assert.NotContains(t, res.Stderr, kcatFilesNote)
}

// TestE2EKcatQuiet: kcat's -q prints no report of a delivered record (kcat
// -P prints none) and no warning; a failed record is still reported on
// stderr with its position, and -o beats -q.
func TestE2EKcatQuiet(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader("a\nb\nc\n"), "-P", "-q", "-t", "t", "-X", "batch.num.messages=10")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Empty(t, res.Stdout, "-q: no per-record output")
	assert.Empty(t, res.Stderr, "-q: no warning")
	kafkatest.ConsumeExactly(t, c, "t", 3)

	res = produceTo(t, c, strings.NewReader("ok\ntoo long\n"), "-q", "-t", "t", "--max-record-bytes", "4")
	assert.Equal(t, cmdutil.ExitFailed, res.Code)
	assert.Empty(t, res.Stdout)
	assert.Contains(t, res.Stderr, "error: -:2: ", "a failure is still reported, with its position")
	assert.Contains(t, res.Stderr, "1 delivered, 1 failed")

	res = produceTo(t, c, strings.NewReader("x\n"), "-q", "-o", "json", "-t", "t")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Len(t, kafkatest.ParseJSONReports(t, res.Stdout), 1, "-o beats -q")
}
