package input

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// linesOf reads input with the lines reader of the options given by args.
func linesOf(t *testing.T, input string, bufSize int, args ...string) []gotRecord {
	t.Helper()
	opts := testConfig(t, append([]string{"-t", "t"}, args...)...)
	return readAll(t, newLinesReader(opts, "in", strings.NewReader(input), bufSize))
}

func TestLinesDelimiters(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		input string
		want  []string
	}{
		{"newline", nil, "a\nb\nc\n", []string{"a", "b", "c"}},
		{"no trailing delimiter", nil, "a\nb\nc", []string{"a", "b", "c"}},
		{"empty input", nil, "", []string{}},
		{"only a delimiter", nil, "\n", []string{""}},
		{"empty records", nil, "\n\na\n\n", []string{"", "", "a", ""}},
		{"crlf is kept with a newline delimiter", nil, "a\r\nb\r\n", []string{"a\r", "b\r"}},
		{"crlf delimiter", []string{"-D", `\r\n`}, "a\r\nb\nc\r\n", []string{"a", "b\nc"}},
		{"nul delimiter", []string{"-D", `\0`}, "a\x00b\nc\x00", []string{"a", "b\nc"}},
		{"hex delimiter", []string{"-D", `\x1e`}, "a\x1eb", []string{"a", "b"}},
		{"multi-byte delimiter", []string{"-D", "||"}, "a||b|c||||d|", []string{"a", "b|c", "", "d|"}},
		{"overlapping delimiter", []string{"-D", "aa"}, "xaaay", []string{"x", "ay"}},
		{"nul and invalid utf-8 kept", nil, "\x00\xff\xfe\n\xc3\x28", []string{"\x00\xff\xfe", "\xc3\x28"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, size := range []int{16, 17, 64, inputBufferSize} {
				recs := linesOf(t, tt.input, size, tt.args...)
				assert.Equal(t, tt.want, values(recs), "buffer %d", size)
				for i, r := range recs {
					assert.Equal(t, int64(i+1), r.Number)
					assert.Equal(t, int32(-1), r.Partition)
					assert.Nil(t, r.Key)
				}
			}
		})
	}
}

// TestLinesMatchesSplit compares the reader with strings.Split on random
// inputs, delimiters and buffer sizes, so records and delimiters straddle
// buffer refills in every way.
func TestLinesMatchesSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	delims := []string{"\n", "||", "aa", "aba", "\r\n", "<end>", "0123456789abcdefXYZ"}
	alphabet := []byte("ab|\n\r<end>x")
	for i := 0; i < 400; i++ {
		delim := delims[i%len(delims)]
		n := rng.IntN(300)
		b := make([]byte, n)
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		input := string(b)
		want := strings.Split(input, delim)
		if want[len(want)-1] == "" { // the input ends with a delimiter (or is empty)
			want = want[:len(want)-1]
		}
		size := 16 + rng.IntN(40)
		opts := testConfig(t, "-t", "t", "-D", delim)
		r := newLinesReader(opts, "in", &chunkReader{data: b, rng: rng}, size)
		got := values(readAll(t, r))
		require.Equal(t, want, got, "input %q delim %q buffer %d", input, delim, size)
	}
}

// chunkReader returns its data in random small pieces, as a pipe does.
type chunkReader struct {
	data []byte
	rng  *rand.Rand
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data), 1+c.rng.IntN(7))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func TestLinesSkipEmptyKeepsNumbers(t *testing.T) {
	recs := linesOf(t, "a\n\nb\n\n\nc", 16, "--skip-empty")
	assert.Equal(t, []string{"a", "b", "c"}, values(recs))
	assert.Equal(t, []int64{1, 3, 6}, numbers(recs))

	recs = linesOf(t, "a\n\nb", 16)
	assert.Equal(t, []string{"a", "", "b"}, values(recs))
	require.NotNil(t, recs[1].Value, "an empty line is an empty value, not null")
}

