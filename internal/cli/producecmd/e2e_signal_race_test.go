package producecmd_test

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// eofSignal is an input that, when its reader reaches the end, "sends the
// signal" (cancels the run's context) after spin scheduler yields: a
// signal racing the end of input, closer or further on either side.
type eofSignal struct {
	r      io.Reader
	cancel context.CancelFunc
	spin   int
	once   sync.Once
}

func (e *eofSignal) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		e.once.Do(func() {
			if e.spin == 0 {
				e.cancel() // before the reader sees the end
				return
			}
			go func() {
				for range e.spin {
					runtime.Gosched()
				}
				e.cancel()
			}()
		})
	}
	return n, err
}

// TestSignalRacingTheEndOfInput runs a transactional load many times with
// a signal sent as its input ends, at varying distances: whatever the
// order, the exit status and the reports agree with what was committed.
// Exit 0: every record reported delivered and visible read_committed;
// exit 130: every record reported failed as aborted, none visible.
func TestSignalRacingTheEndOfInput(t *testing.T) {
	const records = 2000
	runs := 40
	if kafkatest.LongTests() {
		runs = 400
	}
	c := oneBrokerCluster(t)
	input := strings.Repeat("x\n", records)
	outcomes := map[int]int{}
	for i := range runs {
		topic := fmt.Sprintf("race-%d", i)
		ctx, cancel := context.WithCancel(context.Background())
		in := &eofSignal{r: strings.NewReader(input), cancel: cancel, spin: (i % 8) * (i % 8) * 4}
		r := runKproduceCtx(t, ctx, in, "-b", kafkatest.Brokers(c), "-t", topic, "-p", "0", "--transactional-id", "race-"+strconv.Itoa(i), "-o", "json", "--linger", "1ms")
		cancel()
		outcomes[r.Code]++
		failed := strings.Count(r.Stdout, `"error":`)
		delivered := strings.Count(r.Stdout, "\n") - failed
		visible := countCommitted(t, c, topic)
		switch r.Code {
		case cmdutil.ExitOK:
			assert.Equal(t, records, delivered, "run %d: exit 0 reports every record delivered\n%s", i, r.Stderr)
			assert.Equal(t, records, visible, "run %d: exit 0: every record committed", i)
			assert.Contains(t, r.Stderr, "transaction committed: 2000 records", "run %d", i)
		case cmdutil.ExitInterrupted:
			assert.Equal(t, 0, delivered, "run %d: exit 130 reports no record delivered\n%s", i, r.Stderr)
			assert.Equal(t, records, failed, "run %d: every record reported failed", i)
			assert.Equal(t, 0, visible, "run %d: exit 130: nothing committed\n%s", i, r.Stderr)
			assert.Contains(t, r.Stderr, "transaction aborted: interrupted", "run %d", i)
		default:
			t.Errorf("run %d: exit %d\n%s", i, r.Code, r.Stderr)
		}
	}
	t.Logf("exit statuses over %d runs: %v", runs, outcomes)
}

// countCommitted returns how many records of topic are visible
// read_committed (see kafkatest.ReadCommittedRecords).
func countCommitted(t *testing.T, c *kfake.Cluster, topic string) int {
	t.Helper()
	n := 0
	for _, recs := range kafkatest.ReadCommittedRecords(t, c, topic) {
		n += len(recs)
	}
	return n
}
