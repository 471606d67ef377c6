package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// entry is the bytes a folded source adds to the folded hashes: the
// length of its name, its name, its length and the SHA-256 of its bytes.
func entry(name string, data []byte) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint64(b, uint64(len(name)))
	b = append(b, name...)
	b = binary.BigEndian.AppendUint64(b, uint64(len(data)))
	sum := sha256.Sum256(data)
	return append(b, sum[:]...)
}

// testLoad is n small sources of one to three lines each.
type testLoad struct {
	names []string
	data  [][]byte
}

func newTestLoad(n int) *testLoad {
	l := &testLoad{}
	for i := range n {
		l.names = append(l.names, fmt.Sprintf("dir/part-%05d.txt", i))
		var b strings.Builder
		for k := range 1 + i%3 {
			fmt.Fprintf(&b, "%d.%d\n", i, k+1)
		}
		l.data = append(l.data, []byte(b.String()))
	}
	return l
}

// lines are the lines of source i, delimiters included.
func (l *testLoad) lines(i int) [][]byte {
	lines := bytes.SplitAfter(l.data[i], []byte("\n"))
	return lines[:len(lines)-1] // the empty one after the last delimiter
}

// feed reads the load through tr as a run does, from source i after its
// first skip lines, until limit records were read by tr (0: to the end).
// It returns where it stopped: the source and the lines read of it.
func (l *testLoad) feed(tr *Tracker, i, skip int, limit int64) (int, int) {
	for ; i < len(l.data); i, skip = i+1, 0 {
		for k, line := range l.lines(i)[skip:] {
			if limit > 0 && tr.Records() >= limit {
				return i, skip + k
			}
			_, _ = tr.Tap(i).Write(line)
			tr.Record(i, int64(skip+k+1))
		}
		tr.Complete(i)
	}
	return i, 0
}

// input is source i as a reader.
func (l *testLoad) input(i int) io.Reader { return bytes.NewReader(l.data[i]) }

// resume takes up cp in a new tracker, as a resumed run does.
func (l *testLoad) resume(t *testing.T, cp *Checkpoint, input func(int) io.Reader) (*Tracker, error) {
	t.Helper()
	got, err := Parse(cp.Marshal(), "load")
	require.NoError(t, err)
	require.NoError(t, CheckInputs(got, l.names, testOptions))
	tr := NewTracker("load", l.names, testOptions)
	return tr, tr.Resume(got, input)
}

// goOn reads on after cp in tr, as a resumed run does.
func (l *testLoad) goOn(tr *Tracker, cp *Checkpoint) {
	last := cp.Sources[len(cp.Sources)-1]
	from := cp.Begun() - 1
	if last.Complete {
		l.feed(tr, from+1, 0, 0)
		return
	}
	l.feed(tr, from, int(last.Records), 0)
}

func TestFoldedCheckpointStaysSmall(t *testing.T) {
	l := newTestLoad(10_000)
	tr := NewTracker("load", l.names, testOptions)
	l.feed(tr, 0, 0, 0)
	cp := tr.Checkpoint(true, testTime)
	require.NotNil(t, cp.Folded)
	assert.Equal(t, int64(9_999), cp.Folded.Count, "all but the last source begun")
	assert.Equal(t, int64(157), cp.Folded.GroupSize)
	assert.Len(t, cp.Folded.Groups, 64)
	require.Len(t, cp.Sources, 1)
	assert.Equal(t, "dir/part-09999.txt", cp.Sources[0].Name)
	assert.Less(t, len(cp.Marshal()), 6000, "10,000 sources")
	assert.LessOrEqual(t, len(cp.Marshal()), len(tr.Largest().Marshal()))

	var all []byte
	for i, name := range l.names[:9_999] {
		all = append(all, entry(name, l.data[i])...)
	}
	assert.Equal(t, sha(all), cp.Folded.SHA256, "one SHA-256 over the entries of the folded sources")
	var first []byte
	for i := range 157 {
		first = append(first, entry(l.names[i], l.data[i])...)
	}
	assert.Equal(t, sha(first), cp.Folded.Groups[0], "a group is the SHA-256 of its entries")
}

