package main

import (
	"io"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// bootstrapRun is a kproduce process against a cluster it cannot reach,
// with when its first notice appeared on stderr.
type bootstrapRun struct {
	code        int
	took        time.Duration
	firstNotice time.Duration // -1: none
	stderr      string
	stdout      string
}

// runBootstrap runs the binary with three records on stdin and the
// default log level, watching stderr for the first notice.
func runBootstrap(t *testing.T, env []string, args ...string) bootstrapRun {
	t.Helper()
	proc := startProcess(t, func(cmd *exec.Cmd) {
		cmd.Stdin = strings.NewReader("a\nb\nc\n")
		cmd.Env = append(cmd.Env, append([]string{"KPRODUCE_LOG_LEVEL=warn"}, env...)...)
	}, args...)
	first := time.Duration(-1)
	for first < 0 {
		if strings.Contains(proc.stderr.String(), "kproduce: ") {
			first = time.Since(proc.started)
			break
		}
		select {
		case <-proc.done:
			if strings.Contains(proc.stderr.String(), "kproduce: ") {
				first = time.Since(proc.started)
			}
		case <-time.After(5 * time.Millisecond):
			continue
		}
		break
	}
	code, took := proc.wait(t, time.Minute)
	return bootstrapRun{code: code, took: took, firstNotice: first, stderr: proc.stderr.String(), stdout: proc.stdout.String()}
}

// TestE2EBootstrapFailures: whatever keeps kproduce from the cluster, the
// run ends with exit 1 within the bootstrap timeout (at once when no retry
// can help), says why on stderr within a second of starting, and names
// the address and the likely fix in its final error. --delivery-timeout is
// long: only the bootstrap timeout may end these runs.
func TestE2EBootstrapFailures(t *testing.T) {
	t.Parallel()
	certs := networktest.NewCertFiles(t)
	httpPeer := newRawServer(t, func(c net.Conn) {
		var b [1]byte
		if _, err := c.Read(b[:]); err == nil {
			_, _ = io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		}
	})
	tests := []struct {
		name  string
		addr  func(t *testing.T) string
		args  []string
		final bool // ends before the bootstrap timeout
		want  string
	}{
		{name: "connection refused", addr: func(t *testing.T) string { return networktest.ClosedAddr(t) }, want: `connection refused \(is a broker listening there\? check the host and port\)`},
		{name: "unknown host", addr: func(*testing.T) string { return "kafak.invalid:9092" },
			want: `kafak.invalid:9092: .*\((no such host|cannot resolve) "kafak.invalid": check the name`},
		{name: "plaintext to a TLS listener", final: true, want: `is the listener TLS\? try --tls`,
			addr: func(t *testing.T) string {
				return kafkatest.ProducerCluster(t, kfake.TLS(certs.ServerTLS(false))).ListenAddrs()[0]
			}},
		{name: "TLS to a plaintext listener", final: true, want: `try without --tls`, args: []string{"--tls-ca", certs.CA},
			addr: func(t *testing.T) string { return kafkatest.ProducerCluster(t).ListenAddrs()[0] }},
		{name: "SASL required", final: true, want: `answered ApiVersions, then closed the connection .*does the listener require SASL\?`,
			addr: func(t *testing.T) string {
				return kafkatest.ProducerCluster(t, kfake.EnableSASL(), kfake.Superuser("PLAIN", "u", "p")).ListenAddrs()[0]
			}},
		{name: "not Kafka", final: true, want: `HTTP server`, addr: func(*testing.T) string { return httpPeer.addr() }},
		{name: "Metadata below v4", final: true, want: `Metadata: the broker supports v0-v2, kproduce speaks v4-v12 .*upgrade the broker`,
			addr: func(t *testing.T) string {
				return kafkatest.ProducerCluster(t, kfake.MaxVersions(kversion.V0_10_2())).ListenAddrs()[0]
			}},
	}
	const timeout = 3 * time.Second
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			addr := tt.addr(t)
			args := append([]string{"-b", addr, "-t", "t", "--delivery-timeout", "1m", "--bootstrap-timeout", timeout.String()}, tt.args...)
			res := runBootstrap(t, nil, args...)
			t.Logf("exit %d after %v, first notice after %v; stderr:\n%s", res.code, res.took.Round(time.Millisecond),
				res.firstNotice.Round(time.Millisecond), res.stderr)
			assert.Equal(t, 1, res.code)
			assert.Empty(t, res.stdout)
			if tt.final {
				assert.Less(t, res.took, timeout, "no retry can help: ends before the bootstrap timeout")
			} else {
				assert.GreaterOrEqual(t, res.took, timeout, "retried up to the bootstrap timeout")
				assert.Less(t, res.took, timeout+5*time.Second)
			}
			require.GreaterOrEqual(t, res.firstNotice, time.Duration(0), "a notice on stderr")
			assert.Less(t, res.firstNotice, time.Second+time.Second/2, "the first failure is told at once")
			notices := kafkatest.LinesWith(res.stderr, "kproduce: ")
			require.NotEmpty(t, notices)
			assert.Contains(t, notices[0], addr)
			fatal := kafkatest.Filter(kafkatest.Lines(res.stderr), func(l string) bool {
				return strings.HasPrefix(l, "error: ") && !strings.HasPrefix(l, "error: -:")
			})
			require.Len(t, fatal, 1, "one final error:\n%s", res.stderr)
			assert.Contains(t, fatal[0], addr)
			assert.Regexp(t, regexp.MustCompile(tt.want), fatal[0])
			if !tt.final {
				assert.Contains(t, fatal[0], "no bootstrap broker answered within 3s (--bootstrap-timeout)")
			}
		})
	}
}

