package producecmd_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// securityCluster starts a 3-broker kfake cluster with the 6-partition
// topic "t" and opts (TLS, SASL).
func securityCluster(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	return kafkatest.NewCluster(t, append([]kfake.Opt{kfake.NumBrokers(3), kfake.SeedTopics(6, "t")}, opts...)...)
}

// consumeSecure reads n records of topic with franz-go configured with
// opts (its TLS and SASL), and returns their values.
func consumeSecure(t *testing.T, c *kfake.Cluster, topic string, n int, opts ...kgo.Opt) []string {
	t.Helper()
	var values []string
	for _, r := range kafkatest.ConsumeAll(t, c.ListenAddrs(), topic, n, opts...) {
		values = append(values, string(r.Value))
	}
	return values
}

// securityInput is the input of the positive runs: n lines.
func securityInput(prefix string, n int) (string, []string) {
	var b strings.Builder
	want := make([]string, n)
	for i := range n {
		want[i] = fmt.Sprintf("%s-%d", prefix, i)
		b.WriteString(want[i] + "\n")
	}
	return b.String(), want
}

// saslUser is the superuser of the SASL clusters.
const saslUser, saslPass = "alice", "wonder-land-7f3a"

// kgoSASL is franz-go's mechanism for name with the test user.
func kgoSASL(name string) sasl.Mechanism {
	switch name {
	case "PLAIN":
		return plain.Auth{User: saslUser, Pass: saslPass}.AsMechanism()
	case "SCRAM-SHA-256":
		return scram.Auth{User: saslUser, Pass: saslPass}.AsSha256Mechanism()
	}
	return scram.Auth{User: saslUser, Pass: saslPass}.AsSha512Mechanism()
}

// TestE2ESecurityModes produces with each security mode and reads the
// records back with franz-go configured the same way.
func TestE2ESecurityModes(t *testing.T) {
	certs := networktest.NewCertFiles(t)
	tests := []struct {
		name   string
		tls    string // "", "tls" or "mtls"
		mech   string // "" for no SASL
		flags  []string
		viaEnv bool // the password from KPRODUCE_SASL_PASSWORD
	}{
		{name: "TLS", tls: "tls", flags: []string{"--tls-ca", certs.CA}},
		{name: "mutual TLS", tls: "mtls", flags: []string{"--tls-ca", certs.CA, "--tls-cert", certs.ClientCert, "--tls-key", certs.ClientKey}},
		{name: "PLAIN", mech: "PLAIN"},
		{name: "SCRAM-SHA-256", mech: "SCRAM-SHA-256", viaEnv: true},
		{name: "SCRAM-SHA-512", mech: "SCRAM-SHA-512"},
		{name: "PLAIN over TLS", tls: "tls", mech: "PLAIN", flags: []string{"--tls", "--tls-ca", certs.CA}},
		{name: "SCRAM-SHA-256 over TLS", tls: "tls", mech: "scram-sha-256", flags: []string{"--tls-ca", certs.CA, "--tls-server-name", "localhost"}, viaEnv: true},
		{name: "SCRAM-SHA-512 over mutual TLS", tls: "mtls", mech: "SCRAM-SHA-512",
			flags: []string{"--tls-ca", certs.CA, "--tls-cert", certs.ClientCert, "--tls-key", certs.ClientKey}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var clusterOpts []kfake.Opt
			var kgoOpts []kgo.Opt
			if tt.tls != "" {
				clusterOpts = append(clusterOpts, kfake.TLS(certs.ServerTLS(tt.tls == "mtls")))
				kgoOpts = append(kgoOpts, kgo.DialTLSConfig(certs.ClientTLS()))
			}
			args := append([]string{"-t", "t"}, tt.flags...)
			if tt.mech != "" {
				mech := strings.ToUpper(tt.mech)
				clusterOpts = append(clusterOpts, kfake.EnableSASL(), kfake.Superuser(mech, saslUser, saslPass))
				kgoOpts = append(kgoOpts, kgo.SASL(kgoSASL(mech)))
				args = append(args, "--sasl-mechanism", tt.mech, "--sasl-username", saslUser)
				if tt.viaEnv {
					t.Setenv("KPRODUCE_SASL_PASSWORD", saslPass)
				} else {
					args = append(args, "--sasl-password", saslPass)
				}
			}
			c := securityCluster(t, clusterOpts...)
			in, want := securityInput(tt.name, 50)
			res := runKproduce(t, strings.NewReader(in), append(args, "-b", strings.Join(c.ListenAddrs(), ","), "--log-level", "debug")...)
			require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
			assert.Len(t, kafkatest.Lines(res.Stdout), 50)
			assert.NotContains(t, res.Stderr, saslPass, "the password is never logged")
			assert.ElementsMatch(t, want, consumeSecure(t, c, "t", 50, kgoOpts...))
		})
	}
}

