package producecmd_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/report"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// fixture is a file of internal/tlsconf/testdata, made with openssl and keytool:
// cert.pem (self-signed) and its EC key as key.pem (PKCS #8), encrypted
// with the password "fixture-pass" as key-pkcs8-aes256.pem (PBES2,
// HMAC-SHA256, AES-256-CBC), key-pkcs8-des3.pem (PBES2, HMAC-SHA1,
// 3DES), key-pkcs8-pbes1.pem (PBES1) and key-legacy-aes128.pem (OpenSSL's
// legacy encryption); cert.der, truststore.jks and keystore.p12 hold the
// same certificate.
func fixture(name string) string {
	return filepath.Join("..", "..", "tlsconf", "testdata", name)
}

func TestSecurityUsageErrors(t *testing.T) {
	certs := networktest.NewCertFiles(t)
	notPEM := kafkatest.WriteFile(t, t.TempDir(), "not.pem", []byte("hello\n"))
	empty := kafkatest.WriteFile(t, t.TempDir(), "empty.pem", []byte("-----BEGIN NOTHING-----\naGk=\n-----END NOTHING-----\n"))
	tests := []struct {
		name string
		args []string
		text []string
	}{
		{"mechanism without user name and password", []string{"--sasl-mechanism", "PLAIN"},
			[]string{"--sasl-username", "needs a user name", "--sasl-password", "needs a password"}},
		{"unknown mechanism", []string{"--sasl-mechanism", "KERBEROS", "--sasl-username", "u", "--sasl-password", "p"},
			[]string{`--sasl-mechanism "KERBEROS"`, "want PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, GSSAPI"}},
		{"certificate without key", []string{"--tls-cert", certs.ClientCert}, []string{"--tls-cert and --tls-key go together"}},
		{"key without certificate", []string{"--tls-key", certs.ClientKey}, []string{"--tls-cert and --tls-key go together"}},
		{"missing CA file", []string{"--tls-ca", filepath.Join(t.TempDir(), "missing.pem")}, []string{"--tls-ca", "no such file"}},
		{"CA file not PEM", []string{"--tls-ca", notPEM}, []string{"--tls-ca", "not a PEM file"}},
		{"CA file without certificates", []string{"--tls-ca", empty}, []string{"no CERTIFICATE block found"}},
		{"JKS truststore", []string{"--tls-ca", fixture("truststore.jks")},
			[]string{"Java keystore (JKS)", "keytool -importkeystore", "openssl pkcs12 -in store.p12 -nokeys -out ca.pem"}},
		{"PKCS12 keystore", []string{"--tls-cert", fixture("keystore.p12"), "--tls-key", fixture("keystore.p12")},
			[]string{"PKCS #12 keystore", "openssl pkcs12 -in STORE.p12 -nocerts -nodes -out client.key"}},
		{"DER certificate", []string{"--tls-ca", fixture("cert.der")}, []string{"DER certificate", "openssl x509 -inform der"}},
		{"key does not match the certificate", []string{"--tls-cert", certs.ClientCert, "--tls-key", fixture("key.pem")},
			[]string{"private key does not match public key"}},
		{"encrypted key without password", []string{"--tls-cert", fixture("cert.pem"), "--tls-key", fixture("key-pkcs8-aes256.pem")},
			[]string{"the private key is encrypted: give its password"}},
		{"encrypted key, wrong password", []string{"--tls-cert", fixture("cert.pem"), "--tls-key", fixture("key-pkcs8-aes256.pem"),
			"--tls-key-password", "hunter2"}, []string{"cannot decrypt the private key (wrong password?)"}},
		{"legacy encrypted key, wrong password", []string{"--tls-cert", fixture("cert.pem"), "--tls-key", fixture("key-legacy-aes128.pem"),
			"--tls-key-password", "hunter2"}, []string{"cannot decrypt the private key (wrong password?)"}},
		{"PBES1 encrypted key", []string{"--tls-cert", fixture("cert.pem"), "--tls-key", fixture("key-pkcs8-pbes1.pem"),
			"--tls-key-password", "fixture-pass"}, []string{"only PBES2 is supported", "openssl pkcs8 -topk8 -v2 aes-256-cbc"}},
		{"unknown security.protocol", []string{"-X", "security.protocol=TLS"}, []string{`security.protocol "TLS"`, "want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"}},
		{"SASL protocol without mechanism: GSSAPI, Java's default", []string{"-X", "security.protocol=SASL_SSL", "--kerberos-config", "/x/krb5.conf"},
			[]string{"--sasl-mechanism GSSAPI", "no krb5.conf at /x/krb5.conf"}},
		{"an unknown mechanism property", []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=KERBEROS"},
			[]string{`sasl.mechanism "KERBEROS"`, "kproduce supports PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, GSSAPI"}},
		{"JKS truststore type", []string{"-X", "security.protocol=SSL", "-X", "ssl.truststore.location=/x/ts.jks", "-X", "ssl.truststore.type=JKS"},
			[]string{"--tls-truststore", "/x/ts.jks", "no such file"}},
		{"PKCS12 keystore type", []string{"-X", "security.protocol=SSL", "-X", "ssl.keystore.location=/x/ks.p12", "-X", "ssl.keystore.type=pkcs12"},
			[]string{"--tls-keystore", "/x/ks.p12", "no such file"}},
		{"inline PEM", []string{"-X", "security.protocol=SSL", "-X", "ssl.truststore.certificates=-----BEGIN CERTIFICATE-----"},
			[]string{"ssl.truststore.certificates (PEM in the property) is not supported"}},
		{"unsupported login module", []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=PLAIN",
			"-X", `sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required password="hunter2";`},
			[]string{"login module org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule is not supported"}},
		{"malformed JAAS", []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=PLAIN",
			"-X", `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required password="hunter2"`},
			[]string{"malformed sasl.jaas.config", "missing ';'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runKproduce(t, strings.NewReader(""), append([]string{"-t", "t", "-b", "127.0.0.1:1"}, tt.args...)...)
			assert.Equal(t, cmdutil.ExitUsage, res.Code, res.Stderr)
			for _, s := range tt.text {
				assert.Contains(t, res.Stderr, s)
			}
			assert.NotContains(t, res.Stderr, "hunter2", "a secret never appears in an error")
		})
	}
}

