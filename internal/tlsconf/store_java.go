package tlsconf

import (
	"bytes"
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"
)

// readJKS opens a Java key store. Its password is required: Java checks
// a trust store's integrity only when given one, but a store read without
// any check could be anything.
func readJKS(s Store, data []byte, kind string) (*storeContents, error) {
	if s.Password == "" {
		return nil, passwordErrorf("%s: a JKS %s needs its password (%s)", s.File, kind, passwordHint(kind))
	}
	if !jksPasswordMatches(data, s.Password) {
		return nil, fmt.Errorf("%s: %w for the JKS %s (%s)", s.File, ErrStorePassword, kind, passwordHint(kind))
	}
	if err := checkJKSLengths(data); err != nil {
		return nil, fmt.Errorf("%s: malformed JKS %s: %w", s.File, kind, err)
	}
	ks := keystore.New(keystore.WithOrderedAliases())
	if err := ks.Load(bytes.NewReader(data), []byte(s.Password)); err != nil {
		return nil, fmt.Errorf("%s: malformed JKS %s: %w", s.File, kind, err)
	}
	c := &storeContents{}
	for _, alias := range ks.Aliases() {
		switch {
		case ks.IsTrustedCertificateEntry(alias):
			e, err := ks.GetTrustedCertificateEntry(alias)
			if err != nil {
				return nil, fmt.Errorf("%s: entry %s: %w", s.File, alias, err)
			}
			cert, err := x509.ParseCertificate(e.Certificate.Content)
			if err != nil {
				return nil, fmt.Errorf("%s: certificate %s: %w", s.File, alias, err)
			}
			c.trusted = append(c.trusted, cert)
		case ks.IsPrivateKeyEntry(alias):
			e, err := jksKeyEntry(ks, s, alias, kind)
			if err != nil {
				return nil, err
			}
			c.keys = append(c.keys, e)
		}
	}
	return c, nil
}

// jksKeyEntry decrypts the private key entry alias. In a trust store only
// its certificates are needed: the key is left encrypted.
func jksKeyEntry(ks keystore.KeyStore, s Store, alias, kind string) (keyEntry, error) {
	e := keyEntry{alias: alias}
	if kind == "trust store" {
		chain, err := ks.GetPrivateKeyEntryCertificateChain(alias)
		if err != nil {
			return e, fmt.Errorf("%s: entry %s: %w", s.File, alias, err)
		}
		for _, c := range chain {
			e.chain = append(e.chain, c.Content)
		}
		return e, nil
	}
	entry, err := ks.GetPrivateKeyEntry(alias, []byte(firstNonEmpty(s.KeyPassword, s.Password)))
	if err != nil {
		return e, passwordErrorf("%s: cannot decrypt the private key %s (wrong key password? --tls-key-password, ssl.key.password;"+
			" without one the store's password is used)", s.File, alias)
	}
	key, err := parsePrivateKey(entry.PrivateKey)
	if err != nil {
		return e, fmt.Errorf("%s: private key %s: %w", s.File, alias, err)
	}
	e.key = key
	for _, c := range entry.CertificateChain {
		e.chain = append(e.chain, c.Content)
	}
	return e, nil
}

// readPKCS12 opens a PKCS #12 store. An empty password opens a store made
// without one.
func readPKCS12(s Store, data []byte, kind string) (*storeContents, error) {
	var total int64
	if err := checkPKCS12Iterations(data, 0, &total); err != nil {
		return nil, fmt.Errorf("%s: the PKCS #12 %s asks for %w", s.File, kind, err)
	}
	blocks, err := pkcs12.ToPEM(data, s.Password) //nolint:staticcheck // the only call that keeps every bag's alias
	switch {
	case errors.Is(err, pkcs12.ErrIncorrectPassword) || errors.Is(err, pkcs12.ErrDecryption):
		if s.Password == "" {
			return nil, passwordErrorf("%s: the PKCS #12 %s needs its password (%s)", s.File, kind, passwordHint(kind))
		}
		return nil, fmt.Errorf("%s: %w for the PKCS #12 %s (%s)", s.File, ErrStorePassword, kind, passwordHint(kind))
	case err != nil:
		// Bags ToPEM does not convert (Java's trusted certificate
		// attribute): the trust store and one-key decoders read them.
		return readPKCS12Fallback(s, data, kind, err)
	}
	return pkcs12Contents(s, blocks)
}

// pkcs12Contents pairs the key and certificate bags of a PKCS #12 store
// by their local key id; the other certificates are trusted ones.
func pkcs12Contents(s Store, blocks []*pem.Block) (*storeContents, error) {
	c := &storeContents{}
	byID := map[string]int{}
	for _, b := range blocks {
		if b.Type != "PRIVATE KEY" {
			continue
		}
		key, err := parsePrivateKey(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: private key %s: %w", s.File, b.Headers["friendlyName"], err)
		}
		byID[b.Headers["localKeyId"]] = len(c.keys)
		c.keys = append(c.keys, keyEntry{alias: b.Headers["friendlyName"], key: key})
	}
	var others []*x509.Certificate
	for _, b := range blocks {
		if b.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: certificate %s: %w", s.File, b.Headers["friendlyName"], err)
		}
		if i, ok := byID[b.Headers["localKeyId"]]; ok && b.Headers["localKeyId"] != "" {
			c.keys[i].chain = append([][]byte{cert.Raw}, c.keys[i].chain...)
			continue
		}
		others = append(others, cert)
	}
	for i := range c.keys {
		c.keys[i].chain = append(c.keys[i].chain, chainFor(c.keys[i].chain, others)...)
	}
	c.trusted = others
	return c, nil
}

// chainFor returns the certificates of pool that complete chain (the
// issuers up from its last certificate), as PKCS #12 stores keep a key's
// CA certificates in bags of their own.
func chainFor(chain [][]byte, pool []*x509.Certificate) [][]byte {
	if len(chain) == 0 {
		return nil
	}
	var out [][]byte
	last, err := x509.ParseCertificate(chain[len(chain)-1])
	for err == nil && len(out) < len(pool) && !bytes.Equal(last.RawIssuer, last.RawSubject) {
		var next *x509.Certificate
		for _, p := range pool {
			if bytes.Equal(p.RawSubject, last.RawIssuer) && last.CheckSignatureFrom(p) == nil {
				next = p
				break
			}
		}
		if next == nil {
			break
		}
		out = append(out, next.Raw)
		last = next
	}
	return out
}

// readPKCS12Fallback reads a store ToPEM cannot: a Java trust store, or
// one key and its chain.
func readPKCS12Fallback(s Store, data []byte, kind string, toPEMErr error) (*storeContents, error) {
	if certs, err := pkcs12.DecodeTrustStore(data, s.Password); err == nil {
		return &storeContents{trusted: certs}, nil
	}
	key, cert, cas, err := pkcs12.DecodeChain(data, s.Password)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the PKCS #12 %s: %w", s.File, kind, toPEMErr)
	}
	chain := [][]byte{cert.Raw}
	for _, ca := range cas {
		chain = append(chain, ca.Raw)
	}
	return &storeContents{keys: []keyEntry{{key: key, chain: chain}}, trusted: cas}, nil
}

// checkKeyMatches checks that key is the private key of cert.
func checkKeyMatches(cert *x509.Certificate, key any) error {
	signer, ok := key.(crypto.Signer)
	if !ok {
		return fmt.Errorf("unsupported private key type %T", key)
	}
	pub, ok := cert.PublicKey.(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(signer.Public()) {
		return errors.New("the private key does not match the certificate's public key")
	}
	return nil
}