func TestLinesKeys(t *testing.T) {
	type kv struct{ key, value *string }
	s := func(v string) *string { return &v }
	tests := []struct {
		name  string
		args  []string
		input string
		want  []kv
	}{
		{"no key", nil, "v\n", []kv{{nil, s("v")}}},
		{"split at the first key delimiter", []string{"-K", `\t`}, "k\tv\tw\n", []kv{{s("k"), s("v\tw")}}},
		{"no key delimiter: null key", []string{"-K", ":"}, "v\n", []kv{{nil, s("v")}}},
		{"-k for every record", []string{"-k", "dk"}, "v\n", []kv{{s("dk"), s("v")}}},
		{"-k for lines without the key delimiter", []string{"-K", ":", "-k", "dk"}, "a:b\nc\n", []kv{{s("a"), s("b")}, {s("dk"), s("c")}}},
		{"empty key and value", []string{"-K", ":"}, ":\n", []kv{{s(""), s("")}}},
		{"multi-byte key delimiter", []string{"-K", "::"}, "a:b::c\n", []kv{{s("a:b"), s("c")}}},
		{"null value", []string{"--null", "NULL"}, "NULL\nx\n", []kv{{nil, nil}, {nil, s("x")}}},
		{"null key and value after splitting", []string{"-K", "=", "--null", "-"}, "-=-\n-=v\nk=-\n", []kv{{nil, nil}, {nil, s("v")}, {s("k"), nil}}},
		{"null marker is the whole field", []string{"-K", "=", "--null", "N"}, "NN=N\n", []kv{{s("NN"), nil}}},
		{"empty null marker", []string{"--null", ""}, "\nx\n", []kv{{nil, nil}, {nil, s("x")}}},
		{"-k is not nulled", []string{"-k", "N", "--null", "N"}, "v\n", []kv{{s("N"), s("v")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := linesOf(t, tt.input, 64, tt.args...)
			require.Len(t, recs, len(tt.want))
			for i, w := range tt.want {
				assertBytes(t, w.key, recs[i].Key, "key %d", i)
				assertBytes(t, w.value, recs[i].Value, "value %d", i)
			}
		})
	}
}

// assertBytes checks b against want, nil meaning null.
func assertBytes(t *testing.T, want *string, b []byte, msgAndArgs ...any) {
	t.Helper()
	if want == nil {
		assert.Nil(t, b, msgAndArgs...)
		return
	}
	if assert.NotNil(t, b, msgAndArgs...) {
		assert.Equal(t, *want, string(b), msgAndArgs...)
	}
}

func TestLinesHeaders(t *testing.T) {
	recs := linesOf(t, "a\n", 64, "-H", "h1=v1", "-H", "h2=x=y", "-H", "h3=")
	require.Len(t, recs, 1)
	assert.Equal(t, []protocol.Header{{Key: "h1", Value: []byte("v1")}, {Key: "h2", Value: []byte("x=y")}, {Key: "h3", Value: []byte{}}}, recs[0].Headers)
}

func TestLinesMaxRecordBytes(t *testing.T) {
	for _, size := range []int{16, 64, inputBufferSize} {
		recs := linesOf(t, "12345\n123456\n1234\n1234567890123456789012345678901234567890\nok", size, "--max-record-bytes", "5")
		require.Len(t, recs, 5, "buffer %d", size)
		assert.Equal(t, []string{"12345", "<err>", "1234", "<err>", "ok"}, values(recs))
		assert.Equal(t, []int64{1, 2, 3, 4, 5}, numbers(recs))
		assert.ErrorIs(t, recs[1].Err, ErrRecordTooLarge)
		assert.Contains(t, recs[1].Err.Error(), "6 bytes")
		// Reported as soon as the bytes read show it is too large: with a
		// small buffer, before its end is read.
		assert.ErrorIs(t, recs[3].Err, ErrRecordTooLarge)
		assert.Contains(t, recs[3].Err.Error(), "more than --max-record-bytes 5")
	}
	// The limit counts the raw line, key included.
	recs := linesOf(t, "k:123\nk:1234\n", 16, "--max-record-bytes", "5", "-K", ":")
	assert.Equal(t, []string{"123", "<err>"}, values(recs))
	// A final record without a delimiter is checked too.
	recs = linesOf(t, "a\n123456", 16, "--max-record-bytes", "5")
	assert.Equal(t, []string{"a", "<err>"}, values(recs))
}

// endlessX yields n bytes of 'x' and then tail, without holding them.
type endlessX struct {
	n    int64
	tail []byte
}

func (e *endlessX) Read(p []byte) (int, error) {
	if e.n > 0 {
		k := int(min(int64(len(p)), e.n))
		for i := range p[:k] {
			p[i] = 'x'
		}
		e.n -= int64(k)
		return k, nil
	}
	if len(e.tail) == 0 {
		return 0, io.EOF
	}
	k := copy(p, e.tail)
	e.tail = e.tail[k:]
	return k, nil
}

func TestLinesOversizeRecordUsesBoundedMemory(t *testing.T) {
	const huge = 64 << 20
	opts := testConfig(t, "-t", "t")
	src := &endlessX{n: huge, tail: []byte("\nok\n")}
	r := newLinesReader(opts, "in", src, inputBufferSize)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var rec Record
	require.NoError(t, r.Next(&rec))
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, rec.Err, ErrRecordTooLarge)
	assert.Contains(t, rec.Err.Error(), "more than --max-record-bytes 1048576: no delimiter in its first")
	assert.Equal(t, int64(1), rec.Number)
	assert.Less(t, huge-src.n, int64(1<<20+2*inputBufferSize), "reported once the limit is crossed, not at the record's end")
	// The read buffer (1 MiB) and at most the 1 MiB limit are held, never
	// the 64 MiB record.
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8<<20))

	require.NoError(t, r.Next(&rec))
	assert.NoError(t, rec.Err)
	assert.Equal(t, "ok", string(rec.Value))
	assert.Equal(t, int64(2), rec.Number)
	assert.ErrorIs(t, r.Next(&rec), io.EOF)
}

