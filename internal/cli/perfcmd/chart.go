package perfcmd

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kproduce/kproduce/internal/histogram"
)

// chartWidth is the length of the longest bar of the latency chart.
const chartWidth = 50

// histogramRows cuts the latency distribution (a histogram of
// nanoseconds) into rows at 1-2-5 steps of milliseconds (..., 0.5, 1, 2,
// 5, 10, ...), from the row of the smallest latency to that of the
// largest; no rows (not nil: -o json shows an empty list) when there is
// no sample.
func histogramRows(h *histogram.Histogram) []HistogramRow {
	if h.Count() == 0 {
		return []HistogramRow{}
	}
	lo := stepAtOrBelow(ms(float64(h.Min())))
	var rows []HistogramRow
	for from := lo; ; from = nextStep(from) {
		rows = append(rows, HistogramRow{FromMs: from, ToMs: nextStep(from)})
		if float64(h.Max())/1e6 < nextStep(from) {
			break
		}
	}
	row := 0
	h.ForEach(func(lo, width int64, n uint64) bool {
		mid := float64(lo+width/2) / 1e6
		for row < len(rows)-1 && mid >= rows[row].ToMs {
			row++
		}
		rows[row].Records += int64(n)
		return true
	})
	return rows
}

// stepAtOrBelow is the largest 1-2-5 step of milliseconds at or below v
// (at least a microsecond).
func stepAtOrBelow(v float64) float64 {
	v = max(v, 0.001)
	decade := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2, 1} {
		if step := m * decade; step <= v*(1+1e-9) {
			return roundStep(step)
		}
	}
	return roundStep(decade)
}

// nextStep is the 1-2-5 step after step.
func nextStep(step float64) float64 {
	decade := math.Pow(10, math.Floor(math.Log10(step)+1e-9))
	switch m := math.Round(step / decade); m {
	case 1:
		return roundStep(2 * decade)
	case 2:
		return roundStep(5 * decade)
	}
	return roundStep(10 * decade)
}

// roundStep drops the floating-point noise of a step (0.30000000000000004).
func roundStep(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// appendChart appends the latency distribution as a bar chart.
func appendChart(b []byte, rows []HistogramRow) []byte {
	if len(rows) == 0 {
		return append(b, "\nlatency: no record was acknowledged\n"...)
	}
	var total, most int64
	for _, r := range rows {
		total += r.Records
		most = max(most, r.Records)
	}
	label := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	width := 0
	for _, r := range rows {
		width = max(width, len(label(r.FromMs)), len(label(r.ToMs)))
	}
	b = fmt.Appendf(b, "\n%-*s  %12s\n", max(2*width+3, len("latency (ms)")), "latency (ms)", "records")
	for _, r := range rows {
		bar := 0
		if most > 0 {
			bar = int(math.Ceil(float64(r.Records) * chartWidth / float64(most)))
		}
		rng := fmt.Sprintf("%*s - %*s", width, label(r.FromMs), width, label(r.ToMs))
		b = fmt.Appendf(b, "%-*s  %12d  %5.1f%%  %s\n", max(2*width+3, len("latency (ms)")), rng,
			r.Records, 100*float64(r.Records)/float64(total), strings.Repeat("#", bar))
	}
	return b
}
