package main

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// testCerts is a CA, a server certificate for 127.0.0.1 and localhost and
// a client certificate, generated for one test, with their PEM files.
type testCerts struct {
	pki    *networktest.PKI
	server networktest.Cert
	client networktest.Cert

	// CA, ClientCert and ClientKey are PEM files; ClientBundle holds the
	// client certificate and its key (a Java PEM keystore).
	CA, ClientCert, ClientKey, ClientBundle string
}

// newTestCerts generates the certificates of one test into its temporary
// directory.
func newTestCerts(t testing.TB) *testCerts {
	t.Helper()
	now := time.Now()
	pki, err := networktest.NewPKI("kproduce test CA", now)
	require.NoError(t, err)
	server, err := pki.Server(now, "127.0.0.1", "localhost")
	require.NoError(t, err)
	client, err := pki.Client(now, "kproduce-client")
	require.NoError(t, err)
	dir := t.TempDir()
	c := &testCerts{pki: pki, server: server, client: client,
		CA:           writeTestFile(t, dir, "ca.pem", pki.CAPEM),
		ClientCert:   writeTestFile(t, dir, "client.pem", client.CertPEM),
		ClientKey:    writeTestFile(t, dir, "client.key", client.KeyPEM),
		ClientBundle: writeTestFile(t, dir, "client-bundle.pem", append(append([]byte{}, client.CertPEM...), client.KeyPEM...)),
	}
	return c
}

// serverTLS is the brokers' TLS configuration; with clientAuth the brokers
// require a client certificate signed by the CA (mutual TLS).
func (c *testCerts) serverTLS(clientAuth bool) *tls.Config {
	cfg := &tls.Config{Certificates: []tls.Certificate{c.server.TLS}, MinVersion: tls.VersionTLS12}
	if clientAuth {
		cfg.ClientCAs, cfg.ClientAuth = c.pki.Pool(), tls.RequireAndVerifyClientCert
	}
	return cfg
}

// clientTLS is a franz-go consumer's TLS configuration, with the client
// certificate.
func (c *testCerts) clientTLS() *tls.Config {
	return &tls.Config{RootCAs: c.pki.Pool(), Certificates: []tls.Certificate{c.client.TLS}, MinVersion: tls.VersionTLS12}
}

// writeTestFile writes data to dir/name and returns the path.
func writeTestFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}
