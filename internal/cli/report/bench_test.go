package report

import "testing"

func BenchmarkReportText(b *testing.B) {
	r := newTestReporter(b, "text", discard{}, discard{})
	rep := okReport()
	b.ReportAllocs()
	for b.Loop() {
		r.Report(rep.rec, rep.err)
	}
}
