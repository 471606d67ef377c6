package producecmd_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestE2EKeysUseJavaPartitioner checks that every keyed record lands on the
// partition Java's (and kgo's) murmur2 partitioner picks for its key, and
// that -k keys the lines -K cannot split.
func TestE2EKeysUseJavaPartitioner(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	var in strings.Builder
	const n = 300
	for i := range n {
		if i%10 == 9 {
			fmt.Fprintf(&in, "unsplit-%d\n", i) // no tab: keyed by -k
			continue
		}
		fmt.Fprintf(&in, "key-%d\tvalue-%d\n", i%37, i)
	}
	res := produceTo(t, c, strings.NewReader(in.String()), "-t", "t", "-K", `\t`, "-k", "fallback")
	require.Equal(t, 0, res.Code, res.Stderr)
	require.Len(t, kafkatest.Lines(res.Stdout), n)

	part := kgo.StickyKeyPartitioner(nil).ForTopic("t")
	recs := kafkatest.ConsumeExactly(t, c, "t", n)
	partitions := map[int32]bool{}
	for _, r := range recs {
		want := int32(part.Partition(&kgo.Record{Key: r.Key}, 6))
		assert.Equal(t, want, r.Partition, "key %q value %q", r.Key, r.Value)
		partitions[r.Partition] = true
		if strings.HasPrefix(string(r.Value), "unsplit-") {
			assert.Equal(t, "fallback", string(r.Key))
			continue
		}
		var key, idx int
		_, err := fmt.Sscanf(string(r.Value), "value-%d", &idx)
		require.NoError(t, err)
		_, err = fmt.Sscanf(string(r.Key), "key-%d", &key)
		require.NoError(t, err)
		assert.Equal(t, idx%37, key, "value %q", r.Value)
	}
	assert.Greater(t, len(partitions), 3, "37 keys spread over the partitions")
}

// TestE2EHeaders checks that every -H header reaches every record, in order,
// with '=' allowed in the value and repeated keys kept.
func TestE2EHeaders(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader("one\ntwo\n"), "-t", "t",
		"-H", "trace=abc", "-H", "eq=a=b", "-H", "trace=def", "-H", "empty=")
	require.Equal(t, 0, res.Code, res.Stderr)
	for _, r := range kafkatest.ConsumeExactly(t, c, "t", 2) {
		assert.Equal(t, []string{"trace=abc", "eq=a=b", "trace=def", "empty="}, headerList(r), "record %q", r.Value)
	}
}

// TestE2ENullsAndEmptyValues checks --null on keys and values after -K
// splitting, empty keys and values, and that null and empty stay apart.
func TestE2ENullsAndEmptyValues(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	cases := []struct {
		line       string
		key, value []byte
	}{
		{"k1:v1", []byte("k1"), []byte("v1")},
		{"NULL:v2", nil, []byte("v2")},
		{"k3:NULL", []byte("k3"), nil},
		{"k4:", []byte("k4"), []byte{}},
		{":v5", []byte{}, []byte("v5")},
		{"", nil, []byte{}},
		{"NULL", nil, nil},
		{"NULL:NULL", nil, nil},
		{"k9:NULL:x", []byte("k9"), []byte("NULL:x")},
	}
	var in strings.Builder
	for _, tc := range cases {
		in.WriteString(tc.line + "\n")
	}
	// A fixed partition keeps the input order in the offsets.
	res := produceTo(t, c, strings.NewReader(in.String()), "-t", "t", "-p", "2", "-K", ":", "--null", "NULL")
	require.Equal(t, 0, res.Code, res.Stderr)
	recs := kafkatest.ByOffset(kafkatest.ConsumeExactly(t, c, "t", len(cases)))
	for i, tc := range cases {
		assert.EqualValues(t, 2, recs[i].Partition)
		assertNullable(t, tc.key, recs[i].Key, fmt.Sprintf("key of line %d %q", i+1, tc.line))
		assertNullable(t, tc.value, recs[i].Value, fmt.Sprintf("value of line %d %q", i+1, tc.line))
	}
}

// TestE2ENullMarkerEmptyAndJSON checks an empty --null marker (an empty
// line is a tombstone) and the marker applied to JSON strings.
func TestE2ENullMarkerEmptyAndJSON(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader("k:v\n\n:w\n"), "-t", "t", "-p", "0", "-K", ":", "--null", "")
	require.Equal(t, 0, res.Code, res.Stderr)
	in := `{"key":"NULL","value":"x"}` + "\n" + `{"key":"k","value":"NULL"}` + "\n"
	res = produceTo(t, c, strings.NewReader(in), "-t", "t", "-p", "0", "-f", "json", "--null", "NULL")
	require.Equal(t, 0, res.Code, res.Stderr)
	recs := kafkatest.ByOffset(kafkatest.ConsumeExactly(t, c, "t", 5))
	want := []struct{ key, value []byte }{
		{[]byte("k"), []byte("v")},
		{nil, nil},
		{nil, []byte("w")},
		{nil, []byte("x")},
		{[]byte("k"), nil},
	}
	for i, w := range want {
		assertNullable(t, w.key, recs[i].Key, fmt.Sprintf("key of record %d", i))
		assertNullable(t, w.value, recs[i].Value, fmt.Sprintf("value of record %d", i))
	}
}

