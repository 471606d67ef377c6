package producecmd_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/internal/kafkatest/javastores"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// TestE2EKeystores produces over mutual TLS with the Java stores keytool
// and openssl made, given as flags, as -X Java properties and in a
// producer.properties file, and reads the records back.
func TestE2EKeystores(t *testing.T) {
	certs := networktest.NewCertFiles(t)
	s := javastores.Make(t, certs)
	pw := javastores.Password
	props := kafkatest.WriteFile(t, t.TempDir(), "producer.properties", []byte(strings.Join([]string{
		"security.protocol=SSL",
		"ssl.keystore.location=" + s.JKSKeystore, "ssl.keystore.type=JKS", "ssl.keystore.password=" + pw, "ssl.key.password=" + pw,
		"ssl.truststore.location=" + s.JKSTruststore, "ssl.truststore.type=JKS", "ssl.truststore.password=" + pw, ""}, "\n")))
	tests := map[string][]string{
		"JKS key store and trust store": {"--tls-keystore", s.JKSKeystore, "--tls-keystore-password", pw,
			"--tls-truststore", s.JKSTruststore, "--tls-truststore-password", pw},
		"PKCS12 pair": {"--tls-keystore", s.P12Keystore, "--tls-keystore-password", pw,
			"--tls-truststore", s.P12Truststore, "--tls-truststore-password", pw},
		"two keys, the alias chooses": {"--tls-keystore", s.TwoKeysJKS, "--tls-keystore-password", pw,
			"--tls-keystore-alias", javastores.ClientAlias, "--tls-ca", certs.CA},
		"PKCS12 two keys, alias as -X": {"-X", "security.protocol=SSL", "-X", "ssl.keystore.location=" + s.TwoKeysP12,
			"-X", "ssl.keystore.password=" + pw, "--tls-keystore-alias", javastores.ClientAlias,
			"-X", "ssl.truststore.location=" + s.P12Truststore, "-X", "ssl.truststore.password=" + pw},
		"a PKCS12 store declared JKS: the content decides": {"-X", "security.protocol=SSL", "-X", "ssl.keystore.location=" + s.P12NoExt,
			"-X", "ssl.keystore.type=JKS", "-X", "ssl.keystore.password=" + pw, "-X", "ssl.truststore.location=" + s.JKSTruststore,
			"-X", "ssl.truststore.password=" + pw},
		"librdkafka's PKCS12 key store": {"-X", "security.protocol=ssl", "-X", "ssl.keystore.location=" + s.P12Keystore,
			"-X", "ssl.keystore.password=" + pw, "-X", "ssl.ca.location=" + certs.CA},
		"producer.properties": {"--producer.config", props},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			c := securityCluster(t, kfake.TLS(certs.ServerTLS(true)))
			in, want := securityInput(name, 20)
			res := runKproduce(t, strings.NewReader(in), append([]string{"-t", "t", "-b", kafkatest.Brokers(c), "--log-level", "debug"}, args...)...)
			require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
			assert.NotContains(t, res.Stderr, pw, "no store password in any log")
			assert.ElementsMatch(t, want, consumeSecure(t, c, "t", 20, kgo.DialTLSConfig(certs.ClientTLS())))
		})
	}
	t.Run("two keys without the alias: the first is not the broker's", func(t *testing.T) {
		c := securityCluster(t, kfake.TLS(certs.ServerTLS(true)))
		res := runKproduce(t, strings.NewReader("x\n"), "-t", "t", "-b", kafkatest.Brokers(c), "--tls-keystore", s.TwoKeysJKS, "--tls-keystore-password", pw, "--tls-ca", certs.CA, "--delivery-timeout", "20s")
		assert.Equal(t, cmdutil.ExitFailed, res.Code, res.Stderr)
		assert.Less(t, res.Took, 15*time.Second, "a TLS refusal ends the run at once")
	})
}

// TestE2EKeystoreErrors: a wrong password or a store without a key is a
// usage error (exit 2) naming the file, before anything is sent; no
// password is shown.
func TestE2EKeystoreErrors(t *testing.T) {
	certs := networktest.NewCertFiles(t)
	s := javastores.Make(t, certs)
	pw := javastores.Password
	tests := []struct {
		name string
		args []string
		text []string
	}{
		{"JKS key store, wrong password", []string{"--tls-keystore", s.JKSKeystore, "--tls-keystore-password", "hunter2"},
			[]string{"--tls-keystore", s.JKSKeystore, "wrong store password for the JKS key store"}},
		{"PKCS12 key store, wrong password", []string{"-X", "security.protocol=SSL", "-X", "ssl.keystore.location=" + s.P12Keystore,
			"-X", "ssl.keystore.password=hunter2"}, []string{s.P12Keystore, "wrong store password for the PKCS #12 key store"}},
		{"JKS trust store, wrong password", []string{"--tls-truststore", s.JKSTruststore, "--tls-truststore-password", "hunter2"},
			[]string{"--tls-truststore", s.JKSTruststore, "wrong store password for the JKS trust store"}},
		{"JKS key store, no password", []string{"--tls-keystore", s.JKSKeystore}, []string{s.JKSKeystore, "needs its password"}},
		{"wrong key password", []string{"--tls-keystore", s.JKSKeystore, "--tls-keystore-password", pw, "--tls-key-password", "hunter2"},
			[]string{s.JKSKeystore, "cannot decrypt the private key"}},
		{"a store with no private key", []string{"--tls-keystore", s.JKSTruststore, "--tls-keystore-password", pw},
			[]string{s.JKSTruststore, "no private key in the key store", "trusted certificate(s) only"}},
		{"an alias not in the store", []string{"--tls-keystore", s.TwoKeysP12, "--tls-keystore-password", pw, "--tls-keystore-alias", "nope"},
			[]string{s.TwoKeysP12, `under alias "nope"`, javastores.ClientAlias}},
		{"a JKS store given as --tls-ca", []string{"--tls-ca", s.JKSTruststore}, []string{"Give it as --tls-truststore"}},
		{"a bad store type", []string{"-X", "security.protocol=SSL", "-X", "ssl.truststore.type=BCFKS"},
			[]string{`ssl.truststore.type "BCFKS"`, "want PKCS12, JKS or PEM"}},
		{"key store and PEM certificate", []string{"--tls-keystore", s.JKSKeystore, "--tls-cert", certs.ClientCert, "--tls-key", certs.ClientKey},
			[]string{"either as --tls-keystore or as --tls-cert and --tls-key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runKproduce(t, strings.NewReader("x\n"), append([]string{"-t", "t", "-b", "127.0.0.1:1"}, tt.args...)...)
			assert.Equal(t, cmdutil.ExitUsage, res.Code, res.Stderr)
			for _, text := range tt.text {
				assert.Contains(t, res.Stderr, text)
			}
			assert.NotContains(t, res.Stderr, "hunter2")
			assert.NotContains(t, res.Stderr, pw)
		})
	}
}