func TestLargestBoundsEveryCheckpoint(t *testing.T) {
	l := newTestLoad(3_000)
	tr := NewTracker("load", l.names, testOptions)
	largest := len(tr.Largest().Marshal())
	i, skip := 0, 0
	for limit := int64(1); limit < 6_000; limit += 97 {
		i, skip = l.feed(tr, i, skip, limit)
		assert.LessOrEqual(t, len(tr.Checkpoint(false, testTime).Marshal()), largest)
	}
	assert.Less(t, largest, 6_000)
}

// TestFoldedResume kills a load of 1,000 sources at many points and
// resumes it: the resumed tracker's checkpoints are those of a load never
// stopped.
func TestFoldedResume(t *testing.T) {
	l := newTestLoad(1_000)
	whole := NewTracker("load", l.names, testOptions)
	l.feed(whole, 0, 0, 0)
	want := whole.Checkpoint(true, testTime)
	for _, stop := range []int64{1, 2, 3, 4, 5, 499, 1000, 1001, 1002, 1998, 1999} {
		t.Run(fmt.Sprint(stop), func(t *testing.T) {
			first := NewTracker("load", l.names, testOptions)
			l.feed(first, 0, 0, stop)
			cp := first.Checkpoint(false, testTime)
			tr, err := l.resume(t, cp, l.input)
			require.NoError(t, err)
			assert.Equal(t, stop, tr.Records())
			l.goOn(tr, cp)
			got := tr.Checkpoint(true, testTime)
			assert.Equal(t, int64(2), got.Transactions, "the first run's and this one's")
			got.Transactions = want.Transactions
			assert.Equal(t, want, got)
		})
	}
}

// TestFoldedMismatch changes one source folded in a checkpoint of 1,000
// sources: the resumed run names the group of 16 inputs it is in.
func TestFoldedMismatch(t *testing.T) {
	l := newTestLoad(1_000)
	first := NewTracker("load", l.names, testOptions)
	l.feed(first, 0, 0, 1500) // into source 750
	cp := first.Checkpoint(false, testTime)
	require.Equal(t, int64(749), cp.Folded.Count)
	require.Equal(t, int64(16), cp.Folded.GroupSize)
	tests := []struct {
		name      string
		input     func(i int) io.Reader
		names     func([]string)
		from, to  int
		wantWhat  string
		wantFirst string
	}{
		{name: "a byte changed", from: 97, to: 112, wantWhat: "the name, the length or the bytes of one of them (at least) differ",
			input: replace(l, 100, []byte("100.X\n100.2\n"))},
		{name: "shorter", from: 1, to: 16, wantWhat: "differ", input: replace(l, 0, nil)},
		{name: "in the last group", from: 737, to: 749, wantWhat: "differ", input: replace(l, 748, []byte("748.1\n748.X\n"))},
		{name: "renamed", from: 17, to: 32, wantWhat: "differ", names: func(n []string) { n[20] = "dir/other.txt" }},
		{name: "much longer", from: 49, to: 51, wantWhat: "the earlier run read the first 749 inputs to their end, 8764 bytes in all; these hold more now",
			input: replace(l, 50, bytes.Repeat([]byte("x\n"), 5000))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := l.input
			if tt.input != nil {
				input = tt.input
			}
			names := append([]string(nil), l.names...)
			if tt.names != nil {
				tt.names(names)
			}
			tr := NewTracker("load", names, testOptions)
			err := tr.Resume(cp, input)
			require.ErrorIs(t, err, ErrMismatch)
			var m *MismatchError
			require.ErrorAs(t, err, &m)
			assert.Equal(t, tt.from, m.Index)
			assert.Equal(t, tt.to, m.LastIndex)
			assert.Equal(t, names[tt.from-1], m.Source)
			assert.Equal(t, names[tt.to-1], m.Last)
			assert.ErrorContains(t, err, fmt.Sprintf("%s to %s (inputs %d to %d): ", names[tt.from-1], names[tt.to-1], tt.from, tt.to))
			assert.ErrorContains(t, err, tt.wantWhat)
			assert.Zero(t, tr.Records(), "nothing is taken up")
		})
	}
}

