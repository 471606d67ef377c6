package tlsconf

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest/javastores"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// TestStoresMadeByKeytoolAndOpenSSL reads the stores keytool and openssl
// write: the key chosen is the client's (its certificate and chain), the
// trust stores trust the CA.
func TestStoresMadeByKeytoolAndOpenSSL(t *testing.T) {
	certs := networktest.NewCertFiles(t)
	s := javastores.Make(t, certs)
	pw := javastores.Password
	client, err := x509.ParseCertificate(certs.Client.TLS.Certificate[0])
	require.NoError(t, err)
	keys := map[string]Store{
		"PKCS12":                  {File: s.P12Keystore, Password: pw},
		"PKCS12 without its type": {File: s.P12NoExt, Password: pw},
		"JKS":                     {File: s.JKSKeystore, Password: pw},
		"JKS key password":        {File: s.JKSKeystore, Password: pw, KeyPassword: pw},
		"JKS two keys, alias":     {File: s.TwoKeysJKS, Password: pw, Alias: javastores.ClientAlias},
		"PKCS12 two keys, alias":  {File: s.TwoKeysP12, Password: pw, Alias: "KPRODUCE-Client"},
		"PEM bundle":              {File: certs.ClientBundle},
	}
	for name, st := range keys {
		t.Run("key store "+name, func(t *testing.T) {
			cert, err := LoadKeystore(st)
			require.NoError(t, err)
			assert.True(t, cert.Leaf.Equal(client), "the client's certificate")
			_, err = cert.Leaf.Verify(x509.VerifyOptions{Roots: certs.PKI.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
			assert.NoError(t, err)
			if name != "PEM bundle" {
				assert.Len(t, cert.Certificate, 2, "the leaf and the CA")
			}
		})
	}
	t.Run("two keys without an alias: the first in alias order", func(t *testing.T) {
		cert, err := LoadKeystore(Store{File: s.TwoKeysJKS, Password: pw})
		require.NoError(t, err)
		assert.Equal(t, "other", cert.Leaf.Subject.CommonName)
	})
	for name, st := range map[string]Store{"JKS": {File: s.JKSTruststore, Password: pw}, "PKCS12": {File: s.P12Truststore, Password: pw},
		"PEM": {File: certs.CA}} {
		t.Run("trust store "+name, func(t *testing.T) {
			pool, err := LoadTruststore(st)
			require.NoError(t, err)
			_, err = client.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
			assert.NoError(t, err, "the CA is trusted")
		})
	}
}

// TestStoreErrors: each names the file and says what to do; none shows a
// password.
func TestStoreErrors(t *testing.T) {
	certs := networktest.NewCertFiles(t)
	s := javastores.Make(t, certs)
	pw := javastores.Password
	garbage := filepath.Join(t.TempDir(), "garbage.jks")
	require.NoError(t, os.WriteFile(garbage, []byte("hello, not a store"), 0o600))
	tests := []struct {
		name  string
		load  func() error
		is    error
		texts []string
	}{
		{"JKS wrong password", loadKS(Store{File: s.JKSKeystore, Password: "hunter2"}), ErrStorePassword,
			[]string{s.JKSKeystore, "wrong store password for the JKS key store", "--tls-keystore-password"}},
		{"PKCS12 wrong password", loadKS(Store{File: s.P12Keystore, Password: "hunter2"}), ErrStorePassword,
			[]string{s.P12Keystore, "wrong store password for the PKCS #12 key store"}},
		{"JKS trust store wrong password", loadTS(Store{File: s.JKSTruststore, Password: "hunter2"}), ErrStorePassword,
			[]string{s.JKSTruststore, "trust store", "--tls-truststore-password"}},
		{"PKCS12 trust store wrong password", loadTS(Store{File: s.P12Truststore, Password: "hunter2"}), ErrStorePassword,
			[]string{s.P12Truststore, "wrong store password"}},
		{"JKS without a password", loadKS(Store{File: s.JKSKeystore}), ErrStorePassword, []string{"needs its password"}},
		{"PKCS12 without a password", loadKS(Store{File: s.P12Keystore}), ErrStorePassword, []string{"needs its password"}},
		{"JKS wrong key password", loadKS(Store{File: s.JKSKeystore, Password: pw, KeyPassword: "hunter2"}), ErrStorePassword,
			[]string{"cannot decrypt the private key " + javastores.ClientAlias, "--tls-key-password"}},
		{"no private key", loadKS(Store{File: s.JKSTruststore, Password: pw}), ErrNoPrivateKey,
			[]string{s.JKSTruststore, "no private key in the key store", "1 trusted certificate(s) only", "--tls-truststore"}},
		{"no private key, PKCS12", loadKS(Store{File: s.P12Truststore, Password: pw}), ErrNoPrivateKey,
			[]string{"no private key in the key store"}},
		{"unknown alias", loadKS(Store{File: s.TwoKeysP12, Password: pw, Alias: "nope"}), ErrNoPrivateKey,
			[]string{`under alias "nope"`, javastores.ClientAlias, javastores.OtherAlias}},
		{"not a store", loadKS(Store{File: garbage}), nil, []string{garbage, "neither PEM, JKS nor PKCS #12"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.load()
			require.Error(t, err)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
			for _, text := range tt.texts {
				assert.ErrorContains(t, err, text)
			}
			assert.NotContains(t, err.Error(), pw)
			assert.NotContains(t, err.Error(), "hunter2")
			assert.NotRegexp(t, `\): wrong store password$`, err.Error(), "the cause said once")
		})
	}
}

func loadKS(s Store) func() error {
	return func() error { _, err := LoadKeystore(s); return err }
}

func loadTS(s Store) func() error {
	return func() error { _, err := LoadTruststore(s); return err }
}
