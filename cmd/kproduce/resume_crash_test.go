package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/producecmd"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// resumeCluster is a cluster for one load test; the checkpoint topic is
// created by the first run.
func resumeCluster(t *testing.T) *kfake.Cluster {
	t.Helper()
	return kafkatest.ProducerCluster(t)
}

// killedExit is the exit code of a SIGKILLed process.
const killedExit = -1

// TestResumeAfterSIGKILL kills a 200,000-record load (20 transactions of
// 10,000) at one point, runs the same command again and reads the topic
// back: every line exactly once, in order per partition. The resumed run
// says how much the earlier run committed, and that is exactly the
// transactions whose commit the broker applied before the kill.
func TestResumeAfterSIGKILL(t *testing.T) {
	t.Parallel()
	points := []struct {
		point killPoint
		// committed is what the killed run committed; -1 when it depends on
		// batching (a kill during a chunk: some multiple of the chunk).
		committed int64
	}{
		{killPoint{key: kmsg.AddPartitionsToTxn, nth: 1}, 0},
		{killPoint{key: kmsg.Produce, nth: 2}, 0},
		{killPoint{key: kmsg.Produce, nth: 12, drop: true}, -1},
		{killPoint{key: kmsg.Produce, nth: 25}, -1},
		{killPoint{key: kmsg.EndTxn, nth: 1}, 10_000},             // commit applied, its answer lost
		{killPoint{key: kmsg.EndTxn, nth: 5, drop: true}, 40_000}, // commit sent, never applied
		{killPoint{key: kmsg.EndTxn, nth: 12}, 120_000},           // commit applied, its answer lost
		{killPoint{key: kmsg.EndTxn, nth: 17, drop: true}, 160_000},
		{killPoint{afterEndTxn: 3}, 30_000}, // right after a commit was answered
		{killPoint{afterEndTxn: 19}, 190_000},
		{killPoint{key: kmsg.EndTxn, nth: 20}, 200_000}, // every record committed, the closing checkpoint not
		{killPoint{key: kmsg.EndTxn, nth: 21}, 200_000}, // the closing checkpoint committed: nothing left
	}
	for _, tc := range points {
		t.Run(tc.point.String(), func(t *testing.T) {
			t.Parallel()
			c := resumeCluster(t)
			file := kafkatest.WriteFile(t, t.TempDir(), "load.txt", resumeLines(1, resumeRecords))
			k := armKiller(c, tc.point)
			code, stderr := k.run(t, nil, resumeArgs(c, file)...)
			require.True(t, k.killed(), "the kill point was reached; exit %d: %s", code, stderr)
			require.Equal(t, killedExit, code)

			code, stderr = runLoad(t, nil, resumeArgs(c, file)...)
			t.Logf("resumed run: exit %d: %s", code, strings.TrimSpace(stderr))
			require.Equal(t, cmdutil.ExitOK, code, stderr)
			assertResumedAfter(t, stderr, file, tc.committed)
			assertExactlyOnce(t, c, 1, resumeRecords)
		})
	}
}

// assertResumedAfter checks what a resumed run says it takes up: nothing
// printed for a load that committed nothing, "nothing left to do" for a
// finished one, else the records committed (committed; -1: some multiple
// of the chunk).
func assertResumedAfter(t *testing.T, stderr, file string, committed int64) {
	t.Helper()
	if strings.Contains(stderr, "nothing left to do") {
		assert.Equal(t, int64(resumeRecords), committed, "a finished load")
		assert.Contains(t, stderr, "the earlier runs loaded all of the input (200,000 records in 20 transactions")
		return
	}
	source, number, got, ok := resumedAt(stderr)
	if committed == 0 || (committed < 0 && !ok) {
		assert.False(t, ok, "nothing was committed: %s", stderr)
		return
	}
	require.True(t, ok, "the run says where it resumes: %s", stderr)
	assert.Equal(t, file, source)
	assert.Equal(t, got, number, "one source: the line number is the records count")
	if committed < 0 {
		assert.Zero(t, got%resumeChunk, "whole chunks were committed: %d", got)
		return
	}
	assert.Equal(t, committed, got)
}

