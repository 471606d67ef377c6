package tlsconf

import (
	"crypto/sha1" //nolint:gosec // the JKS integrity check is SHA-1 by definition
	"encoding/binary"
	"os"
	"strings"
	"testing"
)

// FuzzOpenStore opens any data as a key store and a trust store: an
// error naming the file or the store's contents, never a panic. A JKS
// store's digest is made to match the password when sign is set, so that
// the fuzzer reaches the entries' decoder beyond the integrity check.
func FuzzOpenStore(f *testing.F) {
	for _, name := range []string{"keystore.p12", "truststore.jks", "cert.der", "cert.pem", "key.pem"} {
		data, err := os.ReadFile(fixture(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "changeit", true)
		f.Add(data[:len(data)/2], "changeit", true)
	}
	f.Add([]byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1}, "", true)
	f.Add([]byte{0x30, 0x80}, "", false)
	f.Fuzz(func(t *testing.T, data []byte, password string, sign bool) {
		if sign && len(data) >= 4+sha1.Size && binary.BigEndian.Uint32(data) == 0xFEEDFEED {
			data = signJKS(data, password)
		}
		s := Store{File: "fuzz.store", Password: password}
		for _, kind := range []string{"key store", "trust store"} {
			c, err := openStore(s, data, kind)
			if err != nil {
				if !strings.Contains(err.Error(), s.File) {
					t.Fatalf("%s: error %q does not name the file", kind, err)
				}
				continue
			}
			if _, err := c.chooseKey(s); err != nil && !strings.Contains(err.Error(), s.File) {
				t.Fatalf("%s: error %q does not name the file", kind, err)
			}
		}
	})
}