// TestE2ESecurityJavaProperties configures security with Java properties,
// with -X and in a producer.properties file.
func TestE2ESecurityJavaProperties(t *testing.T) {
	certs := networktest.NewCertFiles(t)
	localhostOnly, err := certs.PKI.Server(time.Now(), "localhost")
	require.NoError(t, err)
	jaas := func(module string) string {
		return fmt.Sprintf(`org.apache.kafka.common.security.%s required username="%s" password="%s";`, module, saslUser, saslPass)
	}
	tests := []struct {
		name   string
		server *tls.Config
		mech   string
		props  []string
		file   bool // in a properties file instead of -X
	}{
		{name: "SASL_PLAINTEXT PLAIN", mech: "PLAIN", props: []string{"security.protocol=SASL_PLAINTEXT", "sasl.mechanism=PLAIN",
			"sasl.jaas.config=" + jaas("plain.PlainLoginModule")}},
		{name: "SASL_SSL SCRAM-SHA-512", server: certs.ServerTLS(false), mech: "SCRAM-SHA-512", props: []string{"security.protocol=SASL_SSL",
			"sasl.mechanism=SCRAM-SHA-512", "sasl.jaas.config=" + jaas("scram.ScramLoginModule"),
			"ssl.truststore.location=" + certs.CA, "ssl.truststore.type=PEM"}},
		{name: "SSL with a PEM keystore, in a file", server: certs.ServerTLS(true), file: true, props: []string{"security.protocol=SSL",
			"ssl.truststore.location=" + certs.CA, "ssl.truststore.type=PEM",
			"ssl.keystore.location=" + certs.ClientBundle, "ssl.keystore.type=PEM"}},
		{name: "SASL_SSL SCRAM-SHA-256 without host name verification, in a file",
			server: &tls.Config{Certificates: []tls.Certificate{localhostOnly.TLS}}, mech: "SCRAM-SHA-256", file: true,
			props: []string{"security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-256", "sasl.jaas.config=" + jaas("scram.ScramLoginModule"),
				"ssl.truststore.location=" + certs.CA, "ssl.endpoint.identification.algorithm="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var clusterOpts []kfake.Opt
			var kgoOpts []kgo.Opt
			if tt.server != nil {
				clusterOpts = append(clusterOpts, kfake.TLS(tt.server))
				client := certs.ClientTLS()
				client.InsecureSkipVerify = true // the consumer is not under test
				kgoOpts = append(kgoOpts, kgo.DialTLSConfig(client))
			}
			if tt.mech != "" {
				clusterOpts = append(clusterOpts, kfake.EnableSASL(), kfake.Superuser(tt.mech, saslUser, saslPass))
				kgoOpts = append(kgoOpts, kgo.SASL(kgoSASL(tt.mech)))
			}
			c := securityCluster(t, clusterOpts...)
			args := []string{"-t", "t", "-b", strings.Join(c.ListenAddrs(), ","), "--log-level", "debug"}
			if tt.file {
				args = append(args, "--config", kafkatest.WriteFile(t, t.TempDir(), "producer.properties", []byte(strings.Join(tt.props, "\n")+"\n")))
			} else {
				for _, p := range tt.props {
					args = append(args, "-X", p)
				}
			}
			in, want := securityInput(tt.name, 20)
			res := runKproduce(t, strings.NewReader(in), args...)
			require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
			assert.NotContains(t, res.Stderr, saslPass, "the password is never logged")
			assert.ElementsMatch(t, want, consumeSecure(t, c, "t", 20, kgoOpts...))
		})
	}
}

