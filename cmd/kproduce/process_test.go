package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// process is a kproduce binary running for one test.
type process struct {
	cmd            *exec.Cmd
	stdout, stderr kafkatest.LockedBuffer
	started        time.Time
	done           chan struct{} // closed when the process has exited
	waitErr        error         // set before done is closed
}

// startProcess starts the kproduce binary with args. stdin, stdout and
// stderr are set up by configure when it is not nil (e.g. pipes);
// otherwise stdin is empty and stdout and stderr are captured. The
// process is killed when the test ends, if it still runs.
func startProcess(t testing.TB, configure func(*exec.Cmd), args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(kafkatest.Binary(t), args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.Env = append(os.Environ(), "KPRODUCE_LOG_LEVEL=error")
	if configure != nil {
		configure(p.cmd)
	}
	require.NoError(t, p.cmd.Start())
	p.started = time.Now()
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits for the process to exit, failing the test if it runs longer
// than within after it started, and returns its exit status (-1 when a
// signal killed it) and how long it ran.
func (p *process) wait(t testing.TB, within time.Duration) (int, time.Duration) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(time.Until(p.started.Add(within))):
		t.Fatalf("kproduce did not exit within %s; stderr:\n%s", within, p.stderr.String())
	}
	elapsed := time.Since(p.started)
	var exit *exec.ExitError
	if p.waitErr != nil && !errors.As(p.waitErr, &exit) {
		require.NoError(t, p.waitErr)
	}
	return p.cmd.ProcessState.ExitCode(), elapsed
}

// signal sends sig to the running process.
func (p *process) signal(t testing.TB, sig os.Signal) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(sig))
}

// exited reports whether the process has exited.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// cpuTime is the CPU time (user and system) the exited process used.
func (p *process) cpuTime() time.Duration {
	return p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
}

// trackPeakRSS samples the process's peak resident set size (VmHWM in
// /proc/PID/status) until it exits, and returns a function that waits for
// the exit and returns the last sample, in bytes. The rusage of the exited
// process cannot serve: its ru_maxrss also counts the memory of the test
// process the child was forked from.
func (p *process) trackPeakRSS(t testing.TB) func() int64 {
	t.Helper()
	status := fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid)
	var peak atomic.Int64
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			// A sample taken once the process was reaped may be of
			// another process that got its id: it is dropped.
			if hwm, ok := readVmHWM(status); ok && !p.exited() {
				peak.Store(max(peak.Load(), hwm))
			}
			select {
			case <-p.done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 {
		<-sampled
		return peak.Load()
	}
}

// readVmHWM reads the VmHWM line of a /proc status file, in bytes.
func readVmHWM(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
			return n << 10, err == nil
		}
	}
	return 0, false
}

// signalPending reports whether sig is pending for the process: sent and
// not yet delivered to it (SigPnd and ShdPnd of /proc/PID/status).
func (p *process) signalPending(sig syscall.Signal) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return false // exited
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, mask, ok := strings.Cut(line, ":")
		if !ok || (name != "SigPnd" && name != "ShdPnd") {
			continue
		}
		if bits, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64); err == nil && bits&(1<<(sig-1)) != 0 {
			return true
		}
	}
	return false
}

// waitingForFIFOWriter reports whether a thread of the process sleeps in
// the kernel's open of a named pipe, waiting for a writer
// (/proc/PID/task/TID/wchan).
func (p *process) waitingForFIFOWriter() bool {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", p.cmd.Process.Pid))
	for _, wchan := range tasks {
		if b, err := os.ReadFile(wchan); err == nil && string(b) == "wait_for_partner" {
			return true
		}
	}
	return false
}
