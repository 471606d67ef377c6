package producecmd_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestBadInputOverMaxRecordBytes checks --max-record-bytes in every
// format: a record of exactly the limit is produced, one byte more fails
// on its own with its position, and the records around it are delivered.
func TestBadInputOverMaxRecordBytes(t *testing.T) {
	t.Parallel()
	const limit = 16
	exact := strings.Repeat("e", limit)
	over := strings.Repeat("o", limit+1)
	t.Run("lines", func(t *testing.T) {
		t.Parallel()
		c := kafkatest.ProducerCluster(t)
		// With -K the limit counts the raw line, key included.
		in := "k|first\n" + "k|" + exact[2:] + "\n" + "k|" + over[2:] + "\n" + over + over + "\nk|last\n"
		res := produceTo(t, c, strings.NewReader(in), "-t", "t", "-K", "|", "--max-record-bytes", fmt.Sprint(limit))
		require.Equal(t, 1, res.Code, res.Stderr)
		assert.Len(t, kafkatest.Lines(res.Stdout), 3)
		assert.Equal(t, []string{
			fmt.Sprintf("error: -:3: t/-1: record too large: %d bytes, more than --max-record-bytes %d", limit+1, limit),
			fmt.Sprintf("error: -:4: t/-1: record too large: %d bytes, more than --max-record-bytes %d", 2*limit+2, limit),
			"3 delivered, 2 failed",
		}, kafkatest.Lines(res.Stderr))
		recs := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", 3))
		assert.Contains(t, recs, "first")
		assert.Contains(t, recs, exact[2:])
		assert.Contains(t, recs, "last")
	})
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		c := kafkatest.ProducerCluster(t)
		fit := `{"value":"` + strings.Repeat("j", limit-12) + `"}` // exactly limit bytes
		require.Len(t, fit, limit)
		in := `{"value":"a"}` + "\n" + fit + "\n" + `{"value":"` + strings.Repeat("j", limit-11) + `"}` + "\n" + `{"value":"z"}` + "\n"
		res := produceTo(t, c, strings.NewReader(in), "-t", "t", "-f", "json", "--max-record-bytes", fmt.Sprint(limit))
		require.Equal(t, 1, res.Code, res.Stderr)
		assert.Equal(t, []string{
			fmt.Sprintf("error: -:3: t/-1: record too large: %d bytes, more than --max-record-bytes %d", limit+1, limit),
			"3 delivered, 1 failed",
		}, kafkatest.Lines(res.Stderr))
		recs := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", 3))
		assert.Contains(t, recs, strings.Repeat("j", limit-12))
	})
	t.Run("file", func(t *testing.T) {
		t.Parallel()
		c := kafkatest.ProducerCluster(t)
		dir := t.TempDir()
		a := kafkatest.WriteFile(t, dir, "a.bin", []byte(exact))
		b := kafkatest.WriteFile(t, dir, "b.bin", []byte(over))
		d := kafkatest.WriteFile(t, dir, "d.bin", []byte("small"))
		res := produceTo(t, c, nil, "-t", "t", "-f", "file", "--max-record-bytes", fmt.Sprint(limit), a, b, d)
		require.Equal(t, 1, res.Code, res.Stderr)
		errs := kafkatest.Lines(res.Stderr)
		require.Len(t, errs, 2, res.Stderr)
		assert.Equal(t, "error: "+b+":1: t/-1: record too large: more than --max-record-bytes 16", errs[0])
		assert.Equal(t, "2 delivered, 1 failed", errs[1])
		recs := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", 2))
		assert.Contains(t, recs, exact)
		assert.Contains(t, recs, "small")
	})
}

// TestBadInputOverBrokerMessageMaxBytes checks the broker's own limit
// with a compressed, non-idempotent producer and the sticky partitioner: a
// record that cannot fit even compressed (random bytes) fails alone with
// MESSAGE_TOO_LARGE and its position; the records before and after it,
// in whatever batches they share with it, are delivered.
func TestBadInputOverBrokerMessageMaxBytes(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t, kfake.BrokerConfigs(map[string]string{"message.max.bytes": "3000"}))
	rng := rand.New(rand.NewPCG(3, 4))
	huge := make([]byte, 8000)
	for i := range huge {
		huge[i] = 'a' + byte(rng.UintN(26)) // compresses to well over 3000 bytes
	}
	var in strings.Builder
	const n = 60
	for i := range n {
		fmt.Fprintf(&in, "k%d\trecord-%02d-%s\n", i, i, strings.Repeat("r", 40))
		if i == 29 {
			fmt.Fprintf(&in, "big\t%s\n", huge) // line 31
		}
	}
	res := produceTo(t, c, strings.NewReader(in.String()), "-t", "t", "-K", `\t`, "-z", "lz4",
		"-a", "1", "--linger", "20ms", "-o", "json")
	require.Equal(t, 1, res.Code, res.Stderr)
	reps := kafkatest.ParseJSONReports(t, res.Stdout)
	require.Len(t, reps, n+1)
	var failed []kafkatest.JSONReport
	for _, r := range reps {
		if r.Error != nil {
			failed = append(failed, r)
		}
	}
	require.Len(t, failed, 1, res.Stdout)
	assert.EqualValues(t, 31, failed[0].Record)
	assert.Contains(t, *failed[0].Error, "MESSAGE_TOO_LARGE")
	assert.Equal(t, fmt.Sprintf("%d delivered, 1 failed", n), strings.TrimSpace(res.Stderr))
	recs := kafkatest.ByValue(t, kafkatest.ConsumeExactly(t, c, "t", n))
	for i := range n {
		r, ok := recs[fmt.Sprintf("record-%02d-%s", i, strings.Repeat("r", 40))]
		if assert.True(t, ok, "record %d delivered", i) {
			assert.Equal(t, fmt.Sprintf("k%d", i), string(r.Key))
		}
	}
}
