package tlsconf

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture is a file of testdata, made with openssl and keytool:
// cert.pem (self-signed) and its EC key as key.pem (PKCS #8), encrypted
// with the password "fixture-pass" as key-pkcs8-aes256.pem (PBES2,
// HMAC-SHA256, AES-256-CBC), key-pkcs8-des3.pem (PBES2, HMAC-SHA1,
// 3DES), key-pkcs8-pbes1.pem (PBES1) and key-legacy-aes128.pem (OpenSSL's
// legacy encryption); cert.der, truststore.jks and keystore.p12 hold the
// same certificate.
func fixture(name string) string { return filepath.Join("testdata", name) }

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

func TestBuildRecognisesOtherStores(t *testing.T) {
	tests := map[string]struct {
		cfg  Config
		want []string
	}{
		"JKS truststore": {Config{CAFile: fixture("truststore.jks")},
			[]string{"Java keystore (JKS)", "keytool -importkeystore", "openssl pkcs12 -in store.p12 -nokeys -out ca.pem"}},
		"PKCS12 keystore": {Config{CertFile: fixture("keystore.p12"), KeyFile: fixture("keystore.p12")},
			[]string{"PKCS #12 keystore", "openssl pkcs12 -in STORE.p12 -nocerts -nodes -out client.key"}},
		"DER certificate": {Config{CAFile: fixture("cert.der")}, []string{"DER certificate", "openssl x509 -inform der"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := tt.cfg.Build()
			require.ErrorIs(t, err, ErrNotPEM)
			for _, w := range tt.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}
