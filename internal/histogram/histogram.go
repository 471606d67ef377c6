// Package histogram records non-negative integer samples (durations in
// nanoseconds, for example) in log-linear buckets, the layout of an HDR
// histogram: percentiles of any number of samples for one bucket increment
// per sample, within a bounded relative error.
//
// Buckets: with precision p, values below 2^p are counted exactly; above,
// every power of two [2^e, 2^(e+1)) is cut into 2^p equal buckets of width
// 2^(e-p). A bucket's width is thus at most 1/2^p of any value in it, and a
// percentile, reported as its bucket's midpoint, is within 1/2^(p+1) of the
// exact sample of that rank (RelativeError). Count, minimum, maximum and
// sum are kept exactly.
//
// The buckets of one power of two (8 bytes each) are allocated when a
// sample first falls in it, so a histogram costs what the range of its
// samples needs: samples from 100 µs to 1 s in nanoseconds touch 14 powers
// of two, 14 KiB at the default precision 7 and 112 KiB at precision 10
// (three significant digits: as precise as an HDR histogram of 1 µs unit
// and 3 significant figures).
package histogram

import (
	"math"
	"math/bits"
)

// DefaultPrecision is the precision of the zero Histogram: 2^7 buckets per
// power of two, percentiles within 0.4%.
const DefaultPrecision = 7

// MaxPrecision is the highest precision New accepts.
const MaxPrecision = 14

// RelativeError is the largest relative difference between a percentile
// of a histogram of DefaultPrecision and the exact sample of the same rank.
const RelativeError = 1.0 / (2 << DefaultPrecision)

// maxChunks covers every non-negative int64 at any precision: the exact
// chunk, then one chunk for each power of two from 2^p to 2^62.
const maxChunks = 64

// Histogram counts samples in log-linear buckets. The zero value is empty,
// of DefaultPrecision, and ready to use. It is not safe for concurrent use.
type Histogram struct {
	// extra is the precision above DefaultPrecision (2^(DefaultPrecision+
	// extra) buckets per power of two), so that the zero value has the
	// default.
	extra int8
	// chunks[0] counts the values below 2^p exactly; chunks[k], k >= 1,
	// the values in [2^(p+k-1), 2^(p+k)) in 2^p buckets. nil until a sample
	// falls in it.
	chunks   [maxChunks][]uint64
	count    uint64
	min, max int64
	sum      float64
}

// New returns an empty histogram of precision bits (2^bits buckets per
// power of two), clamped to [1, MaxPrecision].
func New(bits int) *Histogram {
	return &Histogram{extra: int8(min(max(bits, 1), MaxPrecision) - DefaultPrecision)}
}

// bitsOf is the histogram's precision.
func (h *Histogram) bitsOf() int { return DefaultPrecision + int(h.extra) }

// RelativeError is the largest relative difference between a percentile
// and the exact sample of the same rank, at the histogram's precision.
func (h *Histogram) RelativeError() float64 { return 1.0 / float64(int64(2)<<h.bitsOf()) }

// Record adds one sample; a negative value counts as 0.
func (h *Histogram) Record(v int64) {
	v = max(v, 0)
	p := uint(h.bitsOf())
	c, i := uint(0), uint64(v)
	if e := uint(bits.Len64(uint64(v))); e > p { // 2^(e-1) <= v < 2^e
		c, i = e-p, uint64(v)>>(e-1-p)-1<<p
	}
	chunk := h.chunks[c%maxChunks]
	if chunk == nil {
		chunk = h.grow(int(c))
	}
	chunk[i&uint64(len(chunk)-1)]++
	if v < h.min || h.count == 0 {
		h.min = v
	}
	h.max = max(h.max, v)
	h.count++
	h.sum += float64(v)
}

// grow allocates chunk c, on its first sample.
func (h *Histogram) grow(c int) []uint64 {
	h.chunks[c] = make([]uint64, 1<<h.bitsOf())
	return h.chunks[c]
}

// Count is the number of samples.
func (h *Histogram) Count() uint64 { return h.count }

// Min is the smallest sample, 0 when there is none.
func (h *Histogram) Min() int64 { return h.min }

// Max is the largest sample, 0 when there is none.
func (h *Histogram) Max() int64 { return h.max }

// Sum is the sum of the samples.
func (h *Histogram) Sum() float64 { return h.sum }

// Mean is the average sample, 0 when there is none.
func (h *Histogram) Mean() float64 {
	if h.count == 0 {
		return 0
	}
	return h.sum / float64(h.count)
}

// Percentile returns the sample of nearest rank ceil(q*Count) (q in
// [0, 1]; q <= 0 gives the minimum, q >= 1 the maximum), within
// RelativeError, and never outside [Min, Max]. It returns 0 when there is
// no sample.
func (h *Histogram) Percentile(q float64) int64 {
	switch {
	case h.count == 0:
		return 0
	case q <= 0 || math.IsNaN(q):
		return h.min
	case q >= 1:
		return h.max
	}
	rank := uint64(math.Ceil(q * float64(h.count)))
	rank = min(max(rank, 1), h.count)
	var seen uint64
	result := h.max // not kept: the counts add up to count
	h.ForEach(func(lo, width int64, n uint64) bool {
		seen += n
		if seen < rank {
			return true
		}
		result = lo + width/2
		return false
	})
	return min(max(result, h.min), h.max)
}

// ForEach calls fn with every bucket that holds samples, in increasing
// order: its smallest value, its width and its count, until fn returns
// false.
func (h *Histogram) ForEach(fn func(lo, width int64, n uint64) bool) {
	p := h.bitsOf()
	for c, chunk := range h.chunks {
		for i, n := range chunk {
			if n == 0 {
				continue
			}
			lo, width := bounds(c, i, p)
			if !fn(lo, width, n) {
				return
			}
		}
	}
}

// Merge adds the samples of o. A bucket of o at another precision is
// counted at its midpoint; count, minimum, maximum and sum stay exact.
func (h *Histogram) Merge(o *Histogram) {
	if o.count == 0 {
		return
	}
	p, same := h.bitsOf(), h.bitsOf() == o.bitsOf()
	o.ForEach(func(lo, width int64, n uint64) bool {
		c, i := locate(lo+width/2, p)
		if same {
			c, i = locate(lo, p)
		}
		if h.chunks[c] == nil {
			h.chunks[c] = make([]uint64, 1<<p)
		}
		h.chunks[c][i] += n
		return true
	})
	if h.count == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.count += o.count
	h.sum += o.sum
}

// locate returns the chunk and the index in it of the bucket of v >= 0 at
// precision p.
func locate(v int64, p int) (chunk, index int) {
	if v < 1<<p {
		return 0, int(v)
	}
	e := bits.Len64(uint64(v)) - 1 // 2^e <= v < 2^(e+1), e >= p
	return e - p + 1, int(v>>(e-p)) - 1<<p
}

// bounds returns the smallest value of the bucket at index i of chunk c,
// at precision p, and its width.
func bounds(c, i, p int) (lo, width int64) {
	if c == 0 {
		return int64(i), 1
	}
	e := c + p - 1
	width = int64(1) << (e - p)
	return (int64(1)<<p + int64(i)) * width, width
}