// TestE2ESecurityFailures checks that each security failure ends the run
// promptly with exit 1, one clear message naming the broker and the cause,
// and every record reported as failed.
func TestE2ESecurityFailures(t *testing.T) {
	certs := networktest.NewCertFiles(t)
	other := networktest.NewCertFiles(t)
	plainSASL := []kfake.Opt{kfake.EnableSASL(), kfake.Superuser("PLAIN", saslUser, saslPass)}
	tests := []struct {
		name    string
		cluster []kfake.Opt
		control func(c *kfake.Cluster)
		args    []string
		want    []string
	}{
		{name: "wrong PLAIN password, connection closed", cluster: plainSASL,
			args: []string{"--sasl-mechanism", "PLAIN", "--sasl-username", saslUser, "--sasl-password", "not-the-password"},
			want: []string{"authentication failed: SASL PLAIN: the broker closed the connection during SASL authentication (wrong user name or password?)"}},
		{name: "wrong SCRAM password, connection closed",
			cluster: []kfake.Opt{kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", saslUser, saslPass)},
			args:    []string{"--sasl-mechanism", "SCRAM-SHA-512", "--sasl-username", saslUser, "--sasl-password", "not-the-password"},
			want:    []string{"authentication failed: SASL SCRAM-SHA-512: the broker closed the connection during SASL authentication"}},
		{name: "wrong password, answered with an error", cluster: plainSASL, control: answerAuthFailed,
			args: []string{"--sasl-mechanism", "PLAIN", "--sasl-username", saslUser, "--sasl-password", "not-the-password"},
			want: []string{"authentication failed: SASL PLAIN: SASL_AUTHENTICATION_FAILED", "Invalid username or password"}},
		{name: "mechanism the broker does not enable", cluster: plainSASL, control: offerOnlySCRAM512,
			args: []string{"--sasl-mechanism", "PLAIN", "--sasl-username", saslUser, "--sasl-password", saslPass},
			want: []string{"the broker does not enable SASL mechanism PLAIN; it offers SCRAM-SHA-512"}},
		{name: "broker certificate of an unknown CA", cluster: []kfake.Opt{kfake.TLS(certs.ServerTLS(false))},
			args: []string{"--tls-ca", other.CA},
			want: []string{"tls handshake failed", "certificate signed by unknown authority", "--tls-ca"}},
		{name: "wrong host name", cluster: []kfake.Opt{kfake.TLS(certs.ServerTLS(false))},
			args: []string{"--tls-ca", certs.CA, "--tls-server-name", "kafka.example.com"},
			want: []string{"tls handshake failed", "kafka.example.com", "--tls-server-name"}},
		{name: "no client certificate for a mutual TLS broker", cluster: []kfake.Opt{kfake.TLS(certs.ServerTLS(true))},
			args: []string{"--tls-ca", certs.CA},
			want: []string{"tls handshake failed", "certificate required", "--tls-cert and --tls-key"}},
		{name: "plaintext spoken to a TLS broker", cluster: []kfake.Opt{kfake.TLS(certs.ServerTLS(false))},
			want: []string{"closed before any response", "is the listener TLS? try --tls"}},
		{name: "chain still verified without host name verification", cluster: []kfake.Opt{kfake.TLS(certs.ServerTLS(false))},
			args: []string{"-X", "security.protocol=SSL", "-X", "ssl.endpoint.identification.algorithm=", "-X", "ssl.truststore.location=" + other.CA},
			want: []string{"tls handshake failed", "certificate signed by unknown authority"}},
		{name: "TLS spoken to a plaintext broker",
			args: []string{"--tls-ca", certs.CA},
			want: []string{"tls handshake failed", "sent no TLS reply", "is its listener plaintext? try without --tls"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The brokers accept connections only once kproduce has read
			// input, so that a record is read before the failure.
			in, _ := securityInput("r", 5)
			stdin := newGatedReader(in)
			c := securityCluster(t, append(tt.cluster, kfake.ListenFn(stdin.listen))...)
			if tt.control != nil {
				tt.control(c)
			}
			// A delivery timeout below the test's deadline, so that a
			// run that waits for it fails the test instead of hanging.
			args := append([]string{"-t", "t", "-b", c.ListenAddrs()[0], "--log-level", "debug", "--delivery-timeout", "40s"}, tt.args...)
			res := runKproduce(t, stdin, args...)
			assert.Equal(t, cmdutil.ExitFailed, res.Code, res.Stderr)
			assert.Less(t, res.Took, 15*time.Second, "ends promptly, not at the delivery timeout:\n%s", res.Stderr)
			assert.Empty(t, res.Stdout, "no record delivered")
			fatal := kafkatest.LinesWith(res.Stderr, "error: bootstrap broker "+c.ListenAddrs()[0]+": ")
			require.Len(t, fatal, 1, "one message names the broker and the cause:\n%s", res.Stderr)
			for _, w := range tt.want {
				assert.Contains(t, fatal[0], w)
			}
			assertReadRecordsFailed(t, res.Stderr, 5)
			assert.NotContains(t, res.Stderr, saslPass)
			assert.NotContains(t, res.Stderr, "not-the-password")
		})
	}
}

// assertReadRecordsFailed checks every record read before the producer
// stopped (reading stops then), at least one, was reported as failed.
func assertReadRecordsFailed(t *testing.T, stderr string, input int) {
	t.Helper()
	failed := kafkatest.LinesWith(stderr, "error: -:")
	require.NotEmpty(t, failed, stderr)
	assert.LessOrEqual(t, len(failed), input)
	for i, l := range failed {
		assert.True(t, strings.HasPrefix(l, fmt.Sprintf("error: -:%d: t/", i+1)), "record %d fails: %s", i+1, l)
	}
	assert.Contains(t, stderr, fmt.Sprintf("0 delivered, %d failed", len(failed)))
}

// gatedReader is stdin that opens a gate once its first Read returned; the
// listeners of listen accept connections only after that.
type gatedReader struct {
	r    io.Reader
	once sync.Once
	read chan struct{}
}

func newGatedReader(s string) *gatedReader {
	return &gatedReader{r: strings.NewReader(s), read: make(chan struct{})}
}

// Read reads and opens the gate.
func (g *gatedReader) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	g.once.Do(func() { close(g.read) })
	return n, err
}

