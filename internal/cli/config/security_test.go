package config

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// fixture is a file of the TLS material fixtures (see internal/tlsconf).
func fixture(name string) string { return filepath.Join("..", "..", "tlsconf", "testdata", name) }

// securityOptions resolves args (plus a topic) and returns the security
// settings.
func securityOptions(t *testing.T, args ...string) (SecurityOptions, string) {
	t.Helper()
	o, stderr, err := parseOptions(t, append([]string{"-t", "t"}, args...)...)
	require.NoError(t, err)
	return o.Security, stderr
}

func TestSecurityOptions(t *testing.T) {
	certs := networktest.NewCertFiles(t)
	t.Run("defaults: no TLS, no SASL", func(t *testing.T) {
		s, _ := securityOptions(t)
		assert.False(t, s.TLS)
		assert.Nil(t, s.TLSConfig)
		assert.Nil(t, s.SASL)
	})
	t.Run("flags", func(t *testing.T) {
		s, _ := securityOptions(t, "--tls-ca", certs.CA, "--tls-cert", certs.ClientCert, "--tls-key", certs.ClientKey,
			"--tls-server-name", "kafka.internal", "--sasl-mechanism", "scram-sha-512", "--sasl-username", "u", "--sasl-password", "p")
		assert.True(t, s.TLS, "a --tls-* option implies --tls")
		require.NotNil(t, s.TLSConfig)
		assert.Equal(t, "kafka.internal", s.TLSConfig.ServerName)
		assert.Len(t, s.TLSConfig.Certificates, 1)
		assert.NotNil(t, s.TLSConfig.RootCAs)
		assert.False(t, s.TLSConfig.InsecureSkipVerify)
		assert.Equal(t, uint16(tls.VersionTLS12), s.TLSConfig.MinVersion)
		assert.Equal(t, network.SCRAMMechanism{Hash: network.SCRAMSHA512, Username: "u", Password: "p"}, s.SASL)
	})
	t.Run("--tls alone uses the system CAs", func(t *testing.T) {
		s, _ := securityOptions(t, "--tls")
		require.NotNil(t, s.TLSConfig)
		assert.Nil(t, s.TLSConfig.RootCAs)
	})
	t.Run("--tls=false wins over the other TLS options", func(t *testing.T) {
		s, _ := securityOptions(t, "--tls=false", "--tls-ca", certs.CA)
		assert.False(t, s.TLS)
		assert.Nil(t, s.TLSConfig)
	})
	t.Run("insecure skip verify", func(t *testing.T) {
		s, _ := securityOptions(t, "--tls-insecure-skip-verify")
		require.NotNil(t, s.TLSConfig)
		assert.True(t, s.TLSConfig.InsecureSkipVerify)
		assert.Nil(t, s.TLSConfig.VerifyConnection)
	})
}

func TestSecurityPrecedence(t *testing.T) {
	yaml := writeFile(t, "c.yaml", "sasl-mechanism: PLAIN\nsasl-username: file-user\nsasl-password: file-pass\n")
	props := writeFile(t, "p.properties", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n"+
		`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="props-user" password="props-pass";`+"\n")
	jaas := `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="x-user" password="x-pass";`
	tests := []struct {
		name     string
		env      map[string]string
		args     []string
		mech     string
		user     string
		pass     string
		warnings []string
	}{
		{name: "config file", args: []string{"--config", yaml}, mech: "PLAIN", user: "file-user", pass: "file-pass"},
		{name: "env over config file", env: map[string]string{"KPRODUCE_SASL_PASSWORD": "env-pass"},
			args: []string{"--config", yaml}, mech: "PLAIN", user: "file-user", pass: "env-pass"},
		{name: "flag over env", env: map[string]string{"KPRODUCE_SASL_PASSWORD": "env-pass"},
			args: []string{"--config", yaml, "--sasl-password", "flag-pass"}, mech: "PLAIN", user: "file-user", pass: "flag-pass"},
		{name: "properties file", args: []string{"--config", props}, mech: "SCRAM-SHA-256", user: "props-user", pass: "props-pass"},
		{name: "env over properties file", env: map[string]string{"KPRODUCE_SASL_USERNAME": "env-user", "KPRODUCE_SASL_MECHANISM": "SCRAM-SHA-512"},
			args: []string{"--config", props}, mech: "SCRAM-SHA-512", user: "env-user", pass: "props-pass"},
		{name: "-X over env and properties file", env: map[string]string{"KPRODUCE_SASL_USERNAME": "env-user"},
			args: []string{"--config", props, "-X", "sasl.mechanism=PLAIN", "-X", jaas}, mech: "PLAIN", user: "x-user", pass: "x-pass"},
		{name: "flag over -X", args: []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=PLAIN", "-X", jaas,
			"--sasl-username", "flag-user"}, mech: "PLAIN", user: "flag-user", pass: "x-pass",
			warnings: []string{"-X sasl.jaas.config ignored for --sasl-username: --sasl-username was given"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			s, stderr := securityOptions(t, tt.args...)
			assert.Equal(t, tt.mech, s.SASLMechanism)
			assert.Equal(t, tt.user, s.SASLUsername)
			assert.Equal(t, tt.pass, s.SASLPassword)
			require.NotNil(t, s.SASL)
			assert.Equal(t, tt.mech, s.SASL.Name())
			for _, w := range tt.warnings {
				assert.Contains(t, stderr, w)
			}
		})
	}
}