func TestLinesLargeRecordWithinLimit(t *testing.T) {
	big := strings.Repeat("y", 1000)
	recs := linesOf(t, "a\n"+big+"\nb", 16, "--max-record-bytes", "1000")
	assert.Equal(t, []string{"a", big, "b"}, values(recs))
}

// repeatReader repeats its data forever.
type repeatReader struct {
	data []byte
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], r.data[r.off:])
		n += k
		r.off = (r.off + k) % len(r.data)
	}
	return n, nil
}

func TestLinesNextDoesNotAllocate(t *testing.T) {
	opts := testConfig(t, "-t", "t", "-K", ":", "-H", "a=b")
	r := newLinesReader(opts, "in", &repeatReader{data: []byte("key:value\n")}, 4096)
	var rec Record
	allocs := testing.AllocsPerRun(10000, func() {
		if err := r.Next(&rec); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
	assert.Equal(t, "value", string(rec.Value))
}

func TestLinesPromptOnPipe(t *testing.T) {
	pr, pw := io.Pipe()
	opts := testConfig(t, "-t", "t", "-D", "||")
	r := newLinesReader(opts, "-", pr, inputBufferSize)
	next := func() (string, error) {
		type result struct {
			v   string
			err error
		}
		ch := make(chan result, 1)
		go func() {
			var rec Record
			err := r.Next(&rec)
			ch <- result{string(rec.Value), err}
		}()
		select {
		case res := <-ch:
			return res.v, res.err
		case <-time.After(10 * time.Second): // a hang guard, not a timing check
			t.Fatal("Next did not return after its delimiter was written")
			return "", nil
		}
	}
	go func() {
		_, _ = pw.Write([]byte("a||b|"))
	}()
	v, err := next()
	require.NoError(t, err)
	assert.Equal(t, "a", v)
	go func() {
		_, _ = pw.Write([]byte("|"))
	}()
	v, err = next()
	require.NoError(t, err)
	assert.Equal(t, "b", v)
	go func() {
		_, _ = pw.Write([]byte("c"))
		_ = pw.Close()
	}()
	v, err = next()
	require.NoError(t, err)
	assert.Equal(t, "c", v)
	_, err = next()
	assert.ErrorIs(t, err, io.EOF)
}

// failingReader returns data and then an error.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) > 0 {
		n := copy(p, f.data)
		f.data = f.data[n:]
		return n, nil
	}
	return 0, f.err
}

func TestLinesReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	opts := testConfig(t, "-t", "t")
	r := newLinesReader(opts, "in", &failingReader{data: []byte("a\nb"), err: boom}, 64)
	var rec Record
	require.NoError(t, r.Next(&rec))
	assert.Equal(t, "a", string(rec.Value))
	assert.ErrorIs(t, r.Next(&rec), boom)
}

func TestLinesRecordSliceReuse(t *testing.T) {
	// Records that fit the buffer point into it; the test only relies on
	// values being right at the time they are returned.
	opts := testConfig(t, "-t", "t")
	r := newLinesReader(opts, "in", bytes.NewReader([]byte("one\ntwo\n")), 64)
	var rec Record
	require.NoError(t, r.Next(&rec))
	assert.Equal(t, "one", string(rec.Value))
	require.NoError(t, r.Next(&rec))
	assert.Equal(t, "two", string(rec.Value))
}
