package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/sender"
)

// newTestReporter returns a reporter of the format named format.
func newTestReporter(t testing.TB, format string, out, errOut io.Writer) *Reporter {
	t.Helper()
	f, err := ParseFormat(format)
	require.NoError(t, err)
	return New(f, out, errOut)
}

// reportsOf prints reps with format and returns stdout and stderr.
func reportsOf(t *testing.T, format string, reps ...testReport) (string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	r := newTestReporter(t, format, &out, &errOut)
	for _, rep := range reps {
		r.Report(rep.rec, rep.err)
	}
	require.NoError(t, r.Flush())
	return out.String(), errOut.String()
}

// testReport is a record and its outcome, to report.
type testReport struct {
	rec *sender.Record
	err error
}

// origin is the Opaque of a record read as record number of source.
func origin(source string, number int64) *input.Origin {
	return &input.Origin{Chunk: &input.Chunk{Source: source}, Number: number}
}

// okReport and failedReport are fixtures.
func okReport() testReport {
	return testReport{rec: &sender.Record{Topic: "t", Partition: 3, Offset: 41, Timestamp: time.UnixMilli(1764500000000),
		Key: []byte("k"), Value: []byte("v"), Opaque: origin("-", 12)}}
}

func failedReport() testReport {
	return testReport{rec: &sender.Record{Topic: "t", Partition: -1, Offset: -1, Opaque: origin("in.txt", 7)},
		err: errors.New(`record too large: "x"`)}
}

func TestReportText(t *testing.T) {
	out, errOut := reportsOf(t, "text", okReport(), failedReport(), okReport())
	assert.Equal(t, "t/3@41\nt/3@41\n", out)
	assert.Equal(t, "error: in.txt:7: t/-1: record too large: \"x\"\n", errOut)
}

func TestReportJSON(t *testing.T) {
	out, errOut := reportsOf(t, "json", okReport(), failedReport())
	assert.Equal(t, `{"source":"-","record":12,"topic":"t","partition":3,"offset":41,"timestamp":1764500000000}`+"\n"+
		`{"source":"in.txt","record":7,"topic":"t","partition":-1,"offset":-1,"timestamp":-1,"error":"record too large: \"x\""}`+"\n", out)
	assert.Empty(t, errOut, "json mode puts every outcome on stdout")
}

func TestReportJSONEscapingIsValidJSON(t *testing.T) {
	rep := failedReport()
	rep.rec.Opaque = origin("we\"ird\\\n\t\x01\xffé.txt", 7)
	rep.rec.Topic = "t\u2028"
	out, _ := reportsOf(t, "json", rep)
	var got struct {
		Source, Topic, Error string
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, "we\"ird\\\n\t\x01\uFFFDé.txt", got.Source)
	assert.Equal(t, "t\u2028", got.Topic)
	assert.Equal(t, `record too large: "x"`, got.Error)
}

func TestReportNone(t *testing.T) {
	out, errOut := reportsOf(t, "none", okReport(), failedReport())
	assert.Empty(t, out)
	assert.Equal(t, "error: in.txt:7: t/-1: record too large: \"x\"\n", errOut)
}

func TestReportTemplate(t *testing.T) {
	tests := []struct{ tmpl, want string }{
		{`%t %p %o %d %k %v %s %n%e\n`, "t 3 41 1764500000000 k v - 12\n"},
		{`100%% %o\t|\x41\\`, "100% 41\t|A\\"},
		{`%o`, "41"},
	}
	for _, tt := range tests {
		out, _ := reportsOf(t, tt.tmpl, okReport())
		assert.Equal(t, tt.want, out, tt.tmpl)
	}
	out, errOut := reportsOf(t, `%t@%o\n`, failedReport())
	assert.Empty(t, out, "failures do not use the template")
	assert.Equal(t, "error: in.txt:7: t/-1: record too large: \"x\"\n", errOut)
}

