package input

import (
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readAllBatches reads every record of rr with ReadBatch (at most max per
// batch), keeping copies made only after each whole batch was read, so
// that a record overwritten within its batch shows; it also returns the
// batch sizes.
func readAllBatches(t testing.TB, rr Reader, max int) ([]gotRecord, []int) {
	t.Helper()
	var out []gotRecord
	var sizes []int
	var b Batch
	for {
		err := ReadBatch(rr, &b, max)
		if errors.Is(err, io.EOF) {
			require.Empty(t, b.Records)
			return out, sizes
		}
		require.NoError(t, err)
		require.NotEmpty(t, b.Records)
		require.LessOrEqual(t, len(b.Records), max)
		sizes = append(sizes, len(b.Records))
		for i := range b.Records {
			out = append(out, copyRecord(&b.Records[i]))
		}
	}
}

// TestReadBatchMatchesNext: on random inputs, delimiters, buffer sizes
// and options, the records of ReadBatch are those of Next, one by one,
// and a batch still holds all of its records once read whole.
func TestReadBatchMatchesNext(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	flags := [][]string{
		{"-D", "\n"}, {"-D", "||", "--skip-empty"}, {"-D", "\n", "-K", ":"}, {"-D", "\n", "--max-record-bytes", "5"},
		{"-D", "\n", "--null", "n", "-H", "h=1"},
	}
	alphabet := []byte("ab:|\nn")
	for i := 0; i < 400; i++ {
		b := make([]byte, rng.IntN(300))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		args := append([]string{"-t", "t"}, flags[i%len(flags)]...)
		size := 16 + rng.IntN(40)
		want := readAll(t, newLinesReader(testConfig(t, args...), "in", &chunkReader{data: b, rng: rand.New(rand.NewPCG(uint64(i), 0))}, size))
		got, _ := readAllBatches(t, newLinesReader(testConfig(t, args...), "in", &chunkReader{data: b, rng: rand.New(rand.NewPCG(uint64(i), 0))}, size), 1+i%9)
		require.Equal(t, want, got, "input %q flags %q buffer %d", b, args, size)
	}
}

// TestReadBatchJSONMatchesNext: json records, parsed one after the other
// into the same scratch, are copied into the batch: a whole batch holds
// the records Next returns one by one, headers and escapes included.
func TestReadBatchJSONMatchesNext(t *testing.T) {
	lines := []string{
		`{"topic":"a","key":"k1","value":"v\u00e91","headers":{"h":"x","g":["1","2"]}}`,
		`{"value":null,"key":null}`,
		``,
		`{"value":"` + strings.Repeat("long", 5000) + `"}`,
		`{"value":"","partition":2,"timestamp":7}`,
		`{bad json`,
		`{"topic":"b","value":{"nested":[1,2]},"headers":[{"key":"h","value":null}]}`,
	}
	data := []byte(strings.Join(append(lines, lines...), "\n"))
	args := []string{"-f", "json", "-H", "f=1"}
	want := readAll(t, newJSONReader(testConfig(t, args...), "in", strings.NewReader(string(data)), 1<<16))
	got, sizes := readAllBatches(t, newJSONReader(testConfig(t, args...), "in", strings.NewReader(string(data)), 1<<16), 100)
	require.Equal(t, want, got)
	assert.Less(t, len(sizes), len(want), "several records per batch")
}

// TestReadBatchDoesNotWaitForMoreInput: a batch is what one read brought;
// ReadBatch never reads again to fill it, so a record on a pipe is handed
// on at once.
func TestReadBatchDoesNotWaitForMoreInput(t *testing.T) {
	src := &onceReader{t: t, data: []byte("a\nb\nc\npartial")}
	r := newLinesReader(testConfig(t, "-t", "t"), "-", src, 64)
	var b Batch
	require.NoError(t, ReadBatch(r, &b, 100))
	var got []string
	for _, rec := range b.Records {
		got = append(got, string(rec.Value))
	}
	assert.Equal(t, []string{"a", "b", "c"}, got, "the buffered records, not the partial one")
	assert.Equal(t, 1, src.reads)

	require.NoError(t, ReadBatch(r, &b, 2))
	assert.Len(t, b.Records, 1)
	assert.Equal(t, "partial", string(b.Records[0].Value), "the second read ended the input")
}

// onceReader gives its data in one read, then the end of the input on the
// second; a third read fails the test.
type onceReader struct {
	t     *testing.T
	data  []byte
	reads int
}

func (o *onceReader) Read(p []byte) (int, error) {
	o.reads++
	switch o.reads {
	case 1:
		return copy(p, o.data), nil
	case 2:
		return 0, io.EOF
	}
	o.t.Fatal("read past the end")
	return 0, nil
}

// TestReadBatchFileIsOneRecord: a reader without a read buffer gives one
// record per batch.
func TestReadBatchFileIsOneRecord(t *testing.T) {
	r := newFileReader(testConfig(t, "-f", "file"), "f", strings.NewReader("whole\nfile"))
	got, sizes := readAllBatches(t, r, 10)
	assert.Equal(t, []string{"whole\nfile"}, values(got))
	assert.Equal(t, []int{1}, sizes)
}
