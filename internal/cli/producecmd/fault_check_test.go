package producecmd_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// maybeWrittenNote is what the report of a record says when its outcome
// is unknown: it failed, but the broker may have stored it.
const maybeWrittenNote = "may or may not have been written"

// faultExpect is what a scenario allows besides "every record delivered
// exactly once, in order".
type faultExpect struct {
	// atLeastOnce is for runs without idempotence: a delivered record must
	// be stored at its reported offset, but may be stored more than once
	// (the duplicates are counted) and order is not checked.
	atLeastOnce bool
	// mustFail selects the records that must fail; nil selects none.
	mustFail func(*faultReport) bool
	// mayFail selects the records that may fail; nil selects none beyond
	// mustFail.
	mayFail func(*faultReport) bool
	// reason, when set, is text that every failure's error contains.
	reason string
	// unknownOffsets allows a delivered record to be reported without an
	// offset (-1), as for a batch the broker answered with
	// DUPLICATE_SEQUENCE_NUMBER; it must then be stored exactly once, on
	// its reported partition.
	unknownOffsets bool
}

// faultStats counts a run's outcomes.
type faultStats struct {
	delivered, failed int
	// maybeWritten failures said the broker may have stored the record;
	// maybeStored of them were found in the topic.
	maybeWritten, maybeStored int
	// duplicates is how many extra copies of records the topic holds;
	// duplicated is how many records have extra copies.
	duplicates, duplicated int
	requests               int // Produce requests the cluster received
	producerIDs            int // InitProducerId requests the cluster received
}

// problems collects check failures, so that a systematic fault over many
// records reports a few examples and a count instead of every record.
type problems struct {
	n     int
	first []string
}

func (p *problems) addf(format string, args ...any) {
	p.n++
	if len(p.first) < 15 {
		p.first = append(p.first, fmt.Sprintf(format, args...))
	}
}

// faultCheck is the shared checker: it holds the reports against the
// topic's content read back with kgo and against the scenario's
// expectations, fails the test on any violation and returns the counts.
//
//   - every input line has exactly one report (parseFaultReports);
//   - a delivered record is stored at its reported partition and offset
//     with its key and value, exactly once (at least once without
//     idempotence), and its key always maps to the same partition;
//   - with idempotence, every partition holds its records in input order;
//   - a failed record is not stored, unless its report says it may have
//     been written;
//   - the exit status is 1 when a record failed, 0 otherwise.
func (o *faultOutcome) faultCheck(t *testing.T, fc *faultCluster, in *faultInput, exp faultExpect) faultStats {
	t.Helper()
	st, p := o.evaluate(in, exp)
	st.requests, st.producerIDs = fc.produceRequests(), fc.producerIDRequests()
	t.Logf("%d records in %s: %d delivered, %d failed (%d maybe written, %d of them stored), %d duplicates of %d records, %d stored, %d produce requests, %d producer ids",
		len(o.reports), o.elapsed.Round(time.Millisecond), st.delivered, st.failed, st.maybeWritten, st.maybeStored,
		st.duplicates, st.duplicated, len(o.topic), st.requests, st.producerIDs)
	if p.n > 0 {
		t.Errorf("%d problems; the first:\n  %s\nstderr tail:\n%s", p.n, strings.Join(p.first, "\n  "), tail(o.res.Stderr, 3000))
	}
	return st
}

// evaluate is faultCheck without the test: the counts and the problems.
func (o *faultOutcome) evaluate(in *faultInput, exp faultExpect) (faultStats, *problems) {
	p := new(problems)
	copies, at, where := indexTopic(p, in, o.topic)
	st := o.checkReports(p, in, exp, copies, at, where)
	if !exp.atLeastOnce {
		checkOrder(p, o.topic)
	}
	wantCode := 0
	if st.failed > 0 {
		wantCode = 1
		if want := fmt.Sprintf("%d delivered, %d failed", st.delivered, st.failed); !strings.Contains(o.res.Stderr, want) {
			p.addf("stderr has no summary %q", want)
		}
	}
	if o.res.Code != wantCode {
		p.addf("exit status %d, want %d", o.res.Code, wantCode)
	}
	return st, p
}

// checkReports checks each record's report against the topic's content.
func (o *faultOutcome) checkReports(p *problems, in *faultInput, exp faultExpect, copies []int,
	at map[[2]int64]*kgo.Record, where map[int][]*kgo.Record) faultStats {
	var st faultStats
	keyPartition := make(map[string]int32)
	for i, rep := range o.reports {
		line := i + 1
		if rep.Error == nil {
			st.delivered++
			if rep.Offset == -1 && exp.unknownOffsets {
				checkDeliveredSomewhere(p, rep, where[i], exp.atLeastOnce)
			} else {
				checkDelivered(p, in, rep, at, copies[i], exp.atLeastOnce)
			}
			if kp, ok := keyPartition[in.keys[i]]; ok && kp != rep.Partition {
				p.addf("line %d: key %s delivered to partition %d, earlier to %d", line, in.keys[i], rep.Partition, kp)
			}
			keyPartition[in.keys[i]] = rep.Partition
			if exp.mustFail != nil && exp.mustFail(rep) {
				p.addf("line %d: delivered to %d@%d, but it must fail", line, rep.Partition, rep.Offset)
			}
		} else {
			st.failed++
			checkFailed(p, rep, copies[i], exp, &st)
		}
		if copies[i] > 1 {
			st.duplicates += copies[i] - 1
			st.duplicated++
		}
	}
	return st
}

