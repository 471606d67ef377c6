package histogram

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exactPercentile is the nearest-rank percentile of sorted samples.
func exactPercentile(sorted []int64, q float64) int64 {
	rank := int(math.Ceil(q * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

func TestPercentilesMatchSortedSamples(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	cases := map[string]func() int64{
		// delivery latencies: log-normal around 3 ms, a long tail
		"lognormal": func() int64 { return int64(math.Exp(rnd.NormFloat64()*1.5) * 3e6) },
		"uniform":   func() int64 { return rnd.Int64N(1 << 40) },
		"small":     func() int64 { return rnd.Int64N(300) },
		"bimodal": func() int64 {
			if rnd.IntN(100) < 98 {
				return 1e6 + rnd.Int64N(1e5)
			}
			return 2e9 + rnd.Int64N(1e8)
		},
	}
	for name, gen := range cases {
		t.Run(name, func(t *testing.T) {
			var h Histogram
			samples := make([]int64, 100_000)
			for i := range samples {
				samples[i] = gen()
				h.Record(samples[i])
			}
			slices.Sort(samples)
			require.Equal(t, uint64(len(samples)), h.Count())
			assert.Equal(t, samples[0], h.Min())
			assert.Equal(t, samples[len(samples)-1], h.Max())
			for _, q := range []float64{0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999} {
				want := exactPercentile(samples, q)
				got := h.Percentile(q)
				tolerance := max(float64(want)*RelativeError, 0.5)
				assert.InDelta(t, want, got, tolerance, "p%v", q*100)
			}
			assert.Equal(t, samples[0], h.Percentile(0))
			assert.Equal(t, samples[len(samples)-1], h.Percentile(1))
		})
	}
}

func TestSmallValuesAreExact(t *testing.T) {
	var h Histogram
	for v := int64(0); v < subCount; v++ {
		h.Record(v)
	}
	for v := int64(1); v <= subCount; v++ {
		q := float64(v) / subCount
		assert.Equal(t, v-1, h.Percentile(q), "q=%v", q)
	}
}

func TestBucketsCoverEveryValue(t *testing.T) {
	values := []int64{0, 1, subCount - 1, subCount, subCount + 1, 255, 256, 257, 1e6, 1e9, 1 << 40, math.MaxInt64 - 1, math.MaxInt64}
	for i := 0; i < 62; i++ {
		values = append(values, int64(1)<<i, int64(1)<<i+1, int64(1)<<i-1)
	}
	for _, v := range values {
		if v < 0 {
			continue
		}
		i := bucketOf(v)
		require.True(t, i >= 0 && i < bucketCount, "value %d: bucket %d of %d", v, i, bucketCount)
		lo, width := bounds(i)
		assert.True(t, lo <= v && v-lo < width, "value %d not in bucket %d [%d, %d+%d)", v, i, lo, lo, width)
		assert.LessOrEqual(t, float64(width), math.Max(1, float64(v)/subCount), "bucket width of %d", v)
	}
	assert.Equal(t, bucketCount-1, bucketOf(math.MaxInt64))
}

func TestEmptyAndNegative(t *testing.T) {
	var h Histogram
	assert.Zero(t, h.Percentile(0.5))
	assert.Zero(t, h.Mean())
	h.Record(-5)
	h.Record(10)
	assert.Equal(t, int64(0), h.Min())
	assert.Equal(t, int64(10), h.Max())
	assert.Equal(t, int64(10), h.Percentile(0.99))
	assert.InDelta(t, 5.0, h.Mean(), 1e-9)
	assert.Equal(t, int64(0), h.Percentile(math.NaN()))
}

func BenchmarkRecord(b *testing.B) {
	var h Histogram
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		h.Record(int64(i) * 7919)
	}
}
