package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"maps"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testOptions = map[string]string{"format": "lines", "delimiter": `\n`}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestMarshalParse(t *testing.T) {
	tr := NewTracker("load-1", []string{"a.txt", "-"}, testOptions)
	_, _ = tr.Tap(0).Write([]byte("one\ntwo\n"))
	tr.Record(0, 1)
	tr.Record(0, 2)
	tr.Complete(0)
	_, _ = tr.Tap(1).Write([]byte("x\n"))
	tr.Record(1, 1)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cp := tr.Checkpoint(false, now)
	// a.txt, read to its end before "-" was begun, is folded.
	folded := sha(entry("a.txt", []byte("one\ntwo\n")))
	want := &Checkpoint{Version: 2, TransactionalID: "load-1", Options: testOptions, Records: 3, Transactions: 1,
		Written: "2026-01-02T03:04:05Z",
		Folded:  &Folded{Count: 1, Bytes: 8, SHA256: folded, GroupSize: 1, Groups: []string{folded}},
		Sources: []Source{{Name: "-", Records: 1, Bytes: 2, SHA256: sha([]byte("x\n"))}}}
	assert.Equal(t, want, cp)
	got, err := Parse(cp.Marshal(), "load-1")
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Contains(t, string(cp.Marshal()), `"folded":{"count":1,"bytes":8,"sha256":"`+folded+`","group_size":1,"groups":["`)
	assert.Contains(t, string(cp.Marshal()), `"sources":[{"name":"-","records":1,"bytes":2,"sha256":"`)

	tr.Committed()
	assert.Equal(t, int64(2), tr.Checkpoint(true, now).Transactions)
	final := tr.Final(now)
	assert.True(t, final.Done)
	assert.Equal(t, int64(1), final.Transactions, "a transaction of the checkpoint alone is not counted")
}

func TestParseRejects(t *testing.T) {
	good := &Checkpoint{Version: 1, TransactionalID: "id", Transactions: 1,
		Sources: []Source{{Name: "a", Records: 1, Bytes: 2, SHA256: sha([]byte("a\n"))}}}
	tests := []struct {
		name  string
		edit  func(*Checkpoint)
		value []byte
		want  string
	}{
		{name: "not json", value: []byte("{"), want: "malformed checkpoint"},
		{name: "other version", edit: func(c *Checkpoint) { c.Version = 3 }, want: "version 3 (this kproduce reads versions 1 to 2)"},
		{name: "other id", edit: func(c *Checkpoint) { c.TransactionalID = "other" }, want: `written for transactional id "other"`},
		{name: "bad hash", edit: func(c *Checkpoint) { c.Sources[0].SHA256 = "abc" }, want: `source 1 ("a")`},
		{name: "negative bytes", edit: func(c *Checkpoint) { c.Sources[0].Bytes = -1 }, want: "-1 bytes"},
		{name: "negative transactions", edit: func(c *Checkpoint) { c.Transactions = -1 }, want: "-1 transactions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			value := tt.value
			if tt.edit != nil {
				c := *good
				c.Sources = append([]Source(nil), good.Sources...)
				tt.edit(&c)
				value = c.Marshal()
			}
			_, err := Parse(value, "id")
			assert.ErrorIs(t, err, ErrMalformed)
			assert.ErrorContains(t, err, tt.want)
		})
	}
	_, err := Parse(good.Marshal(), "id")
	assert.NoError(t, err)
}

func TestPartitionIsKafkasDefault(t *testing.T) {
	// murmur2 vectors from Kafka's tests: (h & 0x7fffffff) % n.
	assert.Equal(t, int32((-790332482&0x7fffffff)%7), Partition("foobar", 7))
	assert.Equal(t, int32((479470107&0x7fffffff)%10), Partition("abc", 10))
	assert.Equal(t, int32(0), Partition("anything", 1))
	assert.Equal(t, int32(-1), Partition("x", 0))
}

// skipSource is a checkpoint source for the first n bytes of data.
func skipSource(name string, data []byte, n int, complete bool) *Source {
	return &Source{Name: name, Records: int64(bytes.Count(data[:n], []byte("\n"))), Bytes: int64(n), SHA256: sha(data[:n]), Complete: complete}
}

