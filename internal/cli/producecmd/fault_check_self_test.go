package producecmd_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// checkerCase builds a three-line outcome: lines 1 and 3 on partition 0
// at offsets 0 and 1, line 2 on partition 1 at offset 0, all delivered.
// Each case then breaks one thing.
func checkerCase(in *faultInput) *faultOutcome {
	stored := func(line int, p int32, off int64) *kgo.Record {
		return &kgo.Record{Partition: p, Offset: off, Key: []byte(in.keys[line-1]), Value: []byte(in.values[line-1])}
	}
	return &faultOutcome{
		reports: []*faultReport{
			{Source: "-", Record: 1, Partition: 0, Offset: 0},
			{Source: "-", Record: 2, Partition: 1, Offset: 0},
			{Source: "-", Record: 3, Partition: 0, Offset: 1},
		},
		topic: []*kgo.Record{stored(1, 0, 0), stored(3, 0, 1), stored(2, 1, 0)},
	}
}

// failReport turns a report into a failure with msg.
func failReport(r *faultReport, msg string) {
	r.Offset = -1
	r.Error = &msg
}

// TestFaultCheckerCatches feeds the shared checker outcomes that break the
// promise one way each, and one that keeps it, so that the fault suite's
// verdicts can be trusted.
func TestFaultCheckerCatches(t *testing.T) {
	t.Parallel()
	// Two keys: lines 1 and 3 share one, so they share partition 0.
	in := newFaultInput(3, 2)
	cases := []struct {
		name     string
		exp      faultExpect
		breakIt  func(o *faultOutcome)
		problems int
		dups     int
	}{
		{name: "all delivered once", breakIt: func(*faultOutcome) {}},
		{name: "reported at the wrong offset", problems: 1,
			breakIt: func(o *faultOutcome) { o.reports[2].Offset = 7 }},
		{name: "stored twice", problems: 2, dups: 1, // twice, and out of order
			breakIt: func(o *faultOutcome) { o.topic = append(o.topic, storedCopy(o.topic[2], 1)) }},
		{name: "stored twice, at least once", exp: faultExpect{atLeastOnce: true}, dups: 1,
			breakIt: func(o *faultOutcome) { o.topic = append(o.topic, storedCopy(o.topic[2], 1)) }},
		{name: "out of order", problems: 1, breakIt: func(o *faultOutcome) {
			o.topic[0].Offset, o.topic[1].Offset = 1, 0
			o.reports[0].Offset, o.reports[2].Offset = 1, 0
		}},
		{name: "unexpected failure", problems: 4, breakIt: func(o *faultOutcome) {
			// not allowed, stored anyway, no summary, and exit status 0
			failReport(o.reports[1], "boom")
		}},
		{name: "allowed failure, not stored", exp: faultExpect{mayFail: onPartitions(1)}, breakIt: func(o *faultOutcome) {
			failReport(o.reports[1], "boom")
			o.topic = o.topic[:2]
			o.res = kafkatest.Result{Code: 1, Stderr: "2 delivered, 1 failed\n"}
		}},
		{name: "allowed failure, maybe written and stored", exp: faultExpect{mayFail: onPartitions(1)}, breakIt: func(o *faultOutcome) {
			failReport(o.reports[1], "timeout: "+maybeWrittenNote)
			o.res = kafkatest.Result{Code: 1, Stderr: "2 delivered, 1 failed\n"}
		}},
		{name: "failure without its summary", exp: faultExpect{mayFail: onPartitions(1)}, problems: 1, breakIt: func(o *faultOutcome) {
			failReport(o.reports[1], "boom")
			o.topic = o.topic[:2]
			o.res = kafkatest.Result{Code: 1}
		}},
		{name: "must fail but delivered", exp: faultExpect{mustFail: onPartitions(1)}, problems: 1,
			breakIt: func(*faultOutcome) {}},
		{name: "a stored record that is no input", problems: 1, breakIt: func(o *faultOutcome) {
			o.topic = append(o.topic, &kgo.Record{Partition: 1, Offset: 1, Value: []byte("a")})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := checkerCase(in)
			tc.breakIt(o)
			st, p := o.evaluate(in, tc.exp)
			assert.Equal(t, tc.problems, p.n, "problems: %q", p.first)
			assert.Equal(t, tc.dups, st.duplicates)
		})
	}
}

// storedCopy is another copy of r at offset off of its partition.
func storedCopy(r *kgo.Record, off int64) *kgo.Record {
	c := *r
	c.Offset = off
	return &c
}
