package producecmd_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/kerberos"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/internal/kafkatest/krb5test"
	"github.com/kproduce/kproduce/internal/kafkatest/saslfront"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// kerberosSetup is a realm with the client principal "client" and the
// brokers' kafka/127.0.0.1, and a kfake cluster behind a GSSAPI front.
type kerberosSetup struct {
	kdc                 *krb5test.KDC
	clientKeytab        string
	cluster             *kfake.Cluster
	front               *saslfront.Front
	principal, brokers  string
	serviceKeytabLoaded *keytab.Keytab
}

// newKerberosSetup starts the realm and the cluster; with tlsCfg the
// brokers listen with TLS (in front of the SASL front).
func newKerberosSetup(t *testing.T, tlsCfg *tls.Config, kdcOpts ...krb5test.Option) *kerberosSetup {
	t.Helper()
	k := krb5test.Start(t, kdcOpts...)
	k.AddPrincipal(t, "client")
	k.AddPrincipal(t, "kafka/127.0.0.1")
	s := &kerberosSetup{kdc: k, clientKeytab: k.Keytab(t, "client.keytab", "client"), principal: k.Principal("client")}
	kt, err := keytab.Load(k.Keytab(t, "kafka.keytab", "kafka/127.0.0.1"))
	require.NoError(t, err)
	s.serviceKeytabLoaded = kt
	s.front = saslfront.New(saslfront.Config{Mechanisms: []saslfront.Mechanism{saslfront.GSSAPI(saslfront.GSSAPIConfig{Keytab: kt})}})
	listen := s.front.Listen
	if tlsCfg != nil {
		listen = tlsInFront(t, s.front, tlsCfg)
	}
	t.Cleanup(s.front.Close) // after the cluster: cleanups run last in, first out
	c := kafkatest.NewCluster(t, kfake.ListenFn(listen), kfake.NumBrokers(3), kfake.SeedTopics(6, "t"))
	s.cluster, s.brokers = c, kafkatest.Brokers(c)
	t.Setenv("KRB5_CONFIG", k.Conf)
	t.Setenv("KRB5CCNAME", "FILE:"+filepath.Join(t.TempDir(), "no-ccache"))
	return s
}

