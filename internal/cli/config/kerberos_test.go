package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network"
)

// kerberosFiles is a krb5.conf and two keytabs (client and other in the
// first, other in the second), enough to build a GSSAPI mechanism: no
// KDC is contacted before a session starts.
type kerberosFiles struct{ conf, keytab, keytab2, yaml string }

func newKerberosFiles(t *testing.T) kerberosFiles {
	t.Helper()
	dir := t.TempDir()
	f := kerberosFiles{conf: filepath.Join(dir, "krb5.conf"), keytab: filepath.Join(dir, "a.keytab"), keytab2: filepath.Join(dir, "b.keytab")}
	require.NoError(t, os.WriteFile(f.conf, []byte("[libdefaults]\n default_realm = EXAMPLE.COM\n[realms]\n EXAMPLE.COM = {\n  kdc = 127.0.0.1:1\n }\n"), 0o600))
	for path, names := range map[string][]string{f.keytab: {"client", "other"}, f.keytab2: {"other"}} {
		kt := keytab.New()
		for _, n := range names {
			require.NoError(t, kt.AddEntry(n, "EXAMPLE.COM", "pw-"+n, time.Now(), 1, etypeID.AES256_CTS_HMAC_SHA1_96))
		}
		out, err := os.Create(path)
		require.NoError(t, err)
		_, err = kt.Write(out)
		require.NoError(t, err)
		require.NoError(t, out.Close())
	}
	f.yaml = writeFile(t, "gssapi.yaml", "sasl-mechanism: GSSAPI\nkerberos-config: "+f.conf+"\nkerberos-keytab: "+f.keytab+"\n")
	return f
}

func kerberosEffects(t *testing.T) map[string]effect {
	f := newKerberosFiles(t)
	base := []string{"--config", f.yaml}
	sasl := []string{"-X", "security.protocol=SASL_PLAINTEXT"}
	return map[string]effect{
		"sasl.kerberos.service.name": {base: base, withProperty: append([]string{"-X", "sasl.kerberos.service.name=kafka-prod"}, sasl...),
			withFlags: []string{"--kerberos-service-name", "kafka-prod"}},
		"sasl.kerberos.principal": {base: base, withProperty: append([]string{"-X", "sasl.kerberos.principal=other@EXAMPLE.COM"}, sasl...),
			withFlags: []string{"--kerberos-principal", "other@EXAMPLE.COM"}},
		"sasl.kerberos.keytab": {base: base, withProperty: append([]string{"-X", "sasl.kerberos.keytab=" + f.keytab2}, sasl...),
			withFlags: []string{"--kerberos-keytab", f.keytab2}},
		"sasl.kerberos.min.time.before.relogin": {base: base,
			withProperty: append([]string{"-X", "sasl.kerberos.min.time.before.relogin=120000"}, sasl...),
			withFlags:    []string{"--kerberos-min-time-before-relogin", "2m"}},
		"sasl.kerberos.kinit.cmd": {base: base, withProperty: append([]string{"-X", "sasl.kerberos.kinit.cmd=kinit -k"}, sasl...), noEffect: true},
	}
}

func TestKerberosOptions(t *testing.T) {
	f := newKerberosFiles(t)
	t.Run("Java JAAS with a keytab", func(t *testing.T) {
		s, stderr := securityOptions(t, "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.kerberos.service.name=kfk",
			"-X", `sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="`+
				f.keytab+`" principal="other@EXAMPLE.COM";`, "--kerberos-config", f.conf)
		assert.Equal(t, network.MechanismGSSAPI, s.SASLMechanism, "the login module and Java's default")
		assert.Equal(t, f.keytab, s.Kerberos.KeytabFile)
		assert.Equal(t, "other@EXAMPLE.COM", s.Kerberos.Principal)
		assert.Equal(t, "kfk", s.Kerberos.ServiceName)
		require.NotNil(t, s.SASL)
		assert.Equal(t, "other@EXAMPLE.COM", s.SASL.(*network.GSSAPIMechanism).Principal())
		assert.Empty(t, stderr)
	})
	t.Run("librdkafka names; kinit.cmd warned about", func(t *testing.T) {
		s, stderr := securityOptions(t, "-X", "security.protocol=sasl_plaintext", "-X", "sasl.mechanisms=GSSAPI",
			"-X", "sasl.kerberos.keytab="+f.keytab, "-X", "sasl.kerberos.principal=client@EXAMPLE.COM",
			"-X", "sasl.kerberos.kinit.cmd=kinit -R", "--kerberos-config", f.conf)
		assert.Equal(t, "client@EXAMPLE.COM", s.SASL.(*network.GSSAPIMechanism).Principal())
		assert.Contains(t, stderr, "sasl.kerberos.kinit.cmd is not run: kproduce logs in to Kerberos itself")
	})
	t.Run("the keytab's first principal; the service principal from the host", func(t *testing.T) {
		s, _ := securityOptions(t, "--sasl-mechanism", "gssapi", "--kerberos-keytab", f.keytab, "--kerberos-config", f.conf)
		m := s.SASL.(*network.GSSAPIMechanism)
		assert.Equal(t, "client@EXAMPLE.COM", m.Principal())
		sname, realm := m.ServicePrincipal("Broker-1.Example.COM.")
		assert.Equal(t, "kafka/broker-1.example.com@EXAMPLE.COM", sname.PrincipalNameString()+"@"+realm)
	})
	t.Run("KRB5_CONFIG and KRB5CCNAME", func(t *testing.T) {
		t.Setenv("KRB5_CONFIG", "/nonexistent/krb5.conf:"+f.conf)
		t.Setenv("KRB5CCNAME", "FILE:/tmp/cc-x")
		_, _, err := parseOptions(t, "-t", "t", "--sasl-mechanism", "GSSAPI")
		require.Error(t, err)
		assert.ErrorIs(t, err, network.ErrKerberosNoCredentials)
		assert.ErrorContains(t, err, "no keytab given and no ticket cache at /tmp/cc-x: run kinit PRINCIPAL first, or give --kerberos-keytab")
		t.Setenv("KRB5CCNAME", "KEYRING:persistent:0")
		_, _, err = parseOptions(t, "-t", "t", "--sasl-mechanism", "GSSAPI")
		assert.ErrorContains(t, err, "kproduce reads FILE: caches only")
	})
	t.Run("errors before connecting", func(t *testing.T) {
		for args, want := range map[*[]string]string{
			{"--kerberos-keytab", f.keytab, "--kerberos-config", "/nonexistent"}:                            "no krb5.conf at /nonexistent",
			{"--kerberos-keytab", "/nonexistent.keytab", "--kerberos-config", f.conf}:                       "--kerberos-keytab: open /nonexistent.keytab",
			{"--kerberos-keytab", f.keytab2, "--kerberos-principal", "client", "--kerberos-config", f.conf}: "holds no key of client@EXAMPLE.COM; it holds other@EXAMPLE.COM",
		} {
			_, _, err := parseOptions(t, append([]string{"-t", "t", "--sasl-mechanism", "GSSAPI"}, *args...)...)
			assert.ErrorContains(t, err, want)
		}
	})
}
