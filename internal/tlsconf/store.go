package tlsconf

import (
	"bytes"
	"crypto/sha1" //nolint:gosec // the JKS integrity check is SHA-1 by definition
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"

	"github.com/kproduce/kproduce/internal/fsutil"
)

// ErrStorePassword is wrapped by the error for a key store or trust store
// whose password is wrong or missing. The error names the file, never the
// password.
var ErrStorePassword = errors.New("wrong store password")

// passwordError is an error about a missing password or one that
// decrypts nothing: it matches ErrStorePassword (errors.Is) without
// repeating its text after its own.
type passwordError struct{ msg string }

func (e *passwordError) Error() string        { return e.msg }
func (e *passwordError) Is(target error) bool { return target == ErrStorePassword }

// passwordErrorf formats a passwordError.
func passwordErrorf(format string, args ...any) error {
	return &passwordError{msg: fmt.Sprintf(format, args...)}
}

// ErrNoPrivateKey is wrapped by the error for a key store that holds no
// private key (or none under the alias asked for).
var ErrNoPrivateKey = errors.New("no private key")

// Store is a key store or trust store file as the user gave it.
type Store struct {
	// File is the store's path. Its content decides its format: PEM, a
	// Java key store (JKS) or PKCS #12, whatever its name or declared type.
	File string
	// Password opens the store (JKS: checks its integrity; PKCS #12:
	// decrypts it). It is a secret.
	Password string
	// KeyPassword decrypts the private key when it differs from the
	// store's password (Java's ssl.key.password); "" means Password. It
	// is a secret.
	KeyPassword string
	// Alias chooses the private key of a key store that holds several;
	// "" means the only one, or the first (JKS: in alias order; PKCS #12:
	// in file order). Aliases match without regard to case, as in Java.
	Alias string
}

// keyEntry is one private key of a store with its certificate chain.
type keyEntry struct {
	alias string
	key   any
	chain [][]byte // DER, the leaf first
}

// storeContents is what a store holds.
type storeContents struct {
	keys    []keyEntry
	trusted []*x509.Certificate
	// chainCerts are certificates of a PEM store that come with its key.
	chainCerts []*x509.Certificate
}

// storeFormatOf names the format of a store's data: FormatPEM, FormatJKS,
// FormatJCEKS, FormatPKCS12, FormatDER or "".
func storeFormatOf(data []byte) string {
	if bytes.Contains(data, []byte("-----BEGIN ")) {
		return FormatPEM
	}
	return binaryStoreFormat(data)
}

// FormatPEM names PEM files among the formats a store may have.
const FormatPEM = "PEM"

// readStore reads and opens a store of the given kind ("key store" or
// "trust store").
func readStore(s Store, kind string) (*storeContents, error) {
	data, err := fsutil.ReadFile(s.File, maxPEMFileBytes)
	if err != nil {
		return nil, err
	}
	return openStore(s, data, kind)
}

// openStore opens a store's data.
func openStore(s Store, data []byte, kind string) (*storeContents, error) {
	switch format := storeFormatOf(data); format {
	case FormatPEM:
		return readPEMStore(s, data)
	case FormatJKS:
		return readJKS(s, data, kind)
	case FormatPKCS12:
		return readPKCS12(s, data, kind)
	case FormatDER:
		if kind == "trust store" {
			cert, _ := x509.ParseCertificate(data)
			return &storeContents{trusted: []*x509.Certificate{cert}}, nil
		}
		return nil, fmt.Errorf("%s: a DER certificate is not a key store: it holds no private key: %w", s.File, ErrNoPrivateKey)
	case FormatJCEKS:
		return nil, fmt.Errorf("%s: a %s is not supported; convert it: keytool -importkeystore -srckeystore %s -srcstoretype JCEKS"+
			" -destkeystore store.p12 -deststoretype PKCS12", s.File, format, s.File)
	}
	return nil, fmt.Errorf("%s: not a key store: neither PEM, JKS nor PKCS #12", s.File)
}

// readPEMStore reads the certificates and the private key of a PEM store
// (Java's PEM type: the key and its certificate chain in one file, or CA
// certificates).
func readPEMStore(s Store, data []byte) (*storeContents, error) {
	c := &storeContents{}
	var certs []*x509.Certificate
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type == "CERTIFICATE" {
			cert, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: certificate %d: %w", s.File, len(certs)+1, err)
			}
			certs = append(certs, cert)
		}
	}
	if !strings.Contains(string(data), "PRIVATE KEY-----") {
		c.trusted = certs
		return c, nil
	}
	keyPEM, err := decryptKeyPEM(s.File, data, firstNonEmpty(s.KeyPassword, s.Password))
	if err != nil {
		return nil, err
	}
	var chain [][]byte
	for _, cert := range certs {
		chain = append(chain, cert.Raw)
	}
	block, _ := pem.Decode(keyPEM)
	if block == nil || !strings.HasSuffix(block.Type, "PRIVATE KEY") {
		return nil, fmt.Errorf("%s: no PEM private key block in it (a truncated file? a key block ends with -----END PRIVATE KEY-----)", s.File)
	}
	key, err := parsePrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.File, err)
	}
	c.keys = []keyEntry{{key: key, chain: chain}}
	return c, nil
}

