package tlsconf

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"fmt"
	"hash"
)

// maxPBKDF2Iterations bounds the key derivation work a key file may ask
// for, so that a corrupt file cannot hang the run.
const maxPBKDF2Iterations = 10_000_000

// The object identifiers of PKCS #5 v2 (RFC 8018) that decryptPKCS8
// understands.
var (
	oidPBES2      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidHMACSHA1   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACSHA224 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 8}
	oidHMACSHA256 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidHMACSHA384 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 10}
	oidHMACSHA512 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}
	oidAES128CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
	oidDESEDE3CBC = asn1.ObjectIdentifier{1, 2, 840, 113549, 3, 7}
)

// encryptedPrivateKeyInfo is PKCS #8's EncryptedPrivateKeyInfo.
type encryptedPrivateKeyInfo struct {
	Algorithm     algorithmIdentifier
	EncryptedData []byte
}

// algorithmIdentifier is X.509's AlgorithmIdentifier.
type algorithmIdentifier struct {
	Algorithm  asn1.ObjectIdentifier
	Parameters asn1.RawValue `asn1:"optional"`
}

// pbes2Params are PBES2's parameters.
type pbes2Params struct {
	KeyDerivationFunc algorithmIdentifier
	EncryptionScheme  algorithmIdentifier
}

// pbkdf2Params are PBKDF2's parameters; the PRF defaults to HMAC-SHA1.
type pbkdf2Params struct {
	Salt           []byte
	IterationCount int
	KeyLength      int                 `asn1:"optional"`
	PRF            algorithmIdentifier `asn1:"optional"`
}

// errKeyPassword is the error for a key that does not decrypt.
var errKeyPassword = errors.New("cannot decrypt the private key (wrong password?)")

// decryptPKCS8 decrypts a PKCS #8 EncryptedPrivateKeyInfo protected with
// PBES2 (PBKDF2 with HMAC-SHA1/224/256/384/512, and AES-CBC or 3DES-CBC),
// what openssl and Java write today, and returns the PKCS #8 private key.
func decryptPKCS8(der, password []byte) ([]byte, error) {
	var info encryptedPrivateKeyInfo
	if rest, err := asn1.Unmarshal(der, &info); err != nil || len(rest) > 0 {
		return nil, errors.New("malformed encrypted private key")
	}
	if !info.Algorithm.Algorithm.Equal(oidPBES2) {
		return nil, fmt.Errorf("private key encrypted with %v: only PBES2 is supported"+
			" (re-encrypt it: openssl pkcs8 -topk8 -v2 aes-256-cbc -in KEY -out key.pem)", info.Algorithm.Algorithm)
	}
	var params pbes2Params
	if _, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &params); err != nil {
		return nil, errors.New("malformed PBES2 parameters")
	}
	block, iv, keyLen, err := pbes2Cipher(params.EncryptionScheme)
	if err != nil {
		return nil, err
	}
	key, err := pbkdf2Key(params.KeyDerivationFunc, password, keyLen)
	if err != nil {
		return nil, err
	}
	c, err := block(key)
	if err != nil {
		return nil, fmt.Errorf("cipher: %w", err)
	}
	plain, err := cbcDecrypt(c, iv, info.EncryptedData)
	if err != nil {
		return nil, err
	}
	if _, err := x509.ParsePKCS8PrivateKey(plain); err != nil {
		return nil, errKeyPassword
	}
	return plain, nil
}

// pbes2Cipher returns the block cipher constructor, IV and key length of
// an encryption scheme.
func pbes2Cipher(alg algorithmIdentifier) (func([]byte) (cipher.Block, error), []byte, int, error) {
	var iv []byte
	if _, err := asn1.Unmarshal(alg.Parameters.FullBytes, &iv); err != nil {
		return nil, nil, 0, errors.New("malformed cipher parameters")
	}
	newBlock, keyLen := aes.NewCipher, 0
	switch {
	case alg.Algorithm.Equal(oidAES128CBC):
		keyLen = 16
	case alg.Algorithm.Equal(oidAES192CBC):
		keyLen = 24
	case alg.Algorithm.Equal(oidAES256CBC):
		keyLen = 32
	case alg.Algorithm.Equal(oidDESEDE3CBC):
		newBlock, keyLen = des.NewTripleDESCipher, 24
	default:
		return nil, nil, 0, fmt.Errorf("private key encrypted with cipher %v: want AES-CBC or 3DES-CBC", alg.Algorithm)
	}
	return newBlock, iv, keyLen, nil
}

// pbkdf2Key derives the key of a PBKDF2 key derivation function.
func pbkdf2Key(alg algorithmIdentifier, password []byte, keyLen int) ([]byte, error) {
	if !alg.Algorithm.Equal(oidPBKDF2) {
		return nil, fmt.Errorf("private key key derivation %v: want PBKDF2", alg.Algorithm)
	}
	var p pbkdf2Params
	if _, err := asn1.Unmarshal(alg.Parameters.FullBytes, &p); err != nil {
		return nil, errors.New("malformed PBKDF2 parameters")
	}
	if p.IterationCount < 1 || p.IterationCount > maxPBKDF2Iterations {
		return nil, fmt.Errorf("PBKDF2 iteration count %d out of range 1-%d", p.IterationCount, maxPBKDF2Iterations)
	}
	if p.KeyLength != 0 && p.KeyLength != keyLen {
		return nil, fmt.Errorf("PBKDF2 key length %d does not fit the cipher (%d)", p.KeyLength, keyLen)
	}
	h, err := prfHash(p.PRF.Algorithm)
	if err != nil {
		return nil, err
	}
	return pbkdf2.Key(h, string(password), p.Salt, p.IterationCount, keyLen)
}

// prfHash returns the hash of a PBKDF2 pseudo-random function; an absent
// one means HMAC-SHA1.
func prfHash(oid asn1.ObjectIdentifier) (func() hash.Hash, error) {
	switch {
	case len(oid) == 0 || oid.Equal(oidHMACSHA1):
		return sha1.New, nil
	case oid.Equal(oidHMACSHA224):
		return sha256.New224, nil
	case oid.Equal(oidHMACSHA256):
		return sha256.New, nil
	case oid.Equal(oidHMACSHA384):
		return sha512.New384, nil
	case oid.Equal(oidHMACSHA512):
		return sha512.New, nil
	}
	return nil, fmt.Errorf("PBKDF2 with PRF %v: want HMAC-SHA1 or HMAC-SHA2", oid)
}

// cbcDecrypt decrypts CBC data and removes its PKCS #7 padding. A wrong
// password shows as bad padding (or, rarely, as a key that does not
// parse).
func cbcDecrypt(c cipher.Block, iv, data []byte) ([]byte, error) {
	bs := c.BlockSize()
	if len(iv) != bs || len(data) == 0 || len(data)%bs != 0 {
		return nil, errors.New("malformed encrypted private key")
	}
	out := make([]byte, len(data))
	cipher.NewCBCDecrypter(c, iv).CryptBlocks(out, data)
	pad := int(out[len(out)-1])
	if pad == 0 || pad > bs {
		return nil, errKeyPassword
	}
	for _, b := range out[len(out)-pad:] {
		if int(b) != pad {
			return nil, errKeyPassword
		}
	}
	return out[:len(out)-pad], nil
}
