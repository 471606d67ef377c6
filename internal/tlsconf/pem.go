package tlsconf

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"github.com/kproduce/kproduce/internal/fsutil"
)

// maxPEMFileBytes bounds the size of a certificate or key file.
const maxPEMFileBytes = 4 << 20

// ErrNotPEM is wrapped by the error for a certificate or key file that is
// not PEM.
var ErrNotPEM = errors.New("not a PEM file")

// loadCAFile reads a PEM file of CA certificates into a pool.
func loadCAFile(path string) (*x509.CertPool, error) {
	data, err := readPEMFile(path, "truststore")
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	n := 0
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: certificate %d: %w", path, n+1, err)
		}
		pool.AddCert(cert)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: %w: no CERTIFICATE block found", path, ErrNotPEM)
	}
	return pool, nil
}

// loadKeyPair reads the client certificate (with its chain) and its
// private key, decrypting the key with password when it is encrypted.
func loadKeyPair(certFile, keyFile, password string) (tls.Certificate, error) {
	certPEM, err := readPEMFile(certFile, "keystore")
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("--tls-cert: %w", err)
	}
	keyPEM, err := readPEMFile(keyFile, "keystore")
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("--tls-key: %w", err)
	}
	keyPEM, err = decryptKeyPEM(keyFile, keyPEM, password)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("--tls-key: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("--tls-cert %s and --tls-key %s: %w", certFile, keyFile, err)
	}
	return cert, nil
}

// decryptKeyPEM returns the first private key block of data as an
// unencrypted PEM block: PKCS #8 "ENCRYPTED PRIVATE KEY" (PBES2) and the
// legacy OpenSSL "Proc-Type: 4,ENCRYPTED" blocks are decrypted with
// password.
func decryptKeyPEM(path string, data []byte, password string) ([]byte, error) {
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return data, nil // tls.X509KeyPair says what is missing
		}
		switch {
		case block.Type == "ENCRYPTED PRIVATE KEY":
			if password == "" {
				return nil, fmt.Errorf("%s: the private key is encrypted: give its password (--tls-key-password, KPRODUCE_TLS_KEY_PASSWORD or ssl.key.password)", path)
			}
			der, err := decryptPKCS8(block.Bytes, []byte(password))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
		case block.Type == "PRIVATE KEY" || block.Type == "RSA PRIVATE KEY" || block.Type == "EC PRIVATE KEY":
			if !x509.IsEncryptedPEMBlock(block) { //nolint:staticcheck // legacy encrypted keys are still met
				return pem.EncodeToMemory(block), nil
			}
			if password == "" {
				return nil, fmt.Errorf("%s: the private key is encrypted: give its password (--tls-key-password, KPRODUCE_TLS_KEY_PASSWORD or ssl.key.password)", path)
			}
			der, err := x509.DecryptPEMBlock(block, []byte(password)) //nolint:staticcheck // see above
			if err != nil {
				return nil, fmt.Errorf("%s: cannot decrypt the private key (wrong password?)", path)
			}
			return pem.EncodeToMemory(&pem.Block{Type: block.Type, Bytes: der}), nil
		}
	}
}

// readPEMFile reads a PEM file; a Java keystore, PKCS #12 or DER file gets
// an error that says how to convert it. kind is "truststore" or
// "keystore", for the conversion commands.
func readPEMFile(path, kind string) ([]byte, error) {
	data, err := fsutil.ReadFile(path, maxPEMFileBytes)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(data, []byte("-----BEGIN ")) {
		return data, nil
	}
	if format := binaryStoreFormat(data); format != "" {
		return nil, fmt.Errorf("%s: %w: it looks like a %s; this option reads PEM only. %s", path, ErrNotPEM, format, storeHint(kind, format))
	}
	return nil, fmt.Errorf("%s: %w (no -----BEGIN line)", path, ErrNotPEM)
}

// The binary formats readPEMFile recognises.
const (
	FormatJKS    = "Java keystore (JKS)"
	FormatJCEKS  = "Java keystore (JCEKS)"
	FormatPKCS12 = "PKCS #12 keystore"
	FormatDER    = "DER certificate"
)

// binaryStoreFormat names the binary format of data, or "".
func binaryStoreFormat(data []byte) string {
	if len(data) < 4 {
		return ""
	}
	switch binary.BigEndian.Uint32(data) {
	case 0xFEEDFEED:
		return FormatJKS
	case 0xCECECECE:
		return FormatJCEKS
	}
	if data[0] != 0x30 { // not an ASN.1 SEQUENCE
		return ""
	}
	if _, err := x509.ParseCertificate(data); err == nil {
		return FormatDER
	}
	return FormatPKCS12
}

// storeHint tells how to use a binary file given where PEM is expected:
// as a store, or converted.
func storeHint(kind, format string) string {
	switch {
	case format == FormatJCEKS || format == FormatDER && kind == "keystore":
	case kind == "truststore":
		return "Give it as --tls-truststore FILE (ssl.truststore.location) with its password, or convert it. " + ConvertHint(kind, format)
	default:
		return "Give it as --tls-keystore FILE (ssl.keystore.location) with its password, or convert it. " + ConvertHint(kind, format)
	}
	return ConvertHint(kind, format)
}

// ConvertHint tells how to turn a file of the given format into the PEM
// files kproduce reads; kind is "truststore" or "keystore".
func ConvertHint(kind, format string) string {
	if format == FormatDER {
		return "Convert it with: openssl x509 -inform der -in FILE -out ca.pem"
	}
	var b strings.Builder
	b.WriteString("Convert it with:")
	p12 := "STORE.p12"
	if format != FormatPKCS12 {
		p12 = "store.p12"
		b.WriteString(" keytool -importkeystore -srckeystore STORE.jks -destkeystore store.p12 -deststoretype PKCS12;")
	}
	if kind == "truststore" {
		fmt.Fprintf(&b, " openssl pkcs12 -in %s -nokeys -out ca.pem"+
			" (then --tls-ca ca.pem, or ssl.truststore.location=ca.pem with ssl.truststore.type=PEM)", p12)
		return b.String()
	}
	fmt.Fprintf(&b, " openssl pkcs12 -in %s -nokeys -out client.pem; openssl pkcs12 -in %s -nocerts -nodes -out client.key"+
		" (then --tls-cert client.pem --tls-key client.key, or ssl.keystore.location=client.pem after appending client.key to it,"+
		" with ssl.keystore.type=PEM)", p12, p12)
	return b.String()
}