// listen is a kfake.ListenFn whose listeners wait for the gate.
func (g *gatedReader) listen(network, address string) (net.Listener, error) {
	ln, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	return &gatedListener{Listener: ln, gate: g.read, closed: make(chan struct{})}, nil
}

// gatedListener accepts connections once gate is closed.
type gatedListener struct {
	net.Listener
	gate      <-chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
}

// Accept waits for the gate, then accepts.
func (l *gatedListener) Accept() (net.Conn, error) {
	select {
	case <-l.gate:
	case <-l.closed:
		return nil, net.ErrClosed
	}
	return l.Listener.Accept()
}

// Close closes the listener and ends a waiting Accept.
func (l *gatedListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// answerAuthFailed makes the brokers answer SaslAuthenticate with
// SASL_AUTHENTICATION_FAILED, as a real broker does on a wrong password.
func answerAuthFailed(c *kfake.Cluster) {
	c.ControlKey(int16(kmsg.SASLAuthenticate), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		resp := req.ResponseKind().(*kmsg.SASLAuthenticateResponse)
		resp.ErrorCode = kerr.SaslAuthenticationFailed.Code
		resp.ErrorMessage = kmsg.StringPtr("Authentication failed: Invalid username or password")
		return resp, nil, true
	})
}

// offerOnlySCRAM512 makes the brokers enable SCRAM-SHA-512 only.
func offerOnlySCRAM512(c *kfake.Cluster) {
	c.ControlKey(int16(kmsg.SASLHandshake), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if req.(*kmsg.SASLHandshakeRequest).Mechanism == "SCRAM-SHA-512" {
			return nil, nil, false
		}
		resp := req.ResponseKind().(*kmsg.SASLHandshakeResponse)
		resp.ErrorCode = kerr.UnsupportedSaslMechanism.Code
		resp.SupportedMechanisms = []string{"SCRAM-SHA-512"}
		return resp, nil, true
	})
}
