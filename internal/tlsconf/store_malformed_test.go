package tlsconf

import (
	"bytes"
	"crypto/sha1" //nolint:gosec // the JKS integrity check is SHA-1 by definition
	"encoding/asn1"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest/javastores"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// signJKS replaces the integrity digest of a JKS store's data with the
// one the password makes, as keytool would have written it.
func signJKS(data []byte, password string) []byte {
	out := bytes.Clone(data)
	copy(out[len(out)-sha1.Size:], jksDigest(out[:len(out)-sha1.Size], password))
	return out
}

// writeStore writes data to a file of a new directory.
func writeStore(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

// A JKS store whose digest matches its password but whose lengths lie
// (a count of 2^32-1 certificates in the chain of keytool's key entry, a
// key of 4 GB) is malformed, named: the decoder would have allocated
// what they say.
func TestJKSLengthsThatLie(t *testing.T) {
	s := javastores.Make(t, networktest.NewCertFiles(t))
	data, err := os.ReadFile(s.JKSKeystore)
	require.NoError(t, err)
	require.Equal(t, uint32(1), binary.BigEndian.Uint32(data[12:]), "a private key entry first")
	alias := int(binary.BigEndian.Uint16(data[16:]))
	keyLength := 18 + alias + 8
	certCount := keyLength + 4 + int(binary.BigEndian.Uint32(data[keyLength:]))
	for name, at := range map[string]int{"certificate count": certCount, "key length": keyLength} {
		t.Run(name, func(t *testing.T) {
			bad := bytes.Clone(data)
			binary.BigEndian.PutUint32(bad[at:], 0xffffffff)
			path := writeStore(t, "lies.jks", signJKS(bad, javastores.Password))
			_, err := LoadKeystore(Store{File: path, Password: javastores.Password})
			require.Error(t, err)
			assert.Contains(t, err.Error(), path+": malformed JKS key store: entry 1 at byte 12: a length runs past the end of the store")
		})
	}
	t.Run("unchanged, signed again", func(t *testing.T) {
		_, err := LoadKeystore(Store{File: writeStore(t, "same.jks", signJKS(data, javastores.Password)), Password: javastores.Password})
		assert.NoError(t, err)
	})
}

// A PKCS #12 store whose MAC asks for 2^31-1 rounds of key derivation is
// refused before any: the decoder would have run them (minutes of CPU).
func TestPKCS12IterationCountBounded(t *testing.T) {
	data, err := os.ReadFile(fixture("keystore.p12"))
	require.NoError(t, err)
	require.Equal(t, []byte{0x02, 0x02, 0x08, 0x00}, data[len(data)-4:], "the MAC's iteration count (2048) last")
	require.Equal(t, []byte{0x30, 65}, data[989:991], "the MAC data's sequence")
	bad := append(bytes.Clone(data[:len(data)-4]), 0x02, 0x04, 0x7f, 0xff, 0xff, 0xff)
	bad[990] += 2
	binary.BigEndian.PutUint16(bad[2:], binary.BigEndian.Uint16(bad[2:])+2)
	path := writeStore(t, "slow.p12", bad)
	for _, load := range []func() error{
		func() error { _, err := LoadTruststore(Store{File: path, Password: "changeit"}); return err },
		func() error { _, err := LoadKeystore(Store{File: path, Password: "changeit"}); return err },
	} {
		err := load()
		require.Error(t, err)
		assert.Contains(t, err.Error(), path+": the PKCS #12 ")
		assert.Contains(t, err.Error(), "asks for an iteration count of 2147483647: more than 10000000 rounds of key derivation")
	}
	_, err = LoadTruststore(Store{File: fixture("keystore.p12"), Password: "changeit"})
	assert.NoError(t, err, "2048 rounds")
}

// A PEM key store cut inside its key block is an error naming the file,
// not a crash.
func TestPEMKeyStoreCutShort(t *testing.T) {
	data, err := os.ReadFile(fixture("key.pem"))
	require.NoError(t, err)
	cert, err := os.ReadFile(fixture("cert.pem"))
	require.NoError(t, err)
	for name, content := range map[string][]byte{
		"key cut":                 data[:100],
		"certificate, key cut":    append(bytes.Clone(cert), data[:len(data)-10]...),
		"only the key's END line": append(bytes.Clone(cert), "-----END PRIVATE KEY-----\n"...),
	} {
		t.Run(name, func(t *testing.T) {
			path := writeStore(t, "bundle.pem", content)
			_, err := LoadKeystore(Store{File: path})
			require.Error(t, err)
			assert.Contains(t, err.Error(), path+": no PEM private key block in it")
		})
	}
}

// Parameters of several bags, each within the bound, are refused when
// their counts add up past maxPKCS12Iterations.
func TestPKCS12IterationCountsSummed(t *testing.T) {
	type pbeParams struct {
		Salt       []byte
		Iterations int
	}
	bags := func(n, each int) []byte {
		params := make([]pbeParams, n)
		for i := range params {
			params[i] = pbeParams{Salt: []byte("saltsalt"), Iterations: each}
		}
		der, err := asn1.Marshal(params)
		require.NoError(t, err)
		return der
	}
	var total int64
	assert.NoError(t, checkPKCS12Iterations(bags(4, maxPBKDF2Iterations), 0, &total))
	total = 0
	err := checkPKCS12Iterations(bags(5, maxPBKDF2Iterations), 0, &total)
	assert.EqualError(t, err, "iteration counts of 50000000 in all: more than 40000000 rounds of key derivation")
	total = 0
	assert.NoError(t, checkPKCS12Iterations(bags(100, -maxPBKDF2Iterations), 0, &total), "negative counts add nothing")
}
