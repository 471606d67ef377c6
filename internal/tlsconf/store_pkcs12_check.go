package tlsconf

import (
	"encoding/asn1"
	"fmt"
	"math/big"
)

// maxPKCS12Iterations bounds the sum of a PKCS #12 store's iteration
// counts: each bag may have its own.
const maxPKCS12Iterations = 4 * maxPBKDF2Iterations

// maxPKCS12Depth bounds how deep checkPKCS12Iterations looks into a
// store's nested structures and the DER its octet strings hold.
const maxPKCS12Depth = 32

// checkPKCS12Iterations fails on a PKCS #12 store whose MAC or
// encryption asks for more than maxPBKDF2Iterations rounds of key
// derivation, or more than maxPKCS12Iterations in all (total sums them):
// the decoder would run them all (2^31 rounds of the MAC's
// take minutes of CPU, deaf to an interrupt). It looks at every sequence
// of the store, and of the DER its octet strings hold, shaped as their
// parameters are: PBES1 and PBKDF2 parameters (a salt, then the count)
// and the MAC data (a digest, a salt, then the count). What the store's
// encrypted parts hold is seen only once decrypted, by the decoder.
func checkPKCS12Iterations(der []byte, depth int, total *int64) error {
	if depth > maxPKCS12Depth {
		return nil
	}
	for len(der) > 0 {
		var v asn1.RawValue
		rest, err := asn1.Unmarshal(der, &v)
		if err != nil {
			return nil // not DER: the decoder tells
		}
		der = rest
		switch {
		case v.IsCompound:
			if err := checkIterationCount(v.Bytes, total); err != nil {
				return err
			}
			if err := checkPKCS12Iterations(v.Bytes, depth+1, total); err != nil {
				return err
			}
		case v.Class == asn1.ClassUniversal && v.Tag == asn1.TagOctetString:
			if err := checkPKCS12Iterations(v.Bytes, depth+1, total); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkIterationCount checks the iteration count of the content of a
// sequence shaped as PBE parameters or MAC data, and adds it to total.
func checkIterationCount(content []byte, total *int64) error {
	var fields []asn1.RawValue
	for rest := content; len(rest) > 0 && len(fields) < 3; {
		var v asn1.RawValue
		var err error
		if rest, err = asn1.Unmarshal(rest, &v); err != nil {
			return nil
		}
		fields = append(fields, v)
	}
	universal := func(i, tag int) bool {
		return i < len(fields) && fields[i].Class == asn1.ClassUniversal && fields[i].Tag == tag
	}
	count := -1
	switch {
	case universal(0, asn1.TagOctetString) && universal(1, asn1.TagInteger):
		count = 1
	case universal(0, asn1.TagSequence) && universal(1, asn1.TagOctetString) && universal(2, asn1.TagInteger):
		count = 2
	}
	if count < 0 {
		return nil
	}
	n := new(big.Int)
	if _, err := asn1.Unmarshal(fields[count].FullBytes, &n); err != nil {
		return nil
	}
	if n.Cmp(big.NewInt(maxPBKDF2Iterations)) > 0 {
		return fmt.Errorf("an iteration count of %s: more than %d rounds of key derivation", n, maxPBKDF2Iterations)
	}
	if n.Sign() > 0 {
		*total += n.Int64()
	}
	if *total > maxPKCS12Iterations {
		return fmt.Errorf("iteration counts of %d in all: more than %d rounds of key derivation", *total, maxPKCS12Iterations)
	}
	return nil
}