func TestSecurityRedaction(t *testing.T) {
	// A run that logs at debug level and fails authentication: the
	// password appears nowhere, whichever way it was given.
	const secret = "s3cr3t-0d9f8a7b"
	c := securityCluster(t, kfake.EnableSASL(), kfake.Superuser("PLAIN", saslUser, saslPass))
	brokers := strings.Join(c.ListenAddrs(), ",")
	jaas := `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="` + secret + `";`
	yaml := kafkatest.WriteFile(t, t.TempDir(), "c.yaml", []byte("sasl-mechanism: PLAIN\nsasl-username: alice\nsasl-password: "+secret+"\n"))
	props := kafkatest.WriteFile(t, t.TempDir(), "p.properties", []byte("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"+jaas+"\n"))
	for name, args := range map[string][]string{
		"flag":            {"--sasl-mechanism", "PLAIN", "--sasl-username", "alice", "--sasl-password", secret},
		"yaml":            {"--config", yaml},
		"properties file": {"--config", props},
		"-X":              {"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=PLAIN", "-X", jaas},
	} {
		t.Run(name, func(t *testing.T) {
			res := runKproduce(t, strings.NewReader("a\nb\n"), append([]string{"-t", "t", "-b", brokers, "--log-level", "debug"}, args...)...)
			assert.NotEqual(t, cmdutil.ExitUsage, res.Code, res.Stderr)
			assert.Contains(t, res.Stderr, "sasl_password=[redacted]")
			assert.Contains(t, res.Stderr, "authentication failed")
			assert.NotContains(t, res.Stderr+res.Stdout, secret)
		})
	}
}

// TestE2EAuthenticationFailureToldOnce: every broker of a cluster refuses
// the same credentials the same way; the run fails at once and tells the
// failure once, not once per bootstrap broker (nor once per record read),
// and never shows the password.
func TestE2EAuthenticationFailureToldOnce(t *testing.T) {
	const wrong = "n0t-the-passw0rd-5e1f"
	tests := []struct {
		name    string
		mech    string
		control func(c *kfake.Cluster)
		cause   string
	}{
		{"PLAIN, the broker closes the connection", "PLAIN", nil,
			"the broker closed the connection during SASL authentication (wrong user name or password?)"},
		{"PLAIN, the broker answers SASL_AUTHENTICATION_FAILED", "PLAIN", answerAuthFailed,
			"SASL_AUTHENTICATION_FAILED: SASL authentication failed: Authentication failed: Invalid username or password"},
		{"SCRAM-SHA-256", "SCRAM-SHA-256", nil, "the broker closed the connection during SASL authentication"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The brokers accept connections once a record is read.
			stdin := newGatedReader("a\nb\nc\n")
			c := securityCluster(t, kfake.EnableSASL(), kfake.Superuser(tt.mech, saslUser, saslPass), kfake.ListenFn(stdin.listen))
			if tt.control != nil {
				tt.control(c)
			}
			require.Len(t, c.ListenAddrs(), 3)
			res := runKproduce(t, stdin, "-t", "t", "-b", strings.Join(c.ListenAddrs(), ","),
				"--sasl-mechanism", tt.mech, "--sasl-username", saslUser, "--sasl-password", wrong)
			t.Logf("exit %d after %v:\n%s", res.Code, res.Took, res.Stderr)
			assert.Equal(t, cmdutil.ExitFailed, res.Code)
			assert.Less(t, res.Took, 5*time.Second, "fails at once")
			assert.Equal(t, 1, strings.Count(res.Stderr, tt.cause), "the failure is told once")
			assert.Equal(t, 1, strings.Count(res.Stderr, "authentication failed: SASL "+tt.mech+": "), "the failure is told once")
			fatal := kafkatest.LinesWith(res.Stderr, "error: bootstrap broker ")
			require.Len(t, fatal, 1)
			assert.Contains(t, fatal[0], tt.cause)
			assert.Empty(t, kafkatest.LinesWith(res.Stderr, report.NoticePrefix), "no notice repeats it")
			failed := kafkatest.LinesWith(res.Stderr, "error: -:")
			require.NotEmpty(t, failed, "each record read is reported")
			for _, l := range failed {
				assert.Regexp(t, `^error: -:\d: t/-1: not sent: the producer stopped \(the error below says why\)$`, l)
			}
			assert.NotContains(t, res.Stderr+res.Stdout, wrong, "the password never appears")
			kafkatest.RequireEmpty(t, c, "t")
		})
	}
}