// tlsInFront is a kfake ListenFn whose brokers' listeners speak TLS and
// hand the decrypted connection to the front (kfake's own TLS option
// would sit behind the front).
func tlsInFront(t *testing.T, front *saslfront.Front, cfg *tls.Config) func(string, string) (net.Listener, error) {
	return func(network, address string) (net.Listener, error) {
		inner, err := front.Listen(network, "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		outer, err := tls.Listen(network, address, cfg)
		if err != nil {
			inner.Close()
			return nil, err
		}
		go func() {
			for {
				c, err := outer.Accept()
				if err != nil {
					return
				}
				go func() {
					defer c.Close()
					b, err := net.Dial("tcp", inner.Addr().String())
					if err != nil {
						return
					}
					defer b.Close()
					go func() { _, _ = io.Copy(b, c); b.Close() }()
					_, _ = io.Copy(c, b)
				}()
			}
		}()
		t.Cleanup(func() { outer.Close() })
		return &addrListener{Listener: inner, addr: outer.Addr(), outer: outer}, nil
	}
}

// addrListener is the front's listener advertised at the TLS address.
type addrListener struct {
	net.Listener
	addr  net.Addr
	outer net.Listener
}

func (l *addrListener) Addr() net.Addr { return l.addr }
func (l *addrListener) Close() error {
	l.outer.Close()
	return l.Listener.Close()
}

// franzKerberos is franz-go's kerberos plugin with the client keytab: an
// independent reader of what kproduce produced.
func (s *kerberosSetup) franzKerberos(t *testing.T) kgo.Opt {
	t.Helper()
	cfg, err := config.Load(s.kdc.Conf)
	require.NoError(t, err)
	kt, err := keytab.Load(s.clientKeytab)
	require.NoError(t, err)
	cl := client.NewWithKeytab("client", krb5test.Realm, kt, cfg, client.DisablePAFXFAST(true))
	require.NoError(t, cl.Login())
	t.Cleanup(cl.Destroy)
	return kgo.SASL(kerberos.Auth{Client: cl, Service: "kafka"}.AsMechanism())
}

// TestE2EKerberos produces with GSSAPI each way a user configures it and
// reads the records back with franz-go's kerberos plugin.
func TestE2EKerberos(t *testing.T) {
	certs := networktest.NewCertFiles(t)
	tests := []struct {
		name  string
		tls   bool
		args  func(s *kerberosSetup) []string
		kinit bool
	}{
		{name: "keytab", args: func(s *kerberosSetup) []string {
			return []string{"--sasl-mechanism", "GSSAPI", "--kerberos-keytab", s.clientKeytab, "--kerberos-principal", s.principal,
				"--kerberos-config", s.kdc.Conf}
		}},
		{name: "ticket cache after kinit", kinit: true, args: func(*kerberosSetup) []string { return []string{"--sasl-mechanism", "GSSAPI"} }},
		{name: "Java JAAS", args: func(s *kerberosSetup) []string {
			return []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.kerberos.service.name=kafka", "-X",
				fmt.Sprintf(`sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="%s" principal="%s";`,
					s.clientKeytab, s.principal)}
		}},
		{name: "Java JAAS with the ticket cache", kinit: true, args: func(*kerberosSetup) []string {
			return []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X",
				"sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useTicketCache=true;"}
		}},
		{name: "librdkafka names", args: func(s *kerberosSetup) []string {
			return []string{"-X", "security.protocol=sasl_plaintext", "-X", "sasl.mechanisms=GSSAPI", "-X", "sasl.kerberos.service.name=kafka",
				"-X", "sasl.kerberos.keytab=" + s.clientKeytab, "-X", "sasl.kerberos.principal=" + s.principal,
				"-X", "sasl.kerberos.kinit.cmd=kinit -k -t x"}
		}},
		{name: "TLS and GSSAPI", tls: true, args: func(s *kerberosSetup) []string {
			return []string{"-X", "security.protocol=SASL_SSL", "-X", "ssl.ca.location=" + certs.CA, "-X", "sasl.mechanism=GSSAPI",
				"--kerberos-keytab", s.clientKeytab}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tlsCfg *tls.Config
			var readTLS []kgo.Opt
			if tt.tls {
				tlsCfg = certs.ServerTLS(false)
				readTLS = append(readTLS, kgo.DialTLSConfig(certs.ClientTLS()))
			}
			s := newKerberosSetup(t, tlsCfg)
			if tt.kinit {
				cc := filepath.Join(t.TempDir(), "ccache")
				s.kdc.Kinit(t, "client", s.clientKeytab, cc)
				t.Setenv("KRB5CCNAME", "FILE:"+cc)
			}
			in, want := securityInput(tt.name, 30)
			res := runKproduce(t, strings.NewReader(in), append([]string{"-t", "t", "-b", s.brokers, "--log-level", "debug"}, tt.args(s)...)...)
			require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
			assert.Len(t, kafkatest.Lines(res.Stdout), 30)
			assert.ElementsMatch(t, want, consumeSecure(t, s.cluster, "t", 30, append(readTLS, s.franzKerberos(t))...))
			authenticated := 0
			for _, c := range s.front.Connections() {
				if c.Authentications > 0 {
					assert.Equal(t, s.principal, c.Principal)
					authenticated++
				}
			}
			assert.Positive(t, authenticated)
		})
	}
}

