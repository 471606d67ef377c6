package producecmd_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// originLines is the input of the origin tests: keyed lines (the keys
// spread every read over all partitions) whose value names the line.
func originLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "k%d,line-%06d\n", i, i)
	}
	return b.String()
}

// originLineOf is the line number a value of originLines names.
func originLineOf(t *testing.T, value []byte) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.TrimPrefix(string(value), "line-"), 10, 64)
	require.NoError(t, err, "value %q", value)
	return n
}

// failureLine is a failure report on stderr: "error: FILE:N: t/P: ...".
var failureLine = regexp.MustCompile(`^error: (.+):(\d+): t/(\d+): (.*)$`)

// TestE2EFailureReportsNameTheirRecords: the records of one partition
// fail (its leader refuses them) while the others deliver, reads after
// reads, so that the memory of each read's record positions is reused
// while failures of earlier reads are still being reported. Every report
// must name its own record: the failures are exactly the input lines
// not stored, each once, on the failing partition; and, with json
// reports, each delivery names the line stored at its offset.
func TestE2EFailureReportsNameTheirRecords(t *testing.T) {
	t.Parallel()
	const lines = 40_000
	file := writeFile(t, "in.txt", originLines(lines))
	for _, output := range []string{"none", "json"} {
		t.Run(output, func(t *testing.T) {
			t.Parallel()
			c := kafkatest.ProducerCluster(t)
			c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "t", Partitions: []int32{2},
				Err: kerr.InvalidRecord, Count: -1})
			res := produceTo(t, c, nil, "-t", "t", "-K", ",", "-o", output, file)
			require.Equal(t, 1, res.Code, "records failed: %s", firstLines(res.Stderr, 5))

			failed := map[int64]bool{}
			var delivered []kafkatest.JSONReport
			if output == "json" {
				for _, rep := range kafkatest.ParseJSONReports(t, res.Stdout) {
					require.Equal(t, file, rep.Source)
					if rep.Error == nil {
						delivered = append(delivered, rep)
						continue
					}
					require.Equal(t, int32(2), rep.Partition, "failure of line %d", rep.Record)
					require.False(t, failed[rep.Record], "line %d reported twice", rep.Record)
					failed[rep.Record] = true
				}
			} else {
				for _, l := range strings.Split(strings.TrimSpace(res.Stderr), "\n") {
					m := failureLine.FindStringSubmatch(l)
					if m == nil {
						continue // the summary
					}
					require.Equal(t, file, m[1], l)
					require.Equal(t, "2", m[3], l)
					require.Contains(t, m[4], "INVALID_RECORD", l)
					n, _ := strconv.ParseInt(m[2], 10, 64)
					require.False(t, failed[n], "line %d reported twice", n)
					failed[n] = true
				}
			}
			require.NotEmpty(t, failed, "no record failed")

			stored := kafkatest.ConsumeExactly(t, c, "t", lines-len(failed))
			at := map[string]int64{} // partition/offset -> line
			seen := map[int64]bool{}
			for _, r := range stored {
				n := originLineOf(t, r.Value)
				require.False(t, failed[n], "line %d reported failed, yet stored", n)
				require.False(t, seen[n], "line %d stored twice", n)
				seen[n] = true
				require.Equal(t, fmt.Sprintf("k%d", n), string(r.Key))
				at[fmt.Sprintf("%d/%d", r.Partition, r.Offset)] = n
			}
			assert.Len(t, at, lines-len(failed), "every other line stored once")
			for n := range failed {
				require.True(t, n >= 1 && n <= lines, "failure of line %d, not in the input", n)
			}
			if output == "json" {
				require.Len(t, delivered, lines-len(failed))
				for _, rep := range delivered {
					require.Equal(t, rep.Record, at[fmt.Sprintf("%d/%d", rep.Partition, rep.Offset)],
						"the delivery report of line %d names another record's offset", rep.Record)
				}
			}
		})
	}
}

// firstLines is the first n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
