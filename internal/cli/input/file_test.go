package input

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fileOf reads input with the file reader of the options given by args.
func fileOf(t *testing.T, input []byte, args ...string) []gotRecord {
	t.Helper()
	opts := testConfig(t, append([]string{"-t", "t", "-f", "file"}, args...)...)
	rr, err := NewReader(opts, "f.bin", bytes.NewReader(input))
	require.NoError(t, err)
	return readAll(t, rr)
}

func TestFileWholeInputIsOneRecord(t *testing.T) {
	data := []byte("line1\nline2\n\x00\xff\r\n")
	recs := fileOf(t, data)
	require.Len(t, recs, 1)
	assert.Equal(t, data, recs[0].Value)
	assert.Equal(t, int64(1), recs[0].Number)
	assert.Nil(t, recs[0].Key)
	assert.Equal(t, int32(-1), recs[0].Partition)
}

func TestFileLargeInputInSmallReads(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 30000) // 300 kB, several chunks
	opts := testConfig(t, "-t", "t", "-f", "file")
	recs := readAll(t, newFileReader(opts, "f", &chunkReader{data: append([]byte{}, data...), rng: newTestRand()}))
	require.Len(t, recs, 1)
	assert.Equal(t, data, recs[0].Value)
}

func TestFileEmpty(t *testing.T) {
	recs := fileOf(t, nil)
	require.Len(t, recs, 1)
	assert.NotNil(t, recs[0].Value)
	assert.Empty(t, recs[0].Value)
	assert.Empty(t, fileOf(t, nil, "--skip-empty"))
}

func TestFileKeyNullHeaders(t *testing.T) {
	recs := fileOf(t, []byte("DEL"), "-k", "id", "--null", "DEL", "-H", "a=1")
	require.Len(t, recs, 1)
	assert.Equal(t, "id", string(recs[0].Key))
	assert.Nil(t, recs[0].Value)
	assert.Equal(t, []byte("1"), recs[0].Headers[0].Value)
}

func TestFileMaxRecordBytes(t *testing.T) {
	recs := fileOf(t, []byte("12345"), "--max-record-bytes", "5")
	require.Len(t, recs, 1)
	require.NoError(t, recs[0].Err)
	assert.Equal(t, "12345", string(recs[0].Value))

	recs = fileOf(t, []byte("123456"), "--max-record-bytes", "5")
	require.Len(t, recs, 1)
	assert.ErrorIs(t, recs[0].Err, ErrRecordTooLarge)
}

func TestFileTooLargeIsNotReadToTheEnd(t *testing.T) {
	opts := testConfig(t, "-t", "t", "-f", "file", "--max-record-bytes", "1KiB")
	src := &endlessX{n: 1 << 40} // a terabyte that must not be read
	r := newFileReader(opts, "f", src)
	var rec Record
	require.NoError(t, r.Next(&rec))
	assert.ErrorIs(t, rec.Err, ErrRecordTooLarge)
	assert.Greater(t, src.n, int64(1<<40-(1<<20)), "at most the limit and one chunk were read")
	assert.ErrorIs(t, r.Next(&rec), io.EOF)
}

func TestOpenInputs(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	require.NoError(t, os.WriteFile(a, []byte("A"), 0o600))
	stdin := strings.NewReader("S")

	ins, err := Open(nil, stdin)
	require.NoError(t, err)
	require.Len(t, ins, 1)
	assert.Equal(t, "-", ins[0].Name)
	assert.Same(t, stdin, ins[0].R)

	ins, err = Open([]string{a, "-"}, stdin)
	require.NoError(t, err)
	require.Len(t, ins, 2)
	assert.Equal(t, a, ins[0].Name)
	data, err := io.ReadAll(ins[0].R)
	require.NoError(t, err)
	assert.Equal(t, "A", string(data))
	Close(ins)

	for _, bad := range []string{filepath.Join(dir, "missing"), dir} {
		_, err = Open([]string{a, bad}, stdin)
		require.Error(t, err)
		assert.Contains(t, err.Error(), bad)
	}
}

func TestNewRecordReaderUnknownFormat(t *testing.T) {
	_, err := NewReader(&Config{Format: "xml"}, "-", strings.NewReader(""))
	assert.ErrorIs(t, err, ErrUnknownFormat)
}
