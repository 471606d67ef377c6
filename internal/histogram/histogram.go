// Package histogram records non-negative integer samples (durations in
// nanoseconds, for example) in a fixed number of log-linear buckets, so that
// percentiles of any number of samples cost a fixed 58 KiB and one bucket
// increment per sample.
//
// Buckets: values below 2^subBits are counted exactly; above, every power
// of two [2^e, 2^(e+1)) is cut into 2^subBits equal buckets of width
// 2^(e-subBits). A bucket's width is thus at most 1/2^subBits (0.78%) of
// any value in it, and a percentile, reported as its bucket's midpoint, is
// within 0.4% of the exact sample of that rank. Count, minimum, maximum
// and sum are kept exactly.
package histogram

import (
	"math"
	"math/bits"
)

// subBits sets the precision: 2^subBits buckets per power of two.
const subBits = 7

// subCount is the number of buckets per power of two.
const subCount = 1 << subBits

// bucketCount covers every non-negative int64: the exact buckets below
// subCount, then subCount buckets for each exponent subBits..62.
const bucketCount = subCount + (63-subBits)*subCount

// RelativeError is the largest relative difference between a reported
// percentile and the exact sample of the same rank.
const RelativeError = 1.0 / (2 * subCount)

// Histogram counts samples in log-linear buckets. The zero value is empty
// and ready to use. It is not safe for concurrent use.
type Histogram struct {
	counts   [bucketCount]uint64
	count    uint64
	min, max int64
	sum      float64
}

// Record adds one sample; a negative value counts as 0.
func (h *Histogram) Record(v int64) {
	v = max(v, 0)
	h.counts[bucketOf(v)]++
	if h.count == 0 || v < h.min {
		h.min = v
	}
	h.max = max(h.max, v)
	h.count++
	h.sum += float64(v)
}

// Count is the number of samples.
func (h *Histogram) Count() uint64 { return h.count }

// Min is the smallest sample, 0 when there is none.
func (h *Histogram) Min() int64 { return h.min }

// Max is the largest sample, 0 when there is none.
func (h *Histogram) Max() int64 { return h.max }

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
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(max(midpoint(i), h.min), h.max)
		}
	}
	return h.max // not reached: the counts add up to count
}

// bucketOf returns the bucket index of v >= 0.
func bucketOf(v int64) int {
	if v < subCount {
		return int(v)
	}
	e := bits.Len64(uint64(v)) - 1 // 2^e <= v < 2^(e+1), e >= subBits
	sub := int(v>>(e-subBits)) - subCount
	return subCount + (e-subBits)*subCount + sub
}

// bounds returns the smallest value of bucket i and its width.
func bounds(i int) (lo, width int64) {
	if i < subCount {
		return int64(i), 1
	}
	e := (i-subCount)/subCount + subBits
	sub := int64((i - subCount) % subCount)
	width = int64(1) << (e - subBits)
	return (subCount + sub) * width, width
}

// midpoint is the value reported for bucket i: exact for the buckets of
// width one, else the middle of the bucket.
func midpoint(i int) int64 {
	lo, width := bounds(i)
	return lo + width/2
}