func TestTemplateErrors(t *testing.T) {
	for _, bad := range []string{"%q", "abc%", `\q`, `\x4`, `%`} {
		_, err := parseTemplateFormat(bad)
		assert.ErrorIs(t, err, ErrBadTemplate, bad)
	}
}

func TestParseFormat(t *testing.T) {
	for _, name := range []string{"text", "json", "none", "%t %o\\n"} {
		f, err := ParseFormat(name)
		require.NoError(t, err, name)
		assert.Equal(t, name, f.String())
	}
	for _, bad := range []string{"", "xml", "JSON", "text "} {
		_, err := ParseFormat(bad)
		assert.ErrorIs(t, err, ErrUnknownFormat, bad)
		assert.ErrorContains(t, err, "want text, json, none or a template", bad)
	}
	_, err := ParseFormat("%q")
	assert.ErrorIs(t, err, ErrBadTemplate)
}

func TestNeedsRecordBytes(t *testing.T) {
	for format, want := range map[string]bool{"text": false, "json": false, "none": false, "%o": false, "%k": true, "%%k %v": true, "%%k": false} {
		r := newTestReporter(t, format, &bytes.Buffer{}, &bytes.Buffer{})
		assert.Equal(t, want, r.NeedsRecordBytes(), format)
	}
}

// TestDeliveredCountsWithoutReports: only none leaves deliveries
// unprinted; CountDeliveriesWith counts them from elsewhere, and the
// summary adds them to the reported failures.
func TestDeliveredCountsWithoutReports(t *testing.T) {
	for format, want := range map[string]bool{"text": true, "json": true, "none": false, "%o": true} {
		r := newTestReporter(t, format, &bytes.Buffer{}, &bytes.Buffer{})
		assert.Equal(t, want, r.PrintsDeliveries(), format)
	}
	var out, errOut bytes.Buffer
	r := newTestReporter(t, "none", &out, &errOut)
	delivered := int64(1000)
	r.CountDeliveriesWith(func() int64 { return delivered })
	delivered += 234
	reportOne(r, failedReport())
	got, failed := r.Counts()
	assert.Equal(t, int64(1234), got)
	assert.Equal(t, int64(1), failed)
	r.Summary()
	assert.Empty(t, out.String())
	assert.True(t, strings.HasSuffix(errOut.String(), "1234 delivered, 1 failed\n"), errOut.String())
}

func TestReportCountsAndSummary(t *testing.T) {
	var out, errOut bytes.Buffer
	r := newTestReporter(t, "none", &out, &errOut)
	r.Summary()
	assert.Empty(t, errOut.String(), "no summary when all succeeded and not verbose")
	r.SetVerbose(true)
	reportOne(r, okReport())
	r.Summary()
	assert.Equal(t, "1 delivered, 0 failed\n", errOut.String())
	r.SetVerbose(false)
	errOut.Reset()
	reportOne(r, failedReport())
	r.Summary()
	assert.Equal(t, "error: in.txt:7: t/-1: record too large: \"x\"\n1 delivered, 1 failed\n", errOut.String())
	d, f := r.Counts()
	assert.Equal(t, int64(1), d)
	assert.Equal(t, int64(1), f)
}

func TestReportConcurrent(t *testing.T) {
	var out, errOut bytes.Buffer
	r := newTestReporter(t, "text", &out, &errOut)
	const goroutines, each = 8, 500
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				rep := testReport{rec: &sender.Record{Topic: fmt.Sprintf("t%d", g), Partition: int32(i), Offset: int64(i)}}
				if i%10 == 0 {
					rep.err = errors.New("boom")
				}
				r.Report(rep.rec, rep.err)
				if i%100 == 0 {
					_ = r.Flush()
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, r.Flush())
	d, f := r.Counts()
	assert.Equal(t, int64(goroutines*each*9/10), d)
	assert.Equal(t, int64(goroutines*each/10), f)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	assert.Len(t, lines, int(d), "every line whole")
	for _, l := range lines {
		assert.Regexp(t, `^t\d/\d+@\d+$`, l)
	}
	assert.Equal(t, int(f), strings.Count(errOut.String(), "error: "))
}