// replace is the load's input with source i's bytes replaced by data.
func replace(l *testLoad, i int, data []byte) func(int) io.Reader {
	return func(k int) io.Reader {
		if k == i {
			return bytes.NewReader(data)
		}
		return l.input(k)
	}
}

// TestFoldedMismatchOneSource: in a load of at most 64 inputs each group
// is one source, named alone.
func TestFoldedMismatchOneSource(t *testing.T) {
	l := newTestLoad(40)
	first := NewTracker("load", l.names, testOptions)
	l.feed(first, 0, 0, 50)
	cp := first.Checkpoint(false, testTime)
	tr := NewTracker("load", l.names, testOptions)
	err := tr.Resume(cp, replace(l, 7, []byte("7.1\n7.x\n")))
	var m *MismatchError
	require.ErrorAs(t, err, &m)
	assert.Zero(t, m.LastIndex)
	assert.ErrorContains(t, err, "dir/part-00007.txt (input 8): not what the earlier run read to its end: its name, its length or its bytes differ (sha256 ")
	assert.ErrorContains(t, err, ", the earlier run's "+cp.Folded.Groups[7][:12]+")")
}

// TestResumeVersion1 takes up a checkpoint as an earlier kproduce wrote
// it (version 1, one entry per source begun): it is checked source by
// source, then folded, and the load goes on as if never stopped.
func TestResumeVersion1(t *testing.T) {
	l := newTestLoad(300)
	var b strings.Builder
	b.WriteString(`{"version":1,"transactional_id":"load","options":{"delimiter":"\\n","format":"lines"},"sources":[`)
	records := 0
	for i := range 200 {
		lines := len(l.lines(i))
		records += lines
		fmt.Fprintf(&b, `{"name":%q,"records":%d,"bytes":%d,"sha256":%q,"complete":true},`, l.names[i], lines, len(l.data[i]), sha(l.data[i]))
	}
	part := l.lines(200)[0]
	fmt.Fprintf(&b, `{"name":%q,"records":1,"bytes":%d,"sha256":%q,"complete":false}],"records":%d,"transactions":7,"done":false,"written":"2026-01-01T00:00:00Z"}`,
		l.names[200], len(part), sha(part), records+1)
	cp, err := Parse([]byte(b.String()), "load")
	require.NoError(t, err)
	require.Nil(t, cp.Folded)
	require.NoError(t, CheckInputs(cp, l.names, testOptions))

	tr := NewTracker("load", l.names, testOptions)
	require.NoError(t, tr.Resume(cp, l.input))
	next := tr.Checkpoint(false, testTime)
	assert.Equal(t, Version, next.Version)
	assert.Equal(t, int64(200), next.Folded.Count, "the earlier run's sources read to their end are folded")
	assert.Equal(t, []Source{cp.Sources[200]}, next.Sources)

	l.goOn(tr, next)
	whole := NewTracker("load", l.names, testOptions)
	l.feed(whole, 0, 0, 0)
	got, want := tr.Checkpoint(true, testTime), whole.Checkpoint(true, testTime)
	assert.Equal(t, want.Folded, got.Folded)
	assert.Equal(t, want.Sources, got.Sources)
	assert.Equal(t, want.Records, got.Records)

	changed := NewTracker("load", l.names, testOptions)
	err = changed.Resume(cp, replace(l, 150, []byte("other\n")))
	assert.ErrorContains(t, err, "dir/part-00150.txt (input 151): ")
}