func TestSecurityJavaTLS(t *testing.T) {
	certs := networktest.NewCertFiles(t)
	t.Run("SSL with PEM stores", func(t *testing.T) {
		s, stderr := securityOptions(t, "-X", "security.protocol=ssl", "-X", "ssl.truststore.location="+certs.CA,
			"-X", "ssl.truststore.type=PEM", "-X", "ssl.keystore.location="+certs.ClientBundle, "-X", "ssl.keystore.type=PEM",
			"-X", "ssl.keystore.password=ignored", "-X", "ssl.enabled.protocols=TLSv1.3")
		assert.True(t, s.TLS)
		assert.Equal(t, certs.CA, s.TLSTruststore)
		assert.Equal(t, certs.ClientBundle, s.TLSKeystore)
		assert.Equal(t, "ignored", s.TLSKeystorePassword, "a PEM store needs no password: it is not used")
		require.NotNil(t, s.TLSConfig)
		assert.Len(t, s.TLSConfig.Certificates, 1, "a PEM keystore holds the certificate and its key")
		assert.False(t, s.TLSConfig.InsecureSkipVerify)
		assert.Contains(t, stderr, "property ssl.enabled.protocols has no effect in kproduce")
		assert.NotContains(t, stderr, "ssl.keystore.password has no effect")
	})
	t.Run("host name verification off", func(t *testing.T) {
		s, _ := securityOptions(t, "-X", "security.protocol=SSL", "-X", "ssl.endpoint.identification.algorithm=")
		require.NotNil(t, s.TLSConfig)
		assert.True(t, s.TLSSkipHostnameVerify)
		assert.True(t, s.TLSConfig.InsecureSkipVerify, "Go checks chain and name together")
		assert.NotNil(t, s.TLSConfig.VerifyConnection, "the chain is still verified")
	})
	t.Run("encrypted PEM key with ssl.key.password", func(t *testing.T) {
		cert, err := os.ReadFile(fixture("cert.pem"))
		require.NoError(t, err)
		key, err := os.ReadFile(fixture("key-pkcs8-aes256.pem"))
		require.NoError(t, err)
		bundle := writeFile(t, "bundle.pem", string(cert)+string(key))
		s, stderr := securityOptions(t, "-X", "security.protocol=SSL", "-X", "ssl.keystore.location="+bundle,
			"-X", "ssl.key.password=fixture-pass", "--log-level", "debug")
		require.NotNil(t, s.TLSConfig)
		assert.Len(t, s.TLSConfig.Certificates, 1)
		assert.NotContains(t, stderr, "fixture-pass")
	})
	t.Run("PLAINTEXT ignores the ssl and sasl properties", func(t *testing.T) {
		s, stderr := securityOptions(t, "-X", "ssl.truststore.location=/nonexistent.jks", "-X", "sasl.mechanism=GSSAPI")
		assert.False(t, s.TLS)
		assert.Nil(t, s.SASL)
		assert.Contains(t, stderr, "ssl.truststore.location has no effect without security.protocol=SSL or SASL_SSL (or --tls)")
		assert.Contains(t, stderr, "sasl.mechanism has no effect without security.protocol=SASL_PLAINTEXT or SASL_SSL (or --sasl-mechanism)")
	})
	t.Run("SASL_SSL turns TLS on; PLAINTEXT turns it off", func(t *testing.T) {
		s, _ := securityOptions(t, "-X", "security.protocol=SASL_SSL", "--sasl-mechanism", "PLAIN", "--sasl-username", "u", "--sasl-password", "p")
		assert.True(t, s.TLS)
		assert.NotNil(t, s.TLSConfig)
		assert.NotNil(t, s.SASL)
		s, _ = securityOptions(t, "--config", writeFile(t, "c.yaml", "tls: true\nproperty: {security.protocol: PLAINTEXT}\n"))
		assert.False(t, s.TLS)
	})
}