// parsePrivateKey parses a PKCS #8, PKCS #1 or SEC 1 private key.
func parsePrivateKey(der []byte) (any, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil {
		return k, nil
	}
	return nil, errors.New("the private key is neither PKCS #8, PKCS #1 nor SEC 1")
}

// jksPasswordMatches checks a JKS file's integrity digest, its last
// sha1.Size bytes.
func jksPasswordMatches(data []byte, password string) bool {
	if len(data) < sha1.Size {
		return false
	}
	return bytes.Equal(jksDigest(data[:len(data)-sha1.Size], password), data[len(data)-sha1.Size:])
}

// jksDigest is the integrity digest of a JKS store's body (all but the
// digest): SHA-1 over the password (UTF-16BE), "Mighty Aphrodite" and the
// body, as Java computes it.
func jksDigest(body []byte, password string) []byte {
	h := sha1.New() //nolint:gosec // see the import
	for _, u := range utf16.Encode([]rune(password)) {
		h.Write([]byte{byte(u >> 8), byte(u)})
	}
	h.Write([]byte("Mighty Aphrodite"))
	h.Write(body)
	return h.Sum(nil)
}

// passwordHint names the options that give a store's password.
func passwordHint(kind string) string {
	if kind == "trust store" {
		return "--tls-truststore-password, KPRODUCE_TLS_TRUSTSTORE_PASSWORD or ssl.truststore.password"
	}
	return "--tls-keystore-password, KPRODUCE_TLS_KEYSTORE_PASSWORD or ssl.keystore.password"
}

// LoadKeystore reads a key store and returns the client certificate of
// the private key the store's alias chooses.
func LoadKeystore(s Store) (tls.Certificate, error) {
	c, err := readStore(s, "key store")
	if err != nil {
		return tls.Certificate{}, err
	}
	e, err := c.chooseKey(s)
	if err != nil {
		return tls.Certificate{}, err
	}
	if len(e.chain) == 0 {
		return tls.Certificate{}, fmt.Errorf("%s: the private key%s has no certificate", s.File, aliasSuffix(e.alias))
	}
	cert := tls.Certificate{Certificate: e.chain, PrivateKey: e.key}
	leaf, err := x509.ParseCertificate(e.chain[0])
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("%s: certificate%s: %w", s.File, aliasSuffix(e.alias), err)
	}
	cert.Leaf = leaf
	if err := checkKeyMatches(leaf, e.key); err != nil {
		return tls.Certificate{}, fmt.Errorf("%s%s: %w", s.File, aliasSuffix(e.alias), err)
	}
	return cert, nil
}

// LoadTruststore reads a trust store into a certificate pool: its
// trusted certificates (a JKS or PKCS #12 store), or every certificate of
// a PEM or DER file.
func LoadTruststore(s Store) (*x509.CertPool, error) {
	c, err := readStore(s, "trust store")
	if err != nil {
		return nil, err
	}
	certs := c.trusted
	if len(certs) == 0 {
		// A key store given as a trust store: trust its chains, as Java
		// does with the certificates of its key entries.
		for _, e := range c.keys {
			for _, der := range e.chain {
				if cert, err := x509.ParseCertificate(der); err == nil {
					certs = append(certs, cert)
				}
			}
		}
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("%s: the trust store holds no certificate", s.File)
	}
	pool := x509.NewCertPool()
	for _, cert := range certs {
		pool.AddCert(cert)
	}
	return pool, nil
}

// chooseKey returns the private key the alias names, else the first.
func (c *storeContents) chooseKey(s Store) (keyEntry, error) {
	if len(c.keys) == 0 {
		what := "it holds no entries"
		if n := len(c.trusted); n > 0 {
			what = fmt.Sprintf("it holds %d trusted certificate(s) only: is it a trust store? (--tls-truststore, ssl.truststore.location)", n)
		}
		return keyEntry{}, fmt.Errorf("%s: %w in the key store: %s", s.File, ErrNoPrivateKey, what)
	}
	if s.Alias == "" {
		return c.keys[0], nil
	}
	var aliases []string
	for _, e := range c.keys {
		if strings.EqualFold(e.alias, s.Alias) {
			return e, nil
		}
		aliases = append(aliases, e.alias)
	}
	return keyEntry{}, fmt.Errorf("%s: %w under alias %q (--tls-keystore-alias); its private keys' aliases: %s",
		s.File, ErrNoPrivateKey, s.Alias, strings.Join(aliases, ", "))
}

// aliasSuffix is " (alias A)" for an entry with an alias.
func aliasSuffix(alias string) string {
	if alias == "" {
		return ""
	}
	return fmt.Sprintf(" (alias %s)", alias)
}

// firstNonEmpty returns the first of s that is not empty.
func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