func TestParseRejectsFolded(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	good := func() *Checkpoint {
		return &Checkpoint{Version: 2, TransactionalID: "id", Transactions: 1,
			Folded:  &Folded{Count: 5, Bytes: 10, SHA256: sum, GroupSize: 2, Groups: []string{sum, sum, sum}},
			Sources: []Source{{Name: "a", Records: 1, Bytes: 2, SHA256: sum}}}
	}
	_, err := Parse(good().Marshal(), "id")
	require.NoError(t, err)
	tests := []struct {
		name string
		edit func(*Checkpoint)
		want string
	}{
		{"too few groups", func(c *Checkpoint) { c.Folded.Groups = c.Folded.Groups[:2] }, "2 groups of 2"},
		{"too many groups", func(c *Checkpoint) { c.Folded.Count = 4 }, "4 sources"},
		{"no group size", func(c *Checkpoint) { c.Folded.GroupSize = 0 }, "groups of 0"},
		{"no sources", func(c *Checkpoint) { c.Folded.Count, c.Folded.Groups = 0, nil }, "0 sources"},
		{"negative bytes", func(c *Checkpoint) { c.Folded.Bytes = -1 }, "-1 bytes"},
		{"bad group", func(c *Checkpoint) { c.Folded.Groups[1] = "xyz" }, `group 2: sha256 "xyz"`},
		{"bad sha256", func(c *Checkpoint) { c.Folded.SHA256 = sum[:10] }, "sha256"},
		{"no last source", func(c *Checkpoint) { c.Sources = nil }, "5 folded sources and no last source"},
		{"in version 1", func(c *Checkpoint) { c.Version = 1 }, "folded sources in a version 1 checkpoint"},
		{"huge count", func(c *Checkpoint) { c.Folded.Count = 1<<63 - 1 }, "groups of 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := good()
			tt.edit(c)
			_, err := Parse(c.Marshal(), "id")
			assert.ErrorIs(t, err, ErrMalformed)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestCheckInputsFolded(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	cp := &Checkpoint{Options: testOptions, Folded: &Folded{Count: 3, GroupSize: 1, SHA256: sum, Groups: []string{sum, sum, sum}},
		Sources: []Source{{Name: "d"}}}
	assert.NoError(t, CheckInputs(cp, []string{"a", "b", "c", "d"}, testOptions), "the folded names are checked with their bytes")
	assert.EqualError(t, CheckInputs(cp, []string{"a", "b", "c", "x"}, testOptions), "x (input 4): the earlier run read d as input 4")
	assert.ErrorContains(t, CheckInputs(cp, []string{"a", "b", "c"}, testOptions), "the earlier run read 4 inputs (the first 3, then d), this run names 3")
	cp.Done = true
	assert.ErrorContains(t, CheckInputs(cp, []string{"a", "b", "c", "d", "e"}, testOptions),
		"the earlier run finished its load of 4 inputs (the first 3, then d), this run names 5")
}

// TestFoldedResumeMoreInputs: a load not finished may go on to more
// inputs than it named; its folded sources are checked in the earlier
// run's groups and folded on in groups for all of the inputs.
func TestFoldedResumeMoreInputs(t *testing.T) {
	l := newTestLoad(1_000)
	first := NewTracker("load", l.names[:100], testOptions)
	l.feed(first, 0, 0, 150)
	cp := first.Checkpoint(false, testTime)
	require.Equal(t, int64(2), cp.Folded.GroupSize)
	tr, err := l.resume(t, cp, l.input)
	require.NoError(t, err)
	l.goOn(tr, cp)
	whole := NewTracker("load", l.names, testOptions)
	l.feed(whole, 0, 0, 0)
	got, want := tr.Checkpoint(true, testTime), whole.Checkpoint(true, testTime)
	assert.Equal(t, int64(16), got.Folded.GroupSize)
	assert.Equal(t, want.Folded, got.Folded)
	assert.Equal(t, want.Sources, got.Sources)
}
