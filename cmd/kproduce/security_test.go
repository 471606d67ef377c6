package main

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kproduce/kproduce/pkg/network"
)

// fixture is a file of testdata/security, made with openssl and keytool:
// cert.pem (self-signed) and its EC key as key.pem (PKCS #8), encrypted
// with the password "fixture-pass" as key-pkcs8-aes256.pem (PBES2,
// HMAC-SHA256, AES-256-CBC), key-pkcs8-des3.pem (PBES2, HMAC-SHA1,
// 3DES), key-pkcs8-pbes1.pem (PBES1) and key-legacy-aes128.pem (OpenSSL's
// legacy encryption); cert.der, truststore.jks and keystore.p12 hold the
// same certificate.
func fixture(name string) string { return filepath.Join("testdata", "security", name) }

func TestParseJAAS(t *testing.T) {
	tests := []struct {
		in     string
		module string
		opts   map[string]string
	}{
		{`org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";`,
			"org.apache.kafka.common.security.plain.PlainLoginModule", map[string]string{"username": "u", "password": "p"}},
		{"  org.apache.kafka.common.security.scram.ScramLoginModule  REQUIRED\n\tusername=alice   password = \"a \\\"quoted\\\" p;w=\"  ;  ",
			"org.apache.kafka.common.security.scram.ScramLoginModule", map[string]string{"username": "alice", "password": `a "quoted" p;w=`}},
		{`M optional;`, "M", map[string]string{}},
		{`M sufficient password="" user=x;`, "M", map[string]string{"password": "", "user": "x"}},
	}
	for _, tt := range tests {
		cfg, err := parseJAAS(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.module, cfg.Module)
		assert.Equal(t, tt.opts, cfg.Options)
	}
	for _, bad := range []string{
		``, `M`, `M required`, `M always password="hunter2";`, `M required password="hunter2"`,
		`M required password="hunter2;`, `M required password=;`, `M required ="hunter2";`,
		`M required password="hunter2"; N required;`, `M required password hunter2;`,
	} {
		_, err := parseJAAS(bad)
		require.Error(t, err, bad)
		assert.ErrorIs(t, err, errBadJAAS)
		assert.NotContains(t, err.Error(), "hunter2", "a JAAS error never shows a value")
	}
}

// securityOptions resolves args (plus a topic) and returns the security
// settings.
func securityOptions(t *testing.T, args ...string) (SecurityOptions, string) {
	t.Helper()
	o, stderr, err := parseOptions(t, append([]string{"-t", "t"}, args...)...)
	require.NoError(t, err)
	return o.Security, stderr
}

