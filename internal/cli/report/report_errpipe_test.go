package report

import (
	"bytes"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReportLostFailureReports checks that a failure report that cannot be
// written to stderr (`kproduce ... 2>&1 | head -1`) counts as a report
// write error, so the run stops, while a broken stderr that loses no
// report (no failure, or json mode where failures go to stdout) does not.
func TestReportLostFailureReports(t *testing.T) {
	cases := []struct {
		name   string
		format string
		reps   []testReport
		lost   bool
	}{
		{"text failure", "text", []testReport{okReport(), failedReport()}, true},
		{"template failure", "%t %o\n", []testReport{failedReport()}, true},
		{"none failure", "none", []testReport{failedReport()}, true},
		{"text successes only", "text", []testReport{okReport(), okReport()}, false},
		{"json failure on stdout", "json", []testReport{failedReport()}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			r := newTestReporter(t, tc.format, &out, &brokenPipe{})
			for _, rep := range tc.reps {
				r.Report(rep.rec, rep.err)
			}
			err := r.Flush()
			if !tc.lost {
				assert.NoError(t, err)
				assert.NoError(t, r.WriteErr())
				return
			}
			assert.ErrorIs(t, err, syscall.EPIPE)
			assert.ErrorIs(t, r.WriteErr(), syscall.EPIPE)
		})
	}
}
