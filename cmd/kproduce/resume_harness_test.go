package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// The --resume tests run the real binary as a child process, SIGKILL it
// from inside the broker at a chosen request, run the same command again
// and read the topic back read_committed with franz-go: every input line
// exactly once, in input order per partition.

const (
	resumeTxnID   = "load"
	resumeRecords = 200_000
	resumeChunk   = 10_000
	resumeTopic   = "t"
	// resumeWithin bounds one run of a 200,000-record load.
	resumeWithin = 2 * time.Minute
)

// resumeLines is the input of a load: "k<i%97>:<i>" lines from first to
// first+n-1, keyed so that the records spread over the partitions and
// the value tells the line.
func resumeLines(first, n int) []byte {
	var b strings.Builder
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, "k%d:%d\n", i%97, i)
	}
	return []byte(b.String())
}

// resumeArgs is the command of a load of files.
func resumeArgs(c *kfake.Cluster, files ...string) []string {
	return append([]string{"-b", kafkatest.Brokers(c), "-t", resumeTopic, "-K", ":", "--transactional-id", resumeTxnID,
		"--transaction-records", strconv.Itoa(resumeChunk), "--resume", "-o", "none", "--linger", "2ms"}, files...)
}

// killPoint picks the request at which a run is killed.
type killPoint struct {
	key  kmsg.Key
	nth  int  // the nth request of key from the load's producer (1-based)
	drop bool // the broker never handles the request (its connection closes); else it does, after the kill
	// afterEndTxn, when > 0, kills at the first request of the load's
	// producer after its afterEndTxn-th EndTxn was answered; key and nth
	// are then unused.
	afterEndTxn int
}

// String names the point for test names and logs.
func (k killPoint) String() string {
	if k.afterEndTxn > 0 {
		return fmt.Sprintf("right after commit %d", k.afterEndTxn)
	}
	what := "handled"
	if k.drop {
		what = "dropped"
	}
	return fmt.Sprintf("%s #%d %s", k.key.Name(), k.nth, what)
}

// ofLoad reports whether req comes from the load's transactional
// producer (the test's own clients send none of these).
func ofLoad(req kmsg.Request) bool {
	switch r := req.(type) {
	case *kmsg.ProduceRequest:
		return r.TransactionID != nil && *r.TransactionID == resumeTxnID
	case *kmsg.EndTxnRequest:
		return r.TransactionalID == resumeTxnID
	case *kmsg.AddPartitionsToTxnRequest:
		return r.TransactionalID == resumeTxnID
	case *kmsg.InitProducerIDRequest:
		return r.TransactionalID != nil && *r.TransactionalID == resumeTxnID
	case *kmsg.FetchRequest, *kmsg.ListOffsetsRequest:
		return true // only kproduce reads while a load runs
	}
	return false
}

// killer SIGKILLs the running process at its kill point, once.
type killer struct {
	mu     sync.Mutex
	point  killPoint
	proc   *process
	counts map[int16]int
	ended  int  // EndTxn requests seen
	fired  bool // the process was killed
	armed  atomic.Bool
}

// arm installs the killer on c; start sets the process to kill.
func armKiller(c *kfake.Cluster, point killPoint) *killer {
	k := &killer{point: point, counts: map[int16]int{}}
	k.armed.Store(true)
	c.Control(func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if !k.armed.Load() || !ofLoad(req) {
			return nil, nil, false
		}
		if k.shouldKill(req) {
			k.kill()
			if k.point.drop {
				return nil, fmt.Errorf("dropped at the kill point"), true
			}
		}
		return nil, nil, false
	})
	return k
}

// shouldKill counts req and reports whether it is the kill point.
func (k *killer) shouldKill(req kmsg.Request) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fired || k.proc == nil {
		return false
	}
	k.counts[req.Key()]++
	if k.point.afterEndTxn > 0 {
		if req.Key() == int16(kmsg.EndTxn) {
			k.ended++
			return false
		}
		return k.ended >= k.point.afterEndTxn
	}
	return req.Key() == int16(k.point.key) && k.counts[req.Key()] == k.point.nth
}

// kill SIGKILLs the process and waits for it to be gone.
func (k *killer) kill() {
	k.mu.Lock()
	p := k.proc
	k.fired = true
	k.mu.Unlock()
	_ = p.cmd.Process.Kill()
	<-p.done
}

// run starts the load's command and returns once it exited; the killer
// may kill it.
func (k *killer) run(t *testing.T, configure func(*exec.Cmd), args ...string) (code int, stderr string) {
	t.Helper()
	proc := startProcess(t, configure, args...)
	k.mu.Lock()
	k.proc = proc
	k.mu.Unlock()
	code, _ = proc.wait(t, resumeWithin)
	k.armed.Store(false)
	return code, proc.stderr.String()
}

// killed reports whether the kill point was reached.
func (k *killer) killed() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.fired
}

// countProduces counts the Produce requests of the load's producer.
func countProduces(c *kfake.Cluster) *atomic.Int32 {
	var n atomic.Int32
	c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if ofLoad(req) {
			n.Add(1)
		}
		return nil, nil, false
	})
	return &n
}

// runLoad runs the load's command to its end, without killing it.
func runLoad(t *testing.T, configure func(*exec.Cmd), args ...string) (code int, stderr string) {
	t.Helper()
	proc := startProcess(t, configure, args...)
	code, _ = proc.wait(t, resumeWithin)
	return code, proc.stderr.String()
}

var resumedRe = regexp.MustCompile(`resumed after (.+):([0-9,]+): ([0-9,]+) records committed by an earlier run \(([0-9,]+) transactions?\), (.+) to go`)

// resumedAt parses the line a resumed run prints: the source, the record
// number in it and the records committed earlier; ok is false when the run
// printed none.
func resumedAt(stderr string) (source string, number, committed int64, ok bool) {
	m := resumedRe.FindStringSubmatch(stderr)
	if m == nil {
		return "", 0, 0, false
	}
	num := func(s string) int64 {
		n, _ := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
		return n
	}
	return m[1], num(m[2]), num(m[3]), true
}

// assertExactlyOnce checks that the topic holds the lines first..last of
// the input, each exactly once, in input order within each partition.
func assertExactlyOnce(t *testing.T, c *kfake.Cluster, first, last int) {
	t.Helper()
	seen := make(map[int]int, last-first+1)
	total, outOfOrder := 0, 0
	for p, recs := range kafkatest.ReadCommittedRecords(t, c, resumeTopic) {
		prev := -1
		for _, r := range recs {
			n, err := strconv.Atoi(string(r.Value))
			require.NoError(t, err, "value %q", r.Value)
			require.Equal(t, fmt.Sprintf("k%d", n%97), string(r.Key), "key of line %d", n)
			if n <= prev {
				outOfOrder++
				if outOfOrder < 5 {
					t.Errorf("partition %d: line %d after line %d", p, n, prev)
				}
			}
			prev = n
			seen[n]++
			total++
		}
	}
	missing, dup := 0, 0
	for n := first; n <= last; n++ {
		switch seen[n] {
		case 0:
			missing++
		case 1:
		default:
			dup += seen[n] - 1
		}
	}
	t.Logf("read back %d records: %d missing, %d duplicated, %d out of order", total, missing, dup, outOfOrder)
	assert.Zero(t, missing, "missing records")
	assert.Zero(t, dup, "duplicated records")
	assert.Zero(t, outOfOrder, "records out of input order in their partition")
	assert.Equal(t, last-first+1, total)
}