// TestE2EBinaryBytesKept checks that NUL bytes, invalid UTF-8 and every
// other byte value are produced byte for byte, in keys and values.
func TestE2EBinaryBytesKept(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	vals := [][]byte{
		[]byte("a\x00b"),
		[]byte("\xff\xfe\xfd"),
		[]byte("\xc3\x28 bad utf8"),
		[]byte("\x00"),
		[]byte("tab\there\rcr"),
	}
	var all []byte
	for b := range 256 {
		if b != '\n' {
			all = append(all, byte(b))
		}
	}
	vals = append(vals, all)
	var in []byte
	for i, v := range vals {
		in = append(in, fmt.Sprintf("k\xff%d|", i)...)
		in = append(in, v...)
		in = append(in, '\n')
	}
	res := produceTo(t, c, strings.NewReader(string(in)), "-t", "t", "-p", "0", "-K", "|")
	require.Equal(t, 0, res.Code, res.Stderr)
	recs := kafkatest.ByOffset(kafkatest.ConsumeExactly(t, c, "t", len(vals)))
	for i, v := range vals {
		assertNullable(t, []byte(fmt.Sprintf("k\xff%d", i)), recs[i].Key, fmt.Sprintf("key %d", i))
		assertNullable(t, v, recs[i].Value, fmt.Sprintf("value %d", i))
	}
}

// TestE2EPartitionOrderFollowsInput checks that within each partition the
// offsets follow the input order, with small batches so that many
// requests are in flight at once, for unkeyed (sticky) and keyed records.
func TestE2EPartitionOrderFollowsInput(t *testing.T) {
	t.Parallel()
	for _, keyed := range []bool{false, true} {
		t.Run(fmt.Sprintf("keyed=%v", keyed), func(t *testing.T) {
			t.Parallel()
			c := kafkatest.ProducerCluster(t)
			const n = 5000
			var in strings.Builder
			for i := range n {
				if keyed {
					fmt.Fprintf(&in, "k%d,", i%11)
				}
				fmt.Fprintf(&in, "%d\n", i)
			}
			args := []string{"-t", "t", "--batch-size", "2KiB", "--linger", "0s", "-o", "none"}
			if keyed {
				args = append(args, "-K", ",")
			}
			res := produceTo(t, c, strings.NewReader(in.String()), args...)
			require.Equal(t, 0, res.Code, res.Stderr)
			last := map[int32]int{}
			seen := 0
			for _, r := range kafkatest.ByOffset(kafkatest.ConsumeExactly(t, c, "t", n)) {
				v, err := strconv.Atoi(string(r.Value))
				require.NoError(t, err)
				if prev, ok := last[r.Partition]; ok {
					require.Greater(t, v, prev, "partition %d offset %d", r.Partition, r.Offset)
				}
				last[r.Partition] = v
				seen++
			}
			assert.Equal(t, n, seen)
			assert.Greater(t, len(last), 1, "records spread over several partitions")
		})
	}
}

// TestE2ETimestamps checks that a JSON record's timestamp is kept and that a
// record without one gets the time it was produced.
func TestE2ETimestamps(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	in := `{"value":"given","timestamp":1700000000123}
{"value":"kcat","ts":1600000000456}
{"value":"none"}
`
	before := time.Now().Add(-time.Second).UnixMilli() // coarse clocks
	res := produceTo(t, c, strings.NewReader(in), "-t", "t", "-f", "json", "-o", "json")
	after := time.Now().Add(time.Second).UnixMilli()
	require.Equal(t, 0, res.Code, res.Stderr)
	consumed := kafkatest.ConsumeExactly(t, c, "t", 3)
	recs := kafkatest.ByValue(t, consumed)
	assert.EqualValues(t, 1700000000123, recs["given"].Timestamp.UnixMilli())
	assert.EqualValues(t, 1600000000456, recs["kcat"].Timestamp.UnixMilli())
	now := recs["none"].Timestamp.UnixMilli()
	assert.GreaterOrEqual(t, now, before)
	assert.LessOrEqual(t, now, after)
	at := recordAt(consumed)
	for _, rep := range kafkatest.ParseJSONReports(t, res.Stdout) {
		r := at[fmt.Sprintf("t/%d@%d", rep.Partition, rep.Offset)]
		require.NotNil(t, r, "report %+v", rep)
		assert.Equal(t, r.Timestamp.UnixMilli(), rep.Timestamp, "report timestamp of %q", r.Value)
	}
}