// TestResumeKilledAgain kills the resumed run as well, while it reads the
// checkpoint and later in its own chunks; the third run finishes the load.
func TestResumeKilledAgain(t *testing.T) {
	t.Parallel()
	c := resumeCluster(t)
	file := kafkatest.WriteFile(t, t.TempDir(), "load.txt", resumeLines(1, resumeRecords))
	for i, point := range []killPoint{
		{key: kmsg.EndTxn, nth: 4},
		{key: kmsg.Fetch, nth: 1},          // reading the checkpoint back
		{key: kmsg.InitProducerID, nth: 1}, // fencing the killed run
		{key: kmsg.EndTxn, nth: 3, drop: true},
		{key: kmsg.Produce, nth: 10},
	} {
		k := armKiller(c, point)
		code, stderr := k.run(t, nil, resumeArgs(c, file)...)
		require.True(t, k.killed(), "run %d: kill at %s; exit %d: %s", i+1, point, code, stderr)
	}
	code, stderr := runLoad(t, nil, resumeArgs(c, file)...)
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	_, _, committed, ok := resumedAt(stderr)
	require.True(t, ok, stderr)
	t.Logf("the last run resumed after %d records", committed)
	assert.GreaterOrEqual(t, committed, int64(4+2)*resumeChunk, "4 commits in the first run, 2 in the fourth, some in the fifth")
	assert.Zero(t, committed%resumeChunk)
	assertExactlyOnce(t, c, 1, resumeRecords)
}

// TestResumeAfterSIGINT interrupts a load after a few commits: the open
// chunk is aborted, exit 130; the next run goes on from the last commit.
func TestResumeAfterSIGINT(t *testing.T) {
	t.Parallel()
	c := resumeCluster(t)
	file := kafkatest.WriteFile(t, t.TempDir(), "load.txt", resumeLines(1, resumeRecords))
	var ended atomic.Int32
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	c.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if ofLoad(req) && ended.Add(1) == 4 {
			c.SleepControl(func() { <-hold }) // the 4th commit waits: the interrupt comes during it
		}
		return nil, nil, false
	})
	proc := startProcess(t, nil, resumeArgs(c, file)...)
	kafkatest.WaitFor(t, time.Minute, "the fourth commit", func() bool { return ended.Load() >= 4 })
	proc.signal(t, syscall.SIGINT)
	code, _ := proc.wait(t, time.Minute)
	assert.Equal(t, cmdutil.ExitInterrupted, code, proc.stderr.String())

	code, stderr := runLoad(t, nil, resumeArgs(c, file)...)
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	_, _, committed, ok := resumedAt(stderr)
	require.True(t, ok, stderr)
	assert.Contains(t, []int64{3 * resumeChunk, 4 * resumeChunk}, committed, "the held commit may have been applied")
	assertExactlyOnce(t, c, 1, resumeRecords)
}

// TestResumeAfterAbortedChunk: a broker error fails a record, its chunk is
// aborted and the run exits 1; the next run produces that chunk and the
// rest.
func TestResumeAfterAbortedChunk(t *testing.T) {
	t.Parallel()
	c := resumeCluster(t)
	file := kafkatest.WriteFile(t, t.TempDir(), "load.txt", resumeLines(1, resumeRecords))
	// The first Produce after two commits fails: the third chunk is
	// aborted, whatever the number of requests a chunk takes.
	var ended atomic.Int32
	var fired atomic.Bool
	c.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if r, ok := req.(*kmsg.EndTxnRequest); ok && ofLoad(req) && r.Commit {
			ended.Add(1)
		}
		return nil, nil, false
	})
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: resumeTopic, Err: kerr.InvalidRecord,
		When: func(req kmsg.Request) bool {
			return ofLoad(req) && ended.Load() >= 2 && fired.CompareAndSwap(false, true)
		}})
	code, stderr := runLoad(t, nil, resumeArgs(c, file)...)
	require.Equal(t, cmdutil.ExitFailed, code, stderr)
	assert.Contains(t, stderr, "transaction aborted")

	code, stderr = runLoad(t, nil, resumeArgs(c, file)...)
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	_, _, committed, ok := resumedAt(stderr)
	require.True(t, ok, stderr)
	assert.Equal(t, int64(2*resumeChunk), committed, "the two chunks committed before the abort")
	assertExactlyOnce(t, c, 1, resumeRecords)
}

