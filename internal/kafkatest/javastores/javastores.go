// Package javastores makes Java key stores and trust stores for tests
// with the tools users make them with: openssl pkcs12 and keytool
// (Debian's openjdk-17-jre-headless).
package javastores

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// Password opens every store Make writes (and decrypts their keys).
const Password = "store-pass-9d2e"

// ClientAlias is the alias of the client's key in every key store;
// OtherAlias that of the second key of the two-key stores, a self-signed
// key no broker trusts, first in alias order.
const (
	ClientAlias = "kproduce-client"
	OtherAlias  = "aaa-other"
)

// Stores are the files Make writes.
type Stores struct {
	// P12Keystore and JKSKeystore hold the client's key and its chain up
	// to the CA; P12Truststore and JKSTruststore the CA as a trusted
	// certificate.
	P12Keystore, JKSKeystore, P12Truststore, JKSTruststore string
	// TwoKeysJKS and TwoKeysP12 hold the client's key and OtherAlias.
	TwoKeysJKS, TwoKeysP12 string
	// P12NoExt is P12Keystore under a name that says nothing of its type.
	P12NoExt string
}

// Make writes the stores of certs' client certificate and CA into a
// temporary directory of t. A missing tool fails or skips the test (see
// kafkatest.RequireTool).
func Make(t testing.TB, certs *networktest.CertFiles) *Stores {
	t.Helper()
	openssl := kafkatest.RequireTool(t, "openssl", "openssl")
	keytool := kafkatest.RequireTool(t, "keytool", "openjdk-17-jre-headless")
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	run := func(name string, args ...string) {
		t.Helper()
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	s := &Stores{P12Keystore: path("client.p12"), JKSKeystore: path("client.jks"), P12Truststore: path("trust.p12"),
		JKSTruststore: path("trust.jks"), TwoKeysJKS: path("two.jks"), TwoKeysP12: path("two.p12"), P12NoExt: path("client-store")}
	pw := "pass:" + Password
	run(openssl, "pkcs12", "-export", "-in", certs.ClientCert, "-inkey", certs.ClientKey, "-certfile", certs.CA,
		"-name", ClientAlias, "-passout", pw, "-out", s.P12Keystore)
	run(openssl, "pkcs12", "-export", "-in", certs.ClientCert, "-inkey", certs.ClientKey, "-certfile", certs.CA,
		"-name", ClientAlias, "-passout", pw, "-out", s.P12NoExt)
	run(keytool, "-importkeystore", "-noprompt", "-srckeystore", s.P12Keystore, "-srcstoretype", "PKCS12", "-srcstorepass", Password,
		"-destkeystore", s.JKSKeystore, "-deststoretype", "JKS", "-deststorepass", Password)
	for store, typ := range map[string]string{s.JKSTruststore: "JKS", s.P12Truststore: "PKCS12"} {
		run(keytool, "-importcert", "-noprompt", "-alias", "kproduce-ca", "-file", certs.CA, "-keystore", store,
			"-storetype", typ, "-storepass", Password)
	}
	run(keytool, "-importkeystore", "-noprompt", "-srckeystore", s.P12Keystore, "-srcstoretype", "PKCS12", "-srcstorepass", Password,
		"-destkeystore", s.TwoKeysJKS, "-deststoretype", "JKS", "-deststorepass", Password)
	run(keytool, "-genkeypair", "-alias", OtherAlias, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=other",
		"-validity", "30", "-keystore", s.TwoKeysJKS, "-storetype", "JKS", "-storepass", Password, "-keypass", Password)
	run(keytool, "-importkeystore", "-noprompt", "-srckeystore", s.TwoKeysJKS, "-srcstoretype", "JKS", "-srcstorepass", Password,
		"-destkeystore", s.TwoKeysP12, "-deststoretype", "PKCS12", "-deststorepass", Password)
	return s
}
