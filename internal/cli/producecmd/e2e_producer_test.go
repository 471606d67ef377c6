package producecmd_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestE2EAcks checks that each --acks value is what the ProduceRequests
// carry, that idempotence follows it as in the Java client, and that the
// records arrive.
func TestE2EAcks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		flag       string
		acks       int16
		idempotent bool
	}{
		{"all", -1, true},
		{"-1", -1, true},
		{"1", 1, false},
		{"0", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.flag, func(t *testing.T) {
			t.Parallel()
			c := kafkatest.ProducerCluster(t)
			reqs := observeProduce(c)
			const n = 100
			res := produceTo(t, c, strings.NewReader(kafkatest.NumberedLines("a", n)), "-t", "t", "-a", tc.flag)
			require.Equal(t, 0, res.Code, res.Stderr)
			reports := kafkatest.Lines(res.Stdout)
			require.Len(t, reports, n)
			report := regexp.MustCompile(`^t/[0-5]@\d+$`)
			if tc.acks == 0 {
				report = regexp.MustCompile(`^t/[0-5]@-1$`) // no offset without an answer
			}
			for _, r := range reports {
				assert.Regexp(t, report, r)
			}
			recs := kafkatest.ConsumeExactly(t, c, "t", n)
			for _, r := range recs {
				assert.Equal(t, tc.idempotent, r.ProducerID >= 0, "producer id %d", r.ProducerID)
			}
			if tc.acks != 0 {
				at := recordAt(recs)
				for _, rep := range reports {
					assert.Contains(t, at, rep)
				}
			}
			all := reqs.all()
			require.NotEmpty(t, all)
			for _, req := range all {
				assert.Equal(t, tc.acks, req.Acks)
			}
		})
	}
}

// TestE2ECompressionRoundTrips checks that every codec's batches are read
// back by kgo and are marked with that codec.
func TestE2ECompressionRoundTrips(t *testing.T) {
	t.Parallel()
	codecs := map[string]uint8{"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
	for name, id := range codecs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := kafkatest.ProducerCluster(t)
			const n = 500
			var in strings.Builder
			for i := range n {
				fmt.Fprintf(&in, "key-%d\t%s-%d-%s\n", i%7, name, i, strings.Repeat("compressible ", i%20))
			}
			res := produceTo(t, c, strings.NewReader(in.String()), "-t", "t", "-z", name, "-K", `\t`, "--batch-size", "16KiB")
			require.Equal(t, 0, res.Code, res.Stderr)
			recs := kafkatest.ConsumeExactly(t, c, "t", n)
			byValue := kafkatest.ByValue(t, recs)
			for i, l := range strings.Split(strings.TrimSuffix(in.String(), "\n"), "\n") {
				k, v, _ := strings.Cut(l, "\t")
				r := byValue[v]
				require.NotNil(t, r, "record %d", i)
				assert.Equal(t, k, string(r.Key))
				assert.Equal(t, id, r.Attrs.CompressionType(), "codec of record %d", i)
			}
		})
	}
}

// TestE2EIdempotenceOff checks that --idempotence=false produces without a
// producer id.
func TestE2EIdempotenceOff(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	res := produceTo(t, c, strings.NewReader(kafkatest.NumberedLines("i", 50)), "-t", "t", "--idempotence=false")
	require.Equal(t, 0, res.Code, res.Stderr)
	for _, r := range kafkatest.ConsumeExactly(t, c, "t", 50) {
		assert.EqualValues(t, -1, r.ProducerID)
	}
}