// TestResumeRefusesChangedInput: after a killed run, an input that changed
// in the committed part, got shorter than it, or is a different file is
// refused with exit 2 before anything is produced, naming the source and
// where; the unchanged input then resumes.
func TestResumeRefusesChangedInput(t *testing.T) {
	t.Parallel()
	c := resumeCluster(t)
	dir := t.TempDir()
	data := resumeLines(1, resumeRecords)
	file := kafkatest.WriteFile(t, dir, "load.txt", data)
	k := armKiller(c, killPoint{afterEndTxn: 3})
	_, _ = k.run(t, nil, resumeArgs(c, file)...)
	require.True(t, k.killed())
	produces := countProduces(c)

	changed := append([]byte{}, data...)
	changed[100] ^= 1 // in line 10-something, long committed
	short := data[:20_000]
	cases := []struct {
		name  string
		data  []byte
		other bool // the command names another file
		want  string
	}{
		{"a changed byte", changed, false, "load.txt (input 1): its first"},
		{"shorter", short, false, "load.txt (input 1): ends at byte 20000, before the"},
		{"another file", data, true, "other.txt (input 1): the earlier run read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := file
			if tc.other {
				path = kafkatest.WriteFile(t, dir, "other.txt", tc.data)
			} else {
				require.NoError(t, os.WriteFile(file, tc.data, 0o600))
			}
			code, stderr := runLoad(t, nil, resumeArgs(c, path)...)
			t.Log(strings.TrimSpace(stderr))
			assert.Equal(t, cmdutil.ExitUsage, code)
			assert.Contains(t, stderr, "error: --resume: ")
			assert.Contains(t, stderr, tc.want)
			assert.Contains(t, stderr, "nothing was produced")
			assert.Zero(t, produces.Load(), "no produce request")
		})
	}
	require.NoError(t, os.WriteFile(file, data, 0o600))
	code, stderr := runLoad(t, nil, resumeArgs(c, file)...)
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	assertExactlyOnce(t, c, 1, resumeRecords)
}

// TestResumeSeveralFiles kills a load of three files inside the second;
// the next run checks the first whole and the committed part of the
// second, and goes on from there.
func TestResumeSeveralFiles(t *testing.T) {
	t.Parallel()
	c := resumeCluster(t)
	dir := t.TempDir()
	files := []string{
		kafkatest.WriteFile(t, dir, "part-1.txt", resumeLines(1, 70_000)),
		kafkatest.WriteFile(t, dir, "part-2.txt", resumeLines(70_001, 70_000)),
		kafkatest.WriteFile(t, dir, "part-3.txt", resumeLines(140_001, 60_000)),
	}
	k := armKiller(c, killPoint{key: kmsg.EndTxn, nth: 11}) // 110,000 records: inside part-2
	_, _ = k.run(t, nil, resumeArgs(c, files...)...)
	require.True(t, k.killed())

	code, stderr := runLoad(t, nil, resumeArgs(c, files...)...)
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	source, number, committed, ok := resumedAt(stderr)
	require.True(t, ok, stderr)
	assert.Equal(t, files[1], source)
	assert.Equal(t, int64(110_000), committed)
	assert.Equal(t, int64(40_000), number, "line 40,000 of part-2")
	left := len(resumeLines(110_001, 30_000)) + len(resumeLines(140_001, 60_000))
	assert.Contains(t, stderr, fmt.Sprintf(", %.1f kB to go", float64(left)/1000), "the rest of part-2 and part-3")
	assertExactlyOnce(t, c, 1, resumeRecords)

	// A finished load: nothing is produced again.
	produces := countProduces(c)
	code, stderr = runLoad(t, nil, resumeArgs(c, files...)...)
	assert.Equal(t, cmdutil.ExitOK, code, stderr)
	assert.Contains(t, stderr, "nothing left to do")
	assert.Zero(t, produces.Load(), "no produce request")
}

