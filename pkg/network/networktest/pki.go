package networktest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// certValidity is how long the certificates of a PKI are valid; they are
// valid from an hour before the time they are made for.
const certValidity = 30 * 24 * time.Hour

// PKI is a throwaway certificate authority for tests and local brokers:
// a self-signed CA with an ECDSA P-256 key that signs server and client
// certificates.
type PKI struct {
	// CA is the authority's certificate.
	CA *x509.Certificate
	// CAPEM is CA in PEM.
	CAPEM []byte
	key   *ecdsa.PrivateKey
}

// Cert is a certificate signed by a PKI, with its private key.
type Cert struct {
	// CertPEM is the certificate in PEM; KeyPEM its PKCS #8 private key.
	CertPEM, KeyPEM []byte
	// TLS is the certificate and key for a tls.Config.
	TLS tls.Certificate
}

// NewPKI creates a CA called name, valid at now.
func NewPKI(name string, now time.Time) (*PKI, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("ca key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("ca certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("ca certificate: %w", err)
	}
	return &PKI{CA: ca, CAPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), key: key}, nil
}

// Pool returns a pool holding the CA.
func (p *PKI) Pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(p.CA)
	return pool
}

// Server makes a server certificate valid at now for hosts (IP addresses
// or DNS names).
func (p *PKI) Server(now time.Time, hosts ...string) (Cert, error) {
	if len(hosts) == 0 {
		return Cert{}, fmt.Errorf("server certificate: no host")
	}
	tmpl := p.template(hosts[0], now, x509.ExtKeyUsageServerAuth)
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return p.sign(tmpl)
}

// Client makes a client certificate for name, valid at now.
func (p *PKI) Client(now time.Time, name string) (Cert, error) {
	return p.sign(p.template(name, now, x509.ExtKeyUsageClientAuth))
}

// template is a leaf certificate template.
func (p *PKI) template(name string, now time.Time, usage x509.ExtKeyUsage) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(certValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
}

// sign signs tmpl with a fresh key.
func (p *PKI) sign(tmpl *x509.Certificate) (Cert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Cert{}, fmt.Errorf("key: %w", err)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.CA, &key.PublicKey, p.key)
	if err != nil {
		return Cert{}, fmt.Errorf("certificate %s: %w", tmpl.Subject.CommonName, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return Cert{}, fmt.Errorf("key: %w", err)
	}
	out := Cert{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}
	out.TLS = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	return out, nil
}
