package networktest

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CertFiles is a CA, a server certificate for 127.0.0.1 and localhost and
// a client certificate, generated for one test, with their PEM files in
// the test's temporary directory.
type CertFiles struct {
	PKI    *PKI
	Server Cert
	Client Cert

	// CA, ClientCert and ClientKey are PEM files; ClientBundle holds the
	// client certificate and its key (a Java PEM keystore).
	CA, ClientCert, ClientKey, ClientBundle string
}

// NewCertFiles generates the certificates of one test and writes their
// PEM files; it fails the test on an error.
func NewCertFiles(t testing.TB) *CertFiles {
	t.Helper()
	now := time.Now()
	pki, err := NewPKI("kproduce test CA", now)
	if err != nil {
		t.Fatal(err)
	}
	server, err := pki.Server(now, "127.0.0.1", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	client, err := pki.Client(now, "kproduce-client")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	return &CertFiles{PKI: pki, Server: server, Client: client,
		CA:           write("ca.pem", pki.CAPEM),
		ClientCert:   write("client.pem", client.CertPEM),
		ClientKey:    write("client.key", client.KeyPEM),
		ClientBundle: write("client-bundle.pem", append(append([]byte{}, client.CertPEM...), client.KeyPEM...)),
	}
}

// ServerTLS is the brokers' TLS configuration; with clientAuth the brokers
// require a client certificate signed by the CA (mutual TLS).
func (c *CertFiles) ServerTLS(clientAuth bool) *tls.Config {
	cfg := &tls.Config{Certificates: []tls.Certificate{c.Server.TLS}, MinVersion: tls.VersionTLS12}
	if clientAuth {
		cfg.ClientCAs, cfg.ClientAuth = c.PKI.Pool(), tls.RequireAndVerifyClientCert
	}
	return cfg
}

// ClientTLS is a consumer's TLS configuration, with the client
// certificate.
func (c *CertFiles) ClientTLS() *tls.Config {
	return &tls.Config{RootCAs: c.PKI.Pool(), Certificates: []tls.Certificate{c.Client.TLS}, MinVersion: tls.VersionTLS12}
}