// pipeStdin makes a process read data from a pipe, written by a goroutine.
func pipeStdin(t *testing.T, data []byte) func(*exec.Cmd) {
	return func(cmd *exec.Cmd) {
		w, err := cmd.StdinPipe()
		require.NoError(t, err)
		go func() {
			_, _ = w.Write(data)
			_ = w.Close()
		}()
	}
}

// TestResumeStdinPipe loads stdin from a pipe (zcat load.gz | kproduce
// --resume): killed mid-way, the same bytes piped again are checked and
// skipped as they stream in.
func TestResumeStdinPipe(t *testing.T) {
	t.Parallel()
	c := resumeCluster(t)
	data := resumeLines(1, resumeRecords)
	k := armKiller(c, killPoint{key: kmsg.EndTxn, nth: 9})
	_, _ = k.run(t, pipeStdin(t, data), resumeArgs(c)...)
	require.True(t, k.killed())

	statsFile := filepath.Join(t.TempDir(), "stats.json")
	code, stderr := runLoad(t, pipeStdin(t, data), append(resumeArgs(c), "--stats-json", statsFile)...)
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	var stats producecmd.StatsSummary
	kafkatest.ReadStatsJSON(t, statsFile, &stats)
	assert.Equal(t, int64(90_000), stats.RecordsSkipped, "--stats counts the skipped records apart")
	assert.Equal(t, int64(110_000), stats.RecordsDelivered)
	source, _, committed, ok := resumedAt(stderr)
	require.True(t, ok, stderr)
	assert.Equal(t, "-", source)
	assert.Equal(t, int64(90_000), committed)
	assert.Contains(t, stderr, "the rest of the input to go")
	assertExactlyOnce(t, c, 1, resumeRecords)

	// Other bytes on stdin are refused.
	code, stderr = runLoad(t, pipeStdin(t, resumeLines(2, 1000)), resumeArgs(c)...)
	assert.Equal(t, cmdutil.ExitUsage, code)
	assert.Contains(t, stderr, "- (input 1): ")
}

// TestResumeFinishedFileGrown: a file the earlier run read to its end
// must still end there.
func TestResumeFinishedFileGrown(t *testing.T) {
	t.Parallel()
	c := resumeCluster(t)
	file := kafkatest.WriteFile(t, t.TempDir(), "load.txt", resumeLines(1, 25_000))
	code, stderr := runLoad(t, nil, resumeArgs(c, file)...)
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	assert.Contains(t, stderr, "3 transactions committed: 25000 records")
	require.NoError(t, os.WriteFile(file, resumeLines(1, 25_001), 0o600))
	code, stderr = runLoad(t, nil, resumeArgs(c, file)...)
	assert.Equal(t, cmdutil.ExitUsage, code)
	assert.Contains(t, stderr, filepath.Base(file)+" (input 1): has grown: the earlier run read it to its end at byte")
}

// TestResumeKilledAtRandomMoments kills one load again and again, each
// run after a random time (seeded), until a run finishes it: wherever
// the kills land, the topic holds every line exactly once.
//
// While runs commit nothing (the machine, loaded, is slower than the
// window of random times needs), the window doubles every third run, so
// that the load ends however loaded the machine is.
func TestResumeKilledAtRandomMoments(t *testing.T) {
	t.Parallel()
	c := resumeCluster(t)
	var commits atomic.Int32
	c.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if ofLoad(req) {
			commits.Add(1)
		}
		return nil, nil, false
	})
	file := kafkatest.WriteFile(t, t.TempDir(), "load.txt", resumeLines(1, resumeRecords))
	rng := rand.New(rand.NewPCG(14, 200_000))
	window, stalled, kills := 250*time.Millisecond, 0, 0
	for run := 1; ; run++ {
		require.Less(t, run, 60, "the load never finished")
		committed := commits.Load()
		proc := startProcess(t, nil, resumeArgs(c, file)...)
		delay := time.Duration(rng.IntN(int(window/time.Millisecond))) * time.Millisecond
		select {
		case <-proc.done:
		case <-time.After(delay):
			_ = proc.cmd.Process.Kill()
		}
		code, _ := proc.wait(t, resumeWithin)
		t.Logf("run %d: kill after %v of %v: exit %d: %s", run, delay.Round(time.Millisecond), window, code, strings.TrimSpace(proc.stderr.String()))
		if code == cmdutil.ExitOK {
			break
		}
		require.Equal(t, killedExit, code, proc.stderr.String())
		kills++
		if stalled++; commits.Load() > committed {
			stalled = 0
		} else if stalled == 3 {
			window, stalled = 2*window, 0
		}
	}
	t.Logf("%d runs killed", kills)
	assertExactlyOnce(t, c, 1, resumeRecords)
}

