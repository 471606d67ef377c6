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
	const exact = 1 << DefaultPrecision
	for v := int64(0); v < exact; v++ {
		h.Record(v)
	}
	for v := int64(1); v <= exact; v++ {
		q := float64(v) / exact
		assert.Equal(t, v-1, h.Percentile(q), "q=%v", q)
	}
}

func TestBucketsCoverEveryValue(t *testing.T) {
	for _, p := range []int{1, DefaultPrecision, 10, MaxPrecision} {
		values := []int64{0, 1, 127, 128, 129, 255, 256, 257, 1e6, 1e9, 1 << 40, math.MaxInt64 - 1, math.MaxInt64}
		for i := 0; i < 63; i++ {
			values = append(values, int64(1)<<i, int64(1)<<i+1, int64(1)<<i-1)
		}
		for _, v := range values {
			if v < 0 {
				continue
			}
			c, i := locate(v, p)
			require.True(t, c >= 0 && c < maxChunks && i >= 0 && i < 1<<p, "precision %d, value %d: chunk %d, index %d", p, v, c, i)
			lo, width := bounds(c, i, p)
			assert.True(t, lo <= v && v-lo < width, "precision %d: value %d not in [%d, %d+%d)", p, v, lo, lo, width)
			assert.LessOrEqual(t, float64(width), math.Max(1, float64(v)/float64(int64(1)<<p)), "precision %d: bucket width of %d", p, v)
		}
	}
}

func TestPrecisionBoundsTheError(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, p := range []int{4, DefaultPrecision, 10} {
		h := New(p)
		samples := make([]int64, 50_000)
		for i := range samples {
			samples[i] = int64(math.Exp(rnd.NormFloat64()*2) * 5e6)
			h.Record(samples[i])
		}
		slices.Sort(samples)
		for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
			want := float64(exactPercentile(samples, q))
			assert.InDelta(t, want, h.Percentile(q), max(want*h.RelativeError(), 0.5), "precision %d, p%v", p, q*100)
		}
	}
	assert.InDelta(t, 1.0/2048, New(10).RelativeError(), 1e-12)
	assert.Equal(t, RelativeError, (&Histogram{}).RelativeError())
}

func TestMemoryFollowsTheRange(t *testing.T) {
	h := New(10)
	for v := int64(100_000); v < 1_000_000_000; v += 997 {
		h.Record(v)
	}
	chunks := 0
	for _, c := range h.chunks {
		if c != nil {
			chunks++
		}
	}
	// 100 µs to 1 s: 2^16 to 2^30 in nanoseconds, 14 or 15 powers of two
	assert.LessOrEqual(t, chunks, 15)
	assert.GreaterOrEqual(t, chunks, 14)
}

func TestMerge(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	all, a, b, coarse := New(10), New(10), New(10), New(5)
	var samples []int64
	for i := 0; i < 20_000; i++ {
		v := rnd.Int64N(1e9)
		samples = append(samples, v)
		all.Record(v)
		if i%2 == 0 {
			a.Record(v)
		} else {
			b.Record(v)
		}
		coarse.Record(v)
	}
	a.Merge(b)
	assert.Equal(t, all.Count(), a.Count())
	assert.Equal(t, all.Min(), a.Min())
	assert.Equal(t, all.Max(), a.Max())
	assert.InDelta(t, all.Sum(), a.Sum(), 1)
	for _, q := range []float64{0.1, 0.5, 0.99} {
		assert.Equal(t, all.Percentile(q), a.Percentile(q), "same precision: the same buckets, p%v", q*100)
	}
	fine := New(10)
	fine.Merge(coarse)
	slices.Sort(samples)
	assert.Equal(t, coarse.Count(), fine.Count())
	for _, q := range []float64{0.1, 0.5, 0.99} {
		want := float64(exactPercentile(samples, q))
		assert.InDelta(t, want, fine.Percentile(q), want*(coarse.RelativeError()+fine.RelativeError()), "coarser merged: p%v", q*100)
	}
	empty := New(7)
	empty.Merge(New(7))
	assert.Zero(t, empty.Count())
}

func TestForEachInOrder(t *testing.T) {
	var h Histogram
	for _, v := range []int64{5e6, 3, 3, 1e9, 200} {
		h.Record(v)
	}
	var los []int64
	var total uint64
	h.ForEach(func(lo, width int64, n uint64) bool {
		los = append(los, lo)
		total += n
		return true
	})
	assert.True(t, slices.IsSorted(los))
	assert.Len(t, los, 4)
	assert.Equal(t, uint64(5), total)
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

// BenchmarkRecordLatencies records delivery latencies as a run sees them:
// nanoseconds around 2 ms, a long tail.
func BenchmarkRecordLatencies(b *testing.B) {
	rnd := rand.New(rand.NewPCG(7, 8))
	samples := make([]int64, 4096)
	for i := range samples {
		samples[i] = int64(math.Exp(rnd.NormFloat64()) * 2e6)
	}
	var h Histogram
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		h.Record(samples[i&4095])
	}
}
