package producecmd_test

import (
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// partitionByNumber maps each record number of a "%n %t/%p@%o" run to the
// partition its stored record is in.
func partitionByNumber(t testing.TB, stdout string, recs []*kgo.Record) map[int]int32 {
	t.Helper()
	out := map[int]int32{}
	for pos, r := range positionsOf(t, stdout, recs) {
		n, err := strconv.Atoi(strings.TrimPrefix(pos, "-:"))
		require.NoError(t, err)
		out[n] = r.Partition
	}
	return out
}

// TestE2ERoundRobinCyclesInOrder checks that round-robin gives the
// partitions in turn, record after record, keyed or not.
func TestE2ERoundRobinCyclesInOrder(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	const n = 30
	var in strings.Builder
	for i := range n {
		if i%2 == 0 {
			fmt.Fprintf(&in, "samekey,")
		}
		fmt.Fprintf(&in, "v%d\n", i)
	}
	res := produceTo(t, c, strings.NewReader(in.String()), "-t", "t", "-K", ",", "--partitioner", "round-robin",
		"-o", positionTemplate)
	require.Equal(t, 0, res.Code, res.Stderr)
	parts := partitionByNumber(t, res.Stdout, kafkatest.ConsumeExactly(t, c, "t", n))
	require.Len(t, parts, n)
	for i := 2; i <= n; i++ {
		assert.Equal(t, (parts[i-1]+1)%6, parts[i], "record %d follows record %d's partition", i, i-1)
	}
}

// TestE2ECRC32Partitioner checks that crc32 puts a keyed record on
// CRC32(key) mod partitions (librdkafka's consistent partitioner).
func TestE2ECRC32Partitioner(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	const n = 60
	var in strings.Builder
	for i := range n {
		fmt.Fprintf(&in, "key-%d,v%d\n", i, i)
	}
	res := produceTo(t, c, strings.NewReader(in.String()), "-t", "t", "-K", ",", "--partitioner", "crc32", "-o", "none")
	require.Equal(t, 0, res.Code, res.Stderr)
	spread := map[int32]bool{}
	for _, r := range kafkatest.ConsumeExactly(t, c, "t", n) {
		assert.EqualValues(t, crc32.ChecksumIEEE(r.Key)%6, r.Partition, "key %q", r.Key)
		spread[r.Partition] = true
	}
	assert.Greater(t, len(spread), 3)
}

// TestE2ERandomPartitioner checks that random spreads even keyed records
// over the partitions.
func TestE2ERandomPartitioner(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	const n = 300
	var in strings.Builder
	for i := range n {
		fmt.Fprintf(&in, "same,v%d\n", i)
	}
	res := produceTo(t, c, strings.NewReader(in.String()), "-t", "t", "-K", ",", "--partitioner", "random", "-o", "none")
	require.Equal(t, 0, res.Code, res.Stderr)
	spread := map[int32]int{}
	for _, r := range kafkatest.ConsumeExactly(t, c, "t", n) {
		spread[r.Partition]++
	}
	assert.Len(t, spread, 6, "300 random choices among 6 partitions miss none (but with odds of 6*(5/6)^300)")
}

// TestE2EExplicitPartitionWins checks -p and a JSON record's own partition,
// which overrides -p.
func TestE2EExplicitPartitionWins(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	in := `{"key":"a","value":"own"}` + "\n" + `{"key":"a","value":"json","partition":5}` + "\n" +
		`{"key":"a","value":"minus one","partition":-1}` + "\n"
	res := produceTo(t, c, strings.NewReader(in), "-t", "t", "-f", "json", "-p", "1")
	require.Equal(t, 0, res.Code, res.Stderr)
	recs := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", 3))
	assert.EqualValues(t, 1, recs["own"].Partition)
	assert.EqualValues(t, 5, recs["json"].Partition)
	assert.EqualValues(t, 1, recs["minus one"].Partition, "-1 in a record means no partition of its own")
}
