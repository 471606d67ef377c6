package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
)

// Config is what a client TLS configuration is built from: file names
// and switches, as the user gave them.
type Config struct {
	// CAFile is the PEM file of the CAs to trust; "" means the system's.
	CAFile string
	// CertFile and KeyFile are the PEM files of the client certificate
	// and its private key (mutual TLS); both or neither.
	CertFile, KeyFile string
	// KeyPassword decrypts an encrypted KeyFile. It is a secret: it never
	// appears in an error.
	KeyPassword string
	// ServerName is the name the brokers' certificates must hold; ""
	// means the host connected to.
	ServerName string
	// InsecureSkipVerify accepts any broker certificate.
	InsecureSkipVerify bool
	// SkipHostnameVerify checks the broker's certificate chain but not
	// the name in it (Java's empty ssl.endpoint.identification.algorithm).
	SkipHostnameVerify bool
	// Keystore holds the client certificate and its private key (a JKS,
	// PKCS #12 or PEM store); instead of CertFile and KeyFile.
	Keystore Store
	// Truststore holds the CAs to trust (a JKS, PKCS #12, PEM or DER
	// file); instead of CAFile.
	Truststore Store
}

// Build reads the PEM files and returns the client TLS configuration: TLS
// 1.2 at least, as in Kafka.
func (c Config) Build() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.ServerName}
	if c.CAFile != "" {
		pool, err := loadCAFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("--tls-ca: %w", err)
		}
		cfg.RootCAs = pool
	}
	if c.Truststore.File != "" {
		pool, err := LoadTruststore(c.Truststore)
		if err != nil {
			return nil, fmt.Errorf("--tls-truststore: %w", err)
		}
		cfg.RootCAs = pool
	}
	if c.Keystore.File != "" {
		cert, err := LoadKeystore(c.Keystore)
		if err != nil {
			return nil, fmt.Errorf("--tls-keystore: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	if c.CertFile != "" {
		cert, err := loadKeyPair(c.CertFile, c.KeyFile, c.KeyPassword)
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	switch {
	case c.InsecureSkipVerify:
		cfg.InsecureSkipVerify = true
	case c.SkipHostnameVerify:
		// Go verifies the chain and the name together; skip both and
		// verify the chain alone.
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = verifyChainOnly(cfg.RootCAs)
	}
	return cfg, nil
}

// verifyChainOnly verifies the peer's certificate chain against roots (nil:
// the system's) without checking the host name.
func verifyChainOnly(roots *x509.CertPool) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("tls: the broker sent no certificate")
		}
		opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
		for _, c := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		if _, err := cs.PeerCertificates[0].Verify(opts); err != nil {
			return &tls.CertificateVerificationError{UnverifiedCertificates: cs.PeerCertificates, Err: err}
		}
		return nil
	}
}
