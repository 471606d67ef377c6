package producecmd_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// lengthPrefixed is s after its length as a big-endian uint32.
func lengthPrefixed(s string) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(len(s)))
	return string(b[:]) + s
}

// TestE2ERpkFormats: rpk topic produce's -f format strings: key and
// value, the topic in the input (no -t), length-prefixed binary records,
// headers in the input along with -H key:value, -Z, and a record that does
// not match failing on its own.
func TestE2ERpkFormats(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader("k1 v 1\nk2 v2\n"), "-t", "t", "-f", `%k %v\n`, "-H", "via:rpk")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	recs := recordByKey(kafkatest.ConsumeExactly(t, c, "t", 2))
	assert.Equal(t, "v 1", string(recs["k1"].Value))
	assert.Equal(t, []string{"via=rpk"}, headerList(recs["k1"]), "-H key:value")

	res = produceTo(t, c, strings.NewReader("a k a-value\nb k b-value\n"), "-f", `%t %k %v\n`)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Equal(t, "a-value", string(kafkatest.ConsumeExactly(t, c, "a", 1)[0].Value), "the topic from the input")
	assert.Equal(t, "b-value", string(kafkatest.ConsumeExactly(t, c, "b", 1)[0].Value))

	bin := lengthPrefixed("bk") + lengthPrefixed("line1\nline2\x00") + lengthPrefixed("") + lengthPrefixed("x")
	res = produceTo(t, c, strings.NewReader(bin), "-t", "bin", "-f", `%K{big32}%k%V{big32}%v`)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	recs = recordByKey(kafkatest.ConsumeExactly(t, c, "bin", 2))
	assert.Equal(t, "line1\nline2\x00", string(recs["bk"].Value), "a length-prefixed value keeps its newlines")
	assert.Equal(t, "x", string(recs[""].Value), "an empty key is empty, not null")

	res = produceTo(t, c, strings.NewReader("2 h1=a;h2=b;k1 val\n0 k2 \n"), "-t", "h", "-f", `%H %h{%k=%v;}%k %v\n`, "-Z")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	recs = recordByKey(kafkatest.ConsumeExactly(t, c, "h", 2))
	assert.Equal(t, []string{"h1=a", "h2=b"}, headerList(recs["k1"]))
	assert.Equal(t, "val", string(recs["k1"].Value))
	assert.Nil(t, recs["k2"].Value, "-Z: an empty value is a tombstone")

	res = produceTo(t, c, strings.NewReader("1 good\nx bad\n2 also-good\n"), "-t", "p", "-f", `%p %v\n`)
	require.Equal(t, cmdutil.ExitFailed, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, "error: -:2: p/-1: record does not match the format string: expected a number")
	got := map[string]int32{}
	for _, r := range kafkatest.ConsumeExactly(t, c, "p", 2) {
		got[string(r.Value)] = r.Partition
	}
	assert.Equal(t, map[string]int32{"good": 1, "also-good": 2}, got, "%p places each record")
}