func TestSkip(t *testing.T) {
	data := []byte("r1\nr2\nr3\nr4\n")
	t.Run("matching prefix, then go on hashing", func(t *testing.T) {
		r := bytes.NewReader(data)
		h, err := Skip(r, skipSource("f", data, 6, false), 1)
		require.NoError(t, err)
		rest, _ := io.ReadAll(r)
		assert.Equal(t, "r3\nr4\n", string(rest), "the reader stands right after the committed part")
		h.Write(rest)
		assert.Equal(t, sha(data), hex.EncodeToString(h.Sum(nil)), "the hash covers the whole prefix")
	})
	t.Run("complete source", func(t *testing.T) {
		_, err := Skip(bytes.NewReader(data), skipSource("f", data, len(data), true), 1)
		assert.NoError(t, err)
	})
	tests := []struct {
		name  string
		input []byte
		src   *Source
		want  string
	}{
		{"changed", []byte("r1\nXX\nr3\n"), skipSource("f", data, 6, false),
			"f (input 2): its first 6 bytes (records 1 to 2) are not the bytes the earlier run committed"},
		{"shorter", data[:4], skipSource("f", data, 9, false),
			"f (input 2): ends at byte 4, before the 9 bytes (3 records) the earlier run committed"},
		{"grown", append(append([]byte{}, data...), "r5\n"...), skipSource("f", data, len(data), true),
			"f (input 2): has grown: the earlier run read it to its end at byte 12"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Skip(bytes.NewReader(tt.input), tt.src, 2)
			require.ErrorIs(t, err, ErrMismatch)
			var m *MismatchError
			require.ErrorAs(t, err, &m)
			assert.Equal(t, "f", m.Source)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// patternReader yields n bytes of repeated lines without holding them.
type patternReader struct{ left int64 }

func (p *patternReader) Read(b []byte) (int, error) {
	if p.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(b)), p.left)
	for i := range b[:n] {
		b[i] = "0123456789abcde\n"[i%16]
	}
	p.left -= n
	return int(n), nil
}

func TestSkipStreams(t *testing.T) {
	const size = 256 << 20
	h := sha256.New()
	_, err := io.Copy(h, &patternReader{left: size})
	require.NoError(t, err)
	src := &Source{Name: "-", Records: size / 16, Bytes: size, SHA256: hex.EncodeToString(h.Sum(nil))}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = Skip(&patternReader{left: size + 100}, src, 1)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "skipping 256 MiB allocates one buffer, not the input")
}

func TestCheckInputs(t *testing.T) {
	cp := &Checkpoint{Options: testOptions, Sources: []Source{{Name: "a"}, {Name: "b"}}}
	assert.NoError(t, CheckInputs(cp, []string{"a", "b"}, testOptions))
	assert.NoError(t, CheckInputs(cp, []string{"a", "b", "c"}, testOptions), "more inputs: the load goes on to them")
	more := maps.Clone(testOptions)
	more["topic"] = "t"
	assert.NoError(t, CheckInputs(cp, []string{"a", "b"}, more), "an option the earlier kproduce did not record is not compared")
	tests := []struct {
		name    string
		done    bool
		names   []string
		options map[string]string
		want    string
	}{
		{name: "options", names: []string{"a", "b"}, options: map[string]string{"format": "json", "delimiter": `\n`},
			want: `--format was "lines" in the earlier run, "json" now`},
		{name: "missing option", names: []string{"a", "b"}, options: map[string]string{"format": "lines"},
			want: `--delimiter was "\\n" in the earlier run, "" now`},
		{name: "fewer inputs", names: []string{"a"}, options: testOptions,
			want: "the earlier run read 2 inputs (a, b), this run names 1"},
		{name: "renamed", names: []string{"a", "c"}, options: testOptions,
			want: "c (input 2): the earlier run read b as input 2"},
		{name: "finished", done: true, names: []string{"a", "b", "c"}, options: testOptions,
			want: "the earlier run finished its load of 2 inputs (a, b), this run names 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := *cp
			c.Done = tt.done
			err := CheckInputs(&c, tt.names, tt.options)
			assert.ErrorIs(t, err, ErrMismatch)
			assert.ErrorContains(t, err, tt.want)
			assert.False(t, strings.HasPrefix(err.Error(), ": "))
		})
	}
}

// BenchmarkSkip measures checking a committed prefix: reading it (from
// memory here) and hashing it.
func BenchmarkSkip(b *testing.B) {
	data, _ := io.ReadAll(&patternReader{left: 64 << 20})
	src := &Source{Name: "-", Bytes: int64(len(data)), SHA256: sha(data)}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Skip(bytes.NewReader(data), src, 1); err != nil {
			b.Fatal(err)
		}
	}
}