func TestSecurityOptions(t *testing.T) {
	certs := newTestCerts(t)
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
	certs := newTestCerts(t)
	t.Run("SSL with PEM stores", func(t *testing.T) {
		s, stderr := securityOptions(t, "-X", "security.protocol=ssl", "-X", "ssl.truststore.location="+certs.CA,
			"-X", "ssl.truststore.type=PEM", "-X", "ssl.keystore.location="+certs.ClientBundle, "-X", "ssl.keystore.type=PEM",
			"-X", "ssl.keystore.password=ignored", "-X", "ssl.enabled.protocols=TLSv1.3")
		assert.True(t, s.TLS)
		assert.Equal(t, certs.CA, s.TLSCA)
		assert.Equal(t, certs.ClientBundle, s.TLSCert)
		assert.Equal(t, certs.ClientBundle, s.TLSKey)
		require.NotNil(t, s.TLSConfig)
		assert.Len(t, s.TLSConfig.Certificates, 1, "a PEM keystore holds the certificate and its key")
		assert.False(t, s.TLSConfig.InsecureSkipVerify)
		assert.Contains(t, stderr, "Java property ssl.enabled.protocols has no effect in kproduce")
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
		s, stderr := securityOptions(t, "-X", "security.protocol=SSL", "-X", "ssl.keystore.location="+fixture("key-pkcs8-aes256.pem"),
			"-X", "ssl.key.password=fixture-pass", "--tls-cert", fixture("cert.pem"), "--log-level", "debug")
		require.NotNil(t, s.TLSConfig)
		assert.Len(t, s.TLSConfig.Certificates, 1)
		assert.NotContains(t, stderr, "fixture-pass")
	})
	t.Run("PLAINTEXT ignores the ssl and sasl properties", func(t *testing.T) {
		s, stderr := securityOptions(t, "-X", "ssl.truststore.location=/nonexistent.jks", "-X", "sasl.mechanism=GSSAPI")
		assert.False(t, s.TLS)
		assert.Nil(t, s.SASL)
		assert.Contains(t, stderr, "ssl.truststore.location has no effect without security.protocol=SSL or SASL_SSL")
		assert.Contains(t, stderr, "sasl.mechanism has no effect without security.protocol=SASL_PLAINTEXT or SASL_SSL")
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

func TestSecurityUsageErrors(t *testing.T) {
	certs := newTestCerts(t)
	notPEM := writeFile(t, "not.pem", "hello\n")
	empty := writeFile(t, "empty.pem", "-----BEGIN NOTHING-----\naGk=\n-----END NOTHING-----\n")
	tests := []struct {
		name string
		args []string
		text []string
	}{
		{"mechanism without user name and password", []string{"--sasl-mechanism", "PLAIN"},
			[]string{"--sasl-username", "needs a user name", "--sasl-password", "needs a password"}},
		{"unknown mechanism", []string{"--sasl-mechanism", "GSSAPI", "--sasl-username", "u", "--sasl-password", "p"},
			[]string{`--sasl-mechanism "GSSAPI"`, "want PLAIN, SCRAM-SHA-256, SCRAM-SHA-512"}},
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
		{"SASL protocol without mechanism", []string{"-X", "security.protocol=SASL_SSL"},
			[]string{"security.protocol=SASL_SSL needs sasl.mechanism", "GSSAPI, Java's default, is not supported"}},
		{"GSSAPI", []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=GSSAPI"},
			[]string{`sasl.mechanism "GSSAPI"`, "kproduce supports PLAIN, SCRAM-SHA-256, SCRAM-SHA-512"}},
		{"JKS truststore type", []string{"-X", "security.protocol=SSL", "-X", "ssl.truststore.location=/x/ts.jks", "-X", "ssl.truststore.type=JKS"},
			[]string{"ssl.truststore.type=JKS: kproduce reads PEM stores only", "keytool -importkeystore"}},
		{"PKCS12 keystore type", []string{"-X", "security.protocol=SSL", "-X", "ssl.keystore.location=/x/ks.p12", "-X", "ssl.keystore.type=pkcs12"},
			[]string{"ssl.keystore.type=PKCS12", "openssl pkcs12 -in STORE.p12 -nokeys -out client.pem"}},
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
			res := runSecurity(t, "", append([]string{"-t", "t", "-b", "127.0.0.1:1"}, tt.args...)...)
			assert.Equal(t, exitUsage, res.code, res.stderr)
			for _, s := range tt.text {
				assert.Contains(t, res.stderr, s)
			}
			assert.NotContains(t, res.stderr, "hunter2", "a secret never appears in an error")
		})
	}
}

func TestEncryptedKeys(t *testing.T) {
	for _, key := range []string{"key.pem", "key-pkcs8-aes256.pem", "key-pkcs8-des3.pem", "key-legacy-aes128.pem"} {
		t.Run(key, func(t *testing.T) {
			cert, err := loadKeyPair(fixture("cert.pem"), fixture(key), "fixture-pass")
			require.NoError(t, err)
			assert.NotNil(t, cert.PrivateKey)
		})
	}
	data, err := os.ReadFile(fixture("key-pkcs8-aes256.pem"))
	require.NoError(t, err)
	_, err = decryptKeyPEM("k", data, "fixture-pasS")
	assert.ErrorContains(t, err, "wrong password")
	for _, garbage := range [][]byte{nil, {0x30, 0x00}, []byte("not der")} {
		_, err := decryptPKCS8(garbage, []byte("p"))
		assert.Error(t, err)
	}
}

func TestSecurityRedaction(t *testing.T) {
	// A run that logs at debug level and fails authentication: the
	// password appears nowhere, whichever way it was given.
	const secret = "s3cr3t-0d9f8a7b"
	c := securityCluster(t, kfake.EnableSASL(), kfake.Superuser("PLAIN", saslUser, saslPass))
	brokers := strings.Join(c.ListenAddrs(), ",")
	jaas := `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="` + secret + `";`
	yaml := writeFile(t, "c.yaml", "sasl-mechanism: PLAIN\nsasl-username: alice\nsasl-password: "+secret+"\n")
	props := writeFile(t, "p.properties", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"+jaas+"\n")
	for name, args := range map[string][]string{
		"flag":            {"--sasl-mechanism", "PLAIN", "--sasl-username", "alice", "--sasl-password", secret},
		"yaml":            {"--config", yaml},
		"properties file": {"--config", props},
		"-X":              {"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=PLAIN", "-X", jaas},
	} {
		t.Run(name, func(t *testing.T) {
			res := runSecurity(t, "a\nb\n", append([]string{"-t", "t", "-b", brokers, "--log-level", "debug"}, args...)...)
			assert.NotEqual(t, exitUsage, res.code, res.stderr)
			assert.Contains(t, res.stderr, "sasl_password=[redacted]")
			assert.Contains(t, res.stderr, "authentication failed")
			assert.NotContains(t, res.stderr+res.stdout, secret)
		})
	}
}
