package perfcmd

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/histogram"
)

func TestSteps(t *testing.T) {
	for v, want := range map[float64]float64{0.0004: 0.001, 0.0013: 0.001, 0.3: 0.2, 1: 1, 1.9: 1, 2: 2, 4.99: 2, 5: 5, 73: 50, 999: 500} {
		assert.Equal(t, want, stepAtOrBelow(v), "step at or below %v", v)
	}
	var steps []float64
	for s := 0.1; s < 100; s = nextStep(s) {
		steps = append(steps, s)
	}
	assert.Equal(t, []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50}, steps)
}

func TestHistogramRows(t *testing.T) {
	h := histogram.New(latencyPrecision)
	for i := range 1000 {
		h.Record(int64(1_500_000 + i*1000)) // 1.5 ms to 2.5 ms
	}
	h.Record(70_000_000) // 70 ms
	rows := histogramRows(h)
	require.Len(t, rows, 6, "%+v", rows)
	assert.Equal(t, HistogramRow{FromMs: 1, ToMs: 2, Records: 500}, rows[0])
	assert.Equal(t, HistogramRow{FromMs: 2, ToMs: 5, Records: 500}, rows[1])
	assert.Equal(t, HistogramRow{FromMs: 50, ToMs: 100, Records: 1}, rows[5])
	assert.Zero(t, rows[2].Records+rows[3].Records+rows[4].Records)
	empty := histogramRows(histogram.New(latencyPrecision))
	assert.NotNil(t, empty, "a list for -o json")
	assert.Empty(t, empty)

	chart := string(appendChart(nil, rows))
	lines := strings.Split(strings.TrimSpace(chart), "\n")
	require.Len(t, lines, 7, chart)
	assert.Contains(t, lines[1], "500   50.0%  "+strings.Repeat("#", chartWidth))
	assert.True(t, strings.HasSuffix(lines[6], "1    0.1%  #"), "the smallest row still shows: %q", lines[6])
	assert.Contains(t, string(appendChart(nil, nil)), "no record was acknowledged")
}