// brokenPipe fails every write as a closed pipe does.
type brokenPipe struct{ writes int }

func (b *brokenPipe) Write(p []byte) (int, error) {
	b.writes++
	return 0, syscall.EPIPE
}

func TestReportWriteErrorIsKept(t *testing.T) {
	pipe := &brokenPipe{}
	r := newTestReporter(t, "text", pipe, &bytes.Buffer{})
	reportOne(r, okReport())
	assert.NoError(t, r.WriteErr(), "buffered: nothing written yet")
	err := r.Flush()
	assert.ErrorIs(t, err, syscall.EPIPE)
	assert.ErrorIs(t, r.WriteErr(), syscall.EPIPE)
	for i := 0; i < 100000; i++ { // enough to fill the buffer many times
		reportOne(r, okReport())
	}
	assert.ErrorIs(t, r.Flush(), syscall.EPIPE)
	assert.Equal(t, 1, pipe.writes, "no writes after the first error")
	d, _ := r.Counts()
	assert.Equal(t, int64(100001), d, "records are still counted")
}

func TestReportDoesNotAllocate(t *testing.T) {
	for _, format := range []string{"text", "json", "none", "%t/%p@%o %k=%v\n"} {
		r := newTestReporter(t, format, discard{}, discard{})
		rep := okReport()
		allocs := testing.AllocsPerRun(1000, func() { r.Report(rep.rec, rep.err) })
		assert.Zero(t, allocs, format)
	}
}

// discard is io.Discard without its ReadFrom.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// reportOne reports one fixture.
func reportOne(r *Reporter, rep testReport) { r.Report(rep.rec, rep.err) }

// A failure caused by the authentication failure that stopped the
// producer refers to it on stderr (the run prints it once, at its end);
// other failures, and the json reports on stdout, keep their own text.
func TestReportRefersToTheFatalError(t *testing.T) {
	fatal := fmt.Errorf("bootstrap broker 127.0.0.1:9092: %w: SASL PLAIN: wrong password", network.ErrAuthentication)
	stopped := func(rec *sender.Record, err error) testReport { return testReport{rec: rec, err: err} }
	rec := &sender.Record{Topic: "t", Partition: -1, Offset: -1, Opaque: origin("-", 1)}
	reps := []testReport{
		stopped(rec, fmt.Errorf("%w: %w", sender.ErrNotSent, fatal)),
		stopped(rec, fmt.Errorf("in flight: %w", fatal)),
		failedReport(),
	}
	for _, format := range []string{"text", "json"} {
		var out, errOut bytes.Buffer
		r := newTestReporter(t, format, &out, &errOut)
		r.SetFatal(func() error { return fatal })
		for _, rep := range reps {
			r.Report(rep.rec, rep.err)
		}
		require.NoError(t, r.Flush())
		if format == "json" {
			assert.Equal(t, 2, strings.Count(out.String(), "wrong password"), "json keeps each record's error")
			continue
		}
		assert.Equal(t, "error: -:1: t/-1: not sent: the producer stopped (the error below says why)\n"+
			"error: -:1: t/-1: the producer stopped (the error below says why)\n"+
			"error: in.txt:7: t/-1: record too large: \"x\"\n", errOut.String())
	}
}

// Another fatal error (a peer that is not Kafka) stays on each record's
// line.
func TestReportKeepsOtherFatalErrors(t *testing.T) {
	fatal := fmt.Errorf("bootstrap broker 127.0.0.1:9092: %w: it answered like an HTTP server", network.ErrNotKafka)
	var out, errOut bytes.Buffer
	r := newTestReporter(t, "text", &out, &errOut)
	r.SetFatal(func() error { return fatal })
	r.Report(&sender.Record{Topic: "t", Partition: -1, Opaque: origin("-", 1)}, fmt.Errorf("%w: %w", sender.ErrNotSent, fatal))
	require.NoError(t, r.Flush())
	assert.Equal(t, "error: -:1: t/-1: not sent: "+fatal.Error()+"\n", errOut.String())
}