// TestE2EKerberosErrors: each Kerberos failure ends the run at once with
// a message that says what to do; nothing is produced.
func TestE2EKerberosErrors(t *testing.T) {
	s := newKerberosSetup(t, nil)
	stale := s.kdc.Keytab(t, "stale.keytab", "client")
	s.kdc.AddPrincipal(t, "gone")
	goneKeytab := s.kdc.Keytab(t, "gone.keytab", "gone")
	s.kdc.DeletePrincipal(t, "gone")
	s.kdc.AddPrincipal(t, "rotated")
	rotatedKeytab := s.kdc.Keytab(t, "rotated.keytab", "rotated")
	s.kdc.RandomizeKey(t, "rotated")
	_ = stale
	unreachable := kafkatest.WriteFile(t, t.TempDir(), "krb5.conf", []byte(fmt.Sprintf(
		"[libdefaults]\n default_realm = %[1]s\n[realms]\n %[1]s = {\n  kdc = %[2]s\n }\n", krb5test.Realm, networktest.ClosedAddr(t))))
	silent := kafkatest.WriteFile(t, t.TempDir(), "krb5.conf", []byte(fmt.Sprintf(
		"[libdefaults]\n default_realm = %[1]s\n[realms]\n %[1]s = {\n  kdc = %[2]s\n }\n", krb5test.Realm, silentListener(t))))
	gssapi := func(args ...string) []string { return append([]string{"--sasl-mechanism", "GSSAPI"}, args...) }
	tests := []struct {
		name string
		args []string
		code int
		text []string
	}{
		{"KDC unreachable", gssapi("--kerberos-keytab", s.clientKeytab, "--kerberos-config", unreachable), cmdutil.ExitFailed,
			[]string{"cannot reach the kerberos KDC of realm " + krb5test.Realm + " at 127.0.0.1:", "the kdc lines of krb5.conf", "connection refused"}},
		{"KDC silent", gssapi("--kerberos-keytab", s.clientKeytab, "--kerberos-config", silent, "--bootstrap-timeout", "2s"), cmdutil.ExitFailed,
			[]string{"authentication failed: SASL GSSAPI: connection setup timed out: gave up after 1s (the connection setup timeout)",
				"waiting for the KDC of realm " + krb5test.Realm + " (the kdc lines of krb5.conf) to answer, for a service ticket for kafka/127.0.0.1@"}},
		{"unknown client principal", gssapi("--kerberos-keytab", goneKeytab), cmdutil.ExitFailed,
			[]string{"KDC_ERR_C_PRINCIPAL_UNKNOWN", "client principal gone@" + krb5test.Realm + " is not in the realm's database"}},
		{"wrong keytab key", gssapi("--kerberos-keytab", rotatedKeytab), cmdutil.ExitFailed,
			[]string{"KDC_ERR_PREAUTH_FAILED", "the key of rotated@" + krb5test.Realm + " in the keytab is not the KDC's", "kadmin ktadd"}},
		{"service principal unknown", gssapi("--kerberos-keytab", s.clientKeytab, "--kerberos-service-name", "kafka-prod"), cmdutil.ExitFailed,
			[]string{"KDC_ERR_S_PRINCIPAL_UNKNOWN", "service principal kafka-prod/127.0.0.1@" + krb5test.Realm, "SERVICE/BROKER-HOST@REALM",
				"advertised.listeners"}},
		{"no keytab, no ticket cache", gssapi(), cmdutil.ExitUsage,
			[]string{"no keytab given and no ticket cache at", "run kinit PRINCIPAL first, or give --kerberos-keytab"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runKproduce(t, strings.NewReader("x\n"), append([]string{"-t", "t", "-b", s.brokers}, tt.args...)...)
			t.Logf("%s: exit %d after %v: %s", tt.name, res.Code, res.Took, res.Stderr)
			assert.Equal(t, tt.code, res.Code, res.Stderr)
			for _, text := range tt.text {
				assert.Contains(t, res.Stderr, text)
			}
			assert.Equal(t, 1, strings.Count(res.Stderr, tt.text[0]), "told once, not once per broker or record")
			assert.Less(t, res.Took, 3*time.Second, "a Kerberos failure ends the run at once")
			kafkatest.RequireEmpty(t, s.cluster, "t")
		})
	}
	t.Run("expired ticket cache", func(t *testing.T) {
		cc := filepath.Join(t.TempDir(), "ccache")
		s.kdc.Kinit(t, "client", s.clientKeytab, cc, "-l", "2s")
		t.Setenv("KRB5CCNAME", "FILE:"+cc)
		// The ticket lives two seconds: the run starts once it has ended
		// (its end time as the cache holds it), and finds it expired at
		// once.
		ccache, err := credentials.LoadCCache(cc)
		require.NoError(t, err)
		var end time.Time
		for _, cred := range ccache.Credentials {
			if cred.EndTime.After(end) {
				end = cred.EndTime
			}
		}
		require.False(t, end.IsZero(), "the cache holds a ticket")
		kafkatest.WaitFor(t, 10*time.Second, "the ticket to expire", func() bool { return time.Now().After(end) })
		res := runKproduce(t, strings.NewReader("x\n"), "-t", "t", "-b", s.brokers, "--sasl-mechanism", "GSSAPI")
		t.Logf("expired ticket cache: exit %d after %v: %s", res.Code, res.Took, res.Stderr)
		assert.Equal(t, cmdutil.ExitUsage, res.Code, res.Stderr)
		assert.Contains(t, res.Stderr, "the ticket of client@"+krb5test.Realm+" in the ticket cache "+cc+" expired at")
		assert.Contains(t, res.Stderr, "run kinit again, or give --kerberos-keytab")
	})
}

// silentListener is the address of a listener that accepts connections
// and never answers (a KDC that hangs).
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			_ = c.Close()
		}
	})
	return ln.Addr().String()
}

// TestE2EKerberosClockSkew: a KDC whose clock is an hour ahead refuses
// the login; the message says to synchronise the clocks.
func TestE2EKerberosClockSkew(t *testing.T) {
	s := newKerberosSetup(t, nil, krb5test.ClockOffset("+1h"))
	res := runKproduce(t, strings.NewReader("x\n"), "-t", "t", "-b", s.brokers, "--sasl-mechanism", "GSSAPI", "--kerberos-keytab", s.clientKeytab)
	t.Logf("clock skew: exit %d after %v: %s", res.Code, res.Took, res.Stderr)
	assert.Equal(t, cmdutil.ExitFailed, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, "KRB_AP_ERR_SKEW")
	assert.Contains(t, res.Stderr, "synchronise the clocks (NTP)")
	assert.Less(t, res.Took, 3*time.Second)
	kafkatest.RequireEmpty(t, s.cluster, "t")
}