// TestE2EBootstrapTimeoutSettings: the flag, its environment variable, the
// Java property max.block.ms, and 0 (up to the delivery timeout).
func TestE2EBootstrapTimeoutSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  []string
		args []string
		want time.Duration
	}{
		{"flag", nil, []string{"--bootstrap-timeout", "1s"}, time.Second},
		{"environment", []string{"KPRODUCE_BOOTSTRAP_TIMEOUT=1500ms"}, nil, 1500 * time.Millisecond},
		{"Java max.block.ms", nil, []string{"-X", "max.block.ms=1200"}, 1200 * time.Millisecond},
		{"0: the delivery timeout", nil, []string{"--bootstrap-timeout", "0", "--delivery-timeout", "2s"}, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-b", networktest.ClosedAddr(t), "-t", "t"}, tt.args...)
			res := runBootstrap(t, tt.env, args...)
			assert.Equal(t, 1, res.code, res.stderr)
			assert.GreaterOrEqual(t, res.took, tt.want)
			assert.Less(t, res.took, tt.want+3*time.Second)
			assert.Contains(t, res.stderr, "no bootstrap broker answered within "+tt.want.String())
		})
	}
}

// TestE2EMetadataBootstrapTimeout: the subcommands give up at the
// bootstrap timeout too, before their own --timeout, and tell the first
// failure at once.
func TestE2EMetadataBootstrapTimeout(t *testing.T) {
	t.Parallel()
	for _, sub := range []string{"metadata", "check"} {
		t.Run(sub, func(t *testing.T) {
			t.Parallel()
			res := runBootstrap(t, nil, sub, "-b", networktest.ClosedAddr(t), "-t", "t", "--timeout", "1m", "--bootstrap-timeout", "1s")
			t.Logf("stderr:\n%s", res.stderr)
			assert.Equal(t, 1, res.code)
			assert.Less(t, res.took, 5*time.Second)
			assert.Len(t, kafkatest.LinesWith(res.stderr, "kproduce: "), 1)
			assert.Contains(t, res.stderr, "no bootstrap broker answered within 1s (--bootstrap-timeout)")
		})
	}
}