// TestE2ESmallBatchesAndRequests checks that a small --batch-size and
// --max-request-size split the input into many batches and requests, none
// over its limit, with every record delivered once and in order.
func TestE2ESmallBatchesAndRequests(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	reqs := observeProduce(c)
	const n, batchSize, requestSize = 3000, 1024, 4096
	res := produceTo(t, c, strings.NewReader(kafkatest.NumberedLines("record-with-some-padding", n)), "-t", "t",
		"--batch-size", strconv.Itoa(batchSize), "--max-request-size", strconv.Itoa(requestSize),
		"--linger", "20ms", "-o", "none")
	require.Equal(t, 0, res.Code, res.Stderr)
	recs := kafkatest.ConsumeExactly(t, c, "t", n)
	last := map[int32]int{}
	for _, r := range kafkatest.ByOffset(recs) {
		var i int
		_, err := fmt.Sscanf(string(r.Value), "record-with-some-padding-%d", &i)
		require.NoError(t, err)
		if prev, ok := last[r.Partition]; ok {
			require.Greater(t, i, prev, "order in partition %d", r.Partition)
		}
		last[r.Partition] = i
	}
	all := reqs.all()
	t.Logf("%d records in %d batches, %d requests", n, reqs.batches(), len(all))
	assert.Greater(t, reqs.batches(), n*30/batchSize, "batches")
	assert.Greater(t, len(all), n*30/requestSize, "requests")
	for _, req := range all {
		total := 0
		for _, tp := range req.Topics {
			for _, p := range tp.Partitions {
				assert.LessOrEqual(t, len(p.Records), batchSize, "batch size")
				total += len(p.Records)
			}
		}
		assert.LessOrEqual(t, total, requestSize, "request size")
	}
}

// TestE2EMaxRecordBytes checks records at and just under --max-record-bytes
// are delivered (counted before the key is split off), and that a record
// one byte over fails alone with its position.
func TestE2EMaxRecordBytes(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	const limit = 300000
	line := func(tag string, size int) string {
		return tag + "|" + strings.Repeat(tag[:1], size-len(tag)-1) + "\n"
	}
	in := line("exact", limit) + line("over", limit+1) + line("under", limit-1) + line("xover", limit+1000)
	res := produceTo(t, c, strings.NewReader(in), "-t", "t", "-K", "|",
		"--max-record-bytes", strconv.Itoa(limit), "-o", positionTemplate)
	require.Equal(t, 1, res.Code, res.Stderr)
	errs := kafkatest.Lines(res.Stderr)
	require.Len(t, errs, 3, res.Stderr)
	assert.Regexp(t, `^error: -:2: t/-1: .*too large`, errs[0])
	assert.Regexp(t, `^error: -:4: t/-1: .*too large`, errs[1])
	assert.Equal(t, "2 delivered, 2 failed", errs[2])
	got := positionsOf(t, res.Stdout, kafkatest.ConsumeExactly(t, c, "t", 2))
	require.Contains(t, got, "-:1")
	require.Contains(t, got, "-:3")
	assert.Equal(t, "exact", string(got["-:1"].Key))
	assert.Len(t, got["-:1"].Value, limit-len("exact|"))
	assert.Equal(t, "under", string(got["-:3"].Key))
	assert.Len(t, got["-:3"].Value, limit-1-len("under|"))
}

// TestE2ERecordOverMaxRequestSize checks that a record that fits
// --max-record-bytes but not --max-request-size fails alone, with its
// position.
func TestE2ERecordOverMaxRequestSize(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	in := "small\n" + strings.Repeat("b", 200<<10) + "\nsmall too\n"
	res := produceTo(t, c, strings.NewReader(in), "-t", "t", "--max-request-size", "100KiB", "-o", positionTemplate)
	require.Equal(t, 1, res.Code, res.Stderr)
	errs := kafkatest.Lines(res.Stderr)
	require.Len(t, errs, 2, res.Stderr)
	assert.Regexp(t, `^error: -:2: t/-1: .*too large`, errs[0])
	assert.Equal(t, "2 delivered, 1 failed", errs[1])
	got := positionsOf(t, res.Stdout, kafkatest.ConsumeExactly(t, c, "t", 2))
	assert.Equal(t, "small", string(got["-:1"].Value))
	assert.Equal(t, "small too", string(got["-:3"].Value))
}