// TestResumeCount: --count counts the records of the whole load, the
// earlier runs' included; raised or dropped, the load goes on.
func TestResumeCount(t *testing.T) {
	t.Parallel()
	c := resumeCluster(t)
	file := kafkatest.WriteFile(t, t.TempDir(), "load.txt", resumeLines(1, 60_000))
	args := func(count string) []string { return append(resumeArgs(c, file), "--count", count) }
	code, stderr := runLoad(t, nil, args("25000")...)
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	code, stderr = runLoad(t, nil, args("25000")...)
	assert.Equal(t, cmdutil.ExitOK, code, stderr)
	assert.Contains(t, stderr, "nothing left to do: the earlier runs produced the --count 25,000 records")
	code, stderr = runLoad(t, nil, args("40000")...)
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	_, _, committed, _ := resumedAt(stderr)
	assert.Equal(t, int64(25_000), committed)
	assert.Contains(t, stderr, "2 transactions committed: 15000 records")
	code, stderr = runLoad(t, nil, resumeArgs(c, file)...)
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	assertExactlyOnce(t, c, 1, 60_000)
}

// TestResumeAfterCommitOutcomeUnknown: the coordinator holds (or drops)
// the fourth commit and its retries past the run's deadline, so the run
// ends saying its outcome is unknown (exit 1). Whether the held commit then stands or not, the next
// run's fencing settles it first and the run goes on from what it left.
func TestResumeAfterCommitOutcomeUnknown(t *testing.T) {
	t.Parallel()
	for _, applied := range []bool{true, false} {
		t.Run(fmt.Sprintf("applied=%v", applied), func(t *testing.T) {
			t.Parallel()
			c := resumeCluster(t)
			file := kafkatest.WriteFile(t, t.TempDir(), "load.txt", resumeLines(1, resumeRecords))
			wake := make(chan struct{})
			var once sync.Once
			release := func() { once.Do(func() { close(wake) }) }
			t.Cleanup(release)
			var ended atomic.Int32
			var held, woken atomic.Int32 // EndTxn requests held, and woken since
			var holding atomic.Bool
			holding.Store(true)
			c.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				// The fourth commit, and its retries: the run retries an
				// unanswered EndTxn until its deadline.
				if !ofLoad(req) || ended.Add(1) < 4 || !holding.Load() {
					return nil, nil, false
				}
				held.Add(1)
				defer woken.Add(1)
				c.SleepControl(func() { <-wake })
				if !applied {
					return nil, errors.New("the held commit is dropped"), true
				}
				return nil, nil, false
			})
			args := append(resumeArgs(c, file), "--delivery-timeout", "2s", "--request-timeout", "500ms")
			code, stderr := runLoad(t, nil, args...)
			require.Equal(t, cmdutil.ExitFailed, code, stderr)
			assert.Contains(t, stderr, "transaction outcome unknown: ")
			holding.Store(false)
			release()
			// The held requests are handled before the next run's.
			kafkatest.WaitFor(t, 10*time.Second, "the held commits handled", func() bool { return woken.Load() == held.Load() })

			code, stderr = runLoad(t, nil, resumeArgs(c, file)...)
			require.Equal(t, cmdutil.ExitOK, code, stderr)
			_, _, committed, ok := resumedAt(stderr)
			require.True(t, ok, stderr)
			want := int64(3 * resumeChunk)
			if applied {
				want = 4 * resumeChunk
			}
			assert.Equal(t, want, committed)
			assertExactlyOnce(t, c, 1, resumeRecords)
		})
	}
}
