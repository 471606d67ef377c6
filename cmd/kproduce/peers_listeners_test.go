package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// peerDeliveryTimeout is the --delivery-timeout of the hostile peer
// tests: short, so a run that waits for it still ends quickly.
const peerDeliveryTimeout = time.Second

// peerMargin is what a hostile peer run may take beyond its delivery
// timeout: connection setup, the close and printing. It is generous on
// purpose: the point is that the run ends in bounded time, not how fast.
const peerMargin = 5 * time.Second

// peerArgs are the flags of a run against a hostile peer at addr.
func peerArgs(addr string, extra ...string) []string {
	args := []string{"-b", addr, "-t", "t", "--delivery-timeout", peerDeliveryTimeout.String(),
		"--request-timeout", "500ms", "--linger", "0s", "--log-level", "disabled"}
	return append(args, extra...)
}

// peerRun runs the kproduce binary against addr with three records and
// checks the promise for a peer that cannot take them: exit 1 in bounded
// time without spinning, no delivery, each record read reported failed
// once, in order, with its position and a reason matching reason, and the
// summary last.
//
// When fatal is false the producer keeps trying until the delivery timeout,
// so all three records are read and fail. When it is true the peer is
// recognised as unusable for good: reading stops then (the records read
// so far fail) and one more line names the broker and the cause.
func peerRun(t *testing.T, addr string, within time.Duration, reason *regexp.Regexp, fatal bool, extra ...string) []string {
	t.Helper()
	proc := startProcess(t, func(cmd *exec.Cmd) { cmd.Stdin = strings.NewReader("a\nb\nc\n") }, peerArgs(addr, extra...)...)
	code, elapsed := proc.wait(t, within+time.Minute)
	res := kafkatest.Result{Stdout: proc.stdout.String(), Stderr: proc.stderr.String(), Code: code}
	cpu := proc.cpuTime()
	t.Logf("exit %d after %v (cpu %v); stderr:\n%s", res.Code, elapsed.Round(time.Millisecond), cpu.Round(time.Millisecond), res.Stderr)
	require.Equal(t, 1, res.Code, res.Stderr)
	assert.Less(t, elapsed, within, "the run must end in bounded time")
	assertNoSpin(t, cpu, elapsed)
	assert.Empty(t, res.Stdout)
	errs := kafkatest.Lines(res.Stderr)
	failures := kafkatest.LinesWith(res.Stderr, "error: -:")
	sort.Strings(failures)
	switch {
	case fatal && len(failures) == 0:
		// Recognised before the first record was read: only the cause.
		require.Len(t, errs, 1, "the cause alone:\n%s", res.Stderr)
		assert.Regexp(t, `^error: .*`+reason.String(), errs[0])
		assert.Contains(t, errs[0], addr)
		return nil
	case fatal:
		require.Len(t, errs, len(failures)+2, "the records read, the cause and the summary:\n%s", res.Stderr)
		cause := kafkatest.Filter(errs, func(l string) bool { return !strings.HasPrefix(l, "error: -:") && strings.Contains(l, addr) })
		require.Len(t, cause, 1, "one line names the broker and the cause:\n%s", res.Stderr)
		assert.Regexp(t, `^error: .*`+reason.String(), cause[0])
	default:
		require.Len(t, failures, 3, "one line per record:\n%s", res.Stderr)
		require.Len(t, errs, 4, "one line per record and the summary:\n%s", res.Stderr)
	}
	for i, l := range failures {
		assert.Regexp(t, fmt.Sprintf(`^error: -:%d: t/-?\d+: `, i+1), l)
		assert.Regexp(t, reason, l)
	}
	assert.Equal(t, fmt.Sprintf("0 delivered, %d failed", len(failures)), errs[len(errs)-1])
	return failures
}

// assertNoSpin checks that a run that spent most of elapsed waiting (for
// a broker, a leader, a timeout) did not burn CPU doing it. Such a run
// uses some 20-150 ms (start-up included, more on a loaded machine); a
// busy loop uses a core for the whole wait. The bound sits between the
// two for a wait of a second or more; a shorter run has nothing to spin
// through that its start-up would not hide, and is not judged.
func assertNoSpin(t *testing.T, cpu, elapsed time.Duration) {
	t.Helper()
	if elapsed < time.Second {
		return
	}
	assert.Less(t, cpu, 300*time.Millisecond+elapsed/4, "waiting must not spin: cpu %v in %v", cpu, elapsed)
}

// TestPeersNoListener: nothing listens at the address. Every record fails
// once the delivery timeout passes, naming the address and the refusal.
func TestPeersNoListener(t *testing.T) {
	t.Parallel()
	addr := networktest.ClosedAddr(t)
	peerRun(t, addr, peerDeliveryTimeout+peerMargin,
		regexp.MustCompile(regexp.QuoteMeta(addr)+`.*connection refused`), false)
}

// TestPeersSilentListener: the port accepts connections and reads, but
// never answers. The records fail at the delivery timeout, and the reason
// says the broker at the address did not answer.
func TestPeersSilentListener(t *testing.T) {
	t.Parallel()
	srv := newRawServer(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	peerRun(t, srv.addr(), peerDeliveryTimeout+peerMargin,
		regexp.MustCompile(regexp.QuoteMeta(srv.addr())+`.*(timed out|no response)`), false)
}

// TestPeersGoHTTPServer: Go's HTTP server waits for a whole request line,
// which a Kafka frame seldom holds, so it never replies. The reason must
// name the address and hint that it may not be Kafka.
func TestPeersGoHTTPServer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	peerRun(t, addr, peerDeliveryTimeout+peerMargin,
		regexp.MustCompile(regexp.QuoteMeta(addr)+`.*Kafka listener`), false)
}

// TestPeersHTTPBadRequest: a server that answers any garbage with an HTTP
// 400 at once (nginx and most proxies do). The peer is not Kafka: the
// records fail at once, not at the delivery timeout.
func TestPeersHTTPBadRequest(t *testing.T) {
	t.Parallel()
	srv := newRawServer(t, func(c net.Conn) {
		var b [1]byte
		if _, err := c.Read(b[:]); err == nil {
			_, _ = io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		}
	})
	// A long delivery timeout: only recognising the peer ends this run.
	peerRun(t, srv.addr(), peerMargin,
		regexp.MustCompile(regexp.QuoteMeta(srv.addr())+`.*HTTP server`), true, "--delivery-timeout", "1m")
}

// TestPeersHangUp: the port accepts connections and closes each at once,
// as a TLS listener spoken to in plaintext does. After two such closes in
// a row kproduce gives up on the broker: the records read fail at once,
// not at the delivery timeout, and the cause is named with the address.
func TestPeersHangUp(t *testing.T) {
	t.Parallel()
	srv := newRawServer(t, func(net.Conn) {})
	peerRun(t, srv.addr(), peerMargin,
		regexp.MustCompile(regexp.QuoteMeta(srv.addr())+`.*closed .*before any response`), true, "--delivery-timeout", "1m")
}
