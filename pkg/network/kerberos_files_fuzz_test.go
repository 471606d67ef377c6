package network

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kerberosSeed reads a file of testdata/kerberos (a krb5.conf, a keytab
// and a ticket cache that MIT's kadmin and kinit wrote).
func kerberosSeed(f *testing.F, name string) []byte {
	f.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "kerberos", name))
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// checkKerberosFileError fails unless err is nil or a configuration
// error naming the file (or the principal asked for).
func checkKerberosFileError(t *testing.T, err error, path string) {
	t.Helper()
	if err == nil {
		return
	}
	if !errors.Is(err, ErrKerberosConfig) && !errors.Is(err, ErrKerberosNoCredentials) {
		t.Fatalf("error %v is not a configuration error", err)
	}
	if !strings.Contains(err.Error(), path) && !strings.Contains(err.Error(), "principal") {
		t.Fatalf("error %v does not name %s", err, path)
	}
}

// FuzzKrb5Conf parses any krb5.conf: an error or a configuration, never
// a panic.
func FuzzKrb5Conf(f *testing.F) {
	f.Add(kerberosSeed(f, "krb5.conf"))
	f.Add([]byte("[realms]\n R = {\n kdc = a\n"))
	f.Add([]byte("[libdefaults]\n default_realm\n}\n{"))
	f.Add([]byte("include /nonexistent\n[realms]\nR = {\n}\n}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := parseKrb5Conf("krb5.conf", data)
		checkKerberosFileError(t, err, "krb5.conf")
	})
}

// FuzzKeytab parses any keytab: an error naming the file or a keytab
// holding the principal, never a panic.
func FuzzKeytab(f *testing.F) {
	kt := kerberosSeed(f, "keytab")
	f.Add(kt, "")
	f.Add(kt, "client@KPRODUCE.TEST")
	f.Add(kt[:len(kt)/2], "")
	f.Add([]byte{5, 2}, "")
	f.Add([]byte{5, 1, 0xff, 0xff, 0xff, 0xff}, "")
	f.Fuzz(func(t *testing.T, data []byte, principal string) {
		k, _, _, err := parseKeytab("client.keytab", data, principal, "KPRODUCE.TEST")
		checkKerberosFileError(t, err, "client.keytab")
		if err == nil && len(k.Entries) == 0 {
			t.Fatal("a keytab without entries accepted")
		}
	})
}

// FuzzCCache parses any ticket cache: an error naming the file or its
// ticket-granting ticket, never a panic.
func FuzzCCache(f *testing.F) {
	cc := kerberosSeed(f, "ccache")
	f.Add(cc)
	f.Add(cc[:len(cc)/2])
	f.Add([]byte{5, 4, 0, 0})
	f.Add([]byte{5, 4, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, _, err := parseCCacheTGT("cc", data)
		checkKerberosFileError(t, err, "cc")
	})
}

// A truncated keytab or ticket cache, or a krb5.conf the parser trips
// on, is a configuration error, never a panic; the keytab's error shows
// none of its keys. (testdata/fuzz holds a ticket cache whose count of
// addresses would have the parser allocate 64 GB.)
func TestTruncatedKerberosFiles(t *testing.T) {
	kt, err := os.ReadFile(filepath.Join("testdata", "kerberos", "keytab"))
	require.NoError(t, err)
	full, _, _, err := parseKeytab("client.keytab", kt, "", "KPRODUCE.TEST")
	require.NoError(t, err)
	key := string(full.Entries[0].Key.KeyValue)
	for n := 2; n < len(kt); n++ {
		_, _, _, err := parseKeytab("client.keytab", kt[:n], "", "KPRODUCE.TEST")
		if err != nil {
			assert.ErrorIs(t, err, ErrKerberosConfig)
			assert.NotContains(t, err.Error(), key[:8], "the keytab cut at %d", n)
		}
	}
	_, err = parseKrb5Conf("krb5.conf", []byte("[realms]\nX=0{}\n"))
	assert.ErrorIs(t, err, ErrKerberosConfig, "a realm opened and closed on its line")
	cc, err := os.ReadFile(filepath.Join("testdata", "kerberos", "ccache"))
	require.NoError(t, err)
	for n := range len(cc) {
		assert.NotPanics(t, func() {
			_, _, _, err := parseCCacheTGT("cc", cc[:n])
			if err != nil { // cut after its ticket-granting ticket, it still holds it
				assert.True(t, errors.Is(err, ErrKerberosConfig) || errors.Is(err, ErrKerberosNoCredentials), "the ticket cache cut at %d: %v", n, err)
			}
		})
	}
}