// indexTopic counts the stored copies of every input line and indexes the
// stored records by partition and offset (at) and by line index (where). A
// stored record that is not an input line, intact, is a problem.
func indexTopic(p *problems, in *faultInput, recs []*kgo.Record) (copies []int, at map[[2]int64]*kgo.Record, where map[int][]*kgo.Record) {
	copies = make([]int, len(in.keys))
	at = make(map[[2]int64]*kgo.Record, len(recs))
	where = make(map[int][]*kgo.Record)
	for _, r := range recs {
		at[[2]int64{int64(r.Partition), r.Offset}] = r
		line, ok := lineOf(r.Value)
		if !ok || line < 1 || line > len(in.keys) {
			p.addf("stored %d@%d: value %q (key %q, %d headers, timestamp %s) is no input line",
				r.Partition, r.Offset, r.Value, r.Key, len(r.Headers), r.Timestamp)
			continue
		}
		copies[line-1]++
		where[line-1] = append(where[line-1], r)
		if string(r.Key) != in.keys[line-1] || string(r.Value) != in.values[line-1] {
			p.addf("stored %d@%d: line %d as key %q value %q", r.Partition, r.Offset, line, r.Key, r.Value)
		}
	}
	return copies, at, where
}

// checkDelivered checks one delivered record against the topic.
func checkDelivered(p *problems, in *faultInput, rep *faultReport, at map[[2]int64]*kgo.Record, copies int, atLeastOnce bool) {
	line := rep.Record
	r := at[[2]int64{int64(rep.Partition), rep.Offset}]
	switch {
	case r == nil:
		p.addf("line %d: reported delivered at %d@%d, nothing stored there (%d copies elsewhere)", line, rep.Partition, rep.Offset, copies)
		return
	case string(r.Value) != in.values[line-1]:
		p.addf("line %d: reported at %d@%d, which holds %q", line, rep.Partition, rep.Offset, r.Value)
		return
	}
	if copies != 1 && !atLeastOnce {
		p.addf("line %d: delivered, stored %d times", line, copies)
	}
}

// checkDeliveredSomewhere checks a record delivered at an unknown offset:
// it is stored on its reported partition, once (at least once without
// idempotence).
func checkDeliveredSomewhere(p *problems, rep *faultReport, stored []*kgo.Record, atLeastOnce bool) {
	line := rep.Record
	if len(stored) == 0 || len(stored) > 1 && !atLeastOnce {
		p.addf("line %d: delivered at an unknown offset, stored %d times", line, len(stored))
		return
	}
	for _, r := range stored {
		if r.Partition != rep.Partition {
			p.addf("line %d: delivered to partition %d, stored on %d", line, rep.Partition, r.Partition)
		}
	}
}

// checkFailed checks one failed record: not stored unless its report says
// it may have been, and allowed to fail by the scenario.
func checkFailed(p *problems, rep *faultReport, copies int, exp faultExpect, st *faultStats) {
	line, msg := rep.Record, *rep.Error
	maybe := strings.Contains(msg, maybeWrittenNote)
	switch {
	case maybe && copies > 1 && !exp.atLeastOnce:
		p.addf("line %d: failed (%s), stored %d times", line, msg, copies)
	case maybe:
		st.maybeWritten++
		if copies > 0 {
			st.maybeStored++
		}
	case copies > 0:
		p.addf("line %d: reported failed (%s) but stored %d times", line, msg, copies)
	}
	must := exp.mustFail != nil && exp.mustFail(rep)
	may := exp.mayFail != nil && exp.mayFail(rep)
	if !must && !may {
		p.addf("line %d: unexpected failure on partition %d: %s", line, rep.Partition, msg)
	}
	if exp.reason != "" && !strings.Contains(msg, exp.reason) {
		p.addf("line %d: failure %q does not say %q", line, msg, exp.reason)
	}
}

// checkOrder checks that every partition holds its lines in input order.
func checkOrder(p *problems, recs []*kgo.Record) {
	sorted := slices.Clone(recs)
	slices.SortFunc(sorted, func(a, b *kgo.Record) int {
		return cmp.Or(cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Offset, b.Offset))
	})
	prev := map[int32]int{}
	for _, r := range sorted {
		line, ok := lineOf(r.Value)
		if !ok {
			continue // reported by indexTopic
		}
		if last, seen := prev[r.Partition]; seen && line <= last {
			p.addf("partition %d: line %d stored at offset %d after line %d", r.Partition, line, r.Offset, last)
		}
		prev[r.Partition] = line
	}
}

// onPartitions selects the reports of the given partitions.
func onPartitions(ps ...int32) func(*faultReport) bool {
	return func(r *faultReport) bool { return slices.Contains(ps, r.Partition) }
}
