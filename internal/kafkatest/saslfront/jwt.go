package saslfront

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// jwks is a parsed JSON Web Key Set: the RSA keys by kid.
type jwks map[string]*rsa.PublicKey

// parseJWKS reads the RSA signing keys of a key set (RFC 7517).
func parseJWKS(data []byte) (jwks, error) {
	var set struct {
		Keys []struct {
			Kty, Kid, N, E, Use string
		} `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("jwks: %w", err)
	}
	keys := jwks{}
	for _, k := range set.Keys {
		if k.Kty != "RSA" || (k.Use != "" && k.Use != "sig") {
			continue
		}
		n, err1 := base64.RawURLEncoding.DecodeString(k.N)
		e, err2 := base64.RawURLEncoding.DecodeString(k.E)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("jwks: key %s: %w", k.Kid, err)
		}
		keys[k.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	}
	return keys, nil
}

// claims are the JWT claims the front checks.
type claims struct {
	Subject string          `json:"sub"`
	Expiry  *float64        `json:"exp"`
	Aud     json.RawMessage `json:"aud"`
	Scope   json.RawMessage `json:"scope"`
	Scp     json.RawMessage `json:"scp"`
	// unsecured: the token is not signed (alg none).
	unsecured bool
}

// errUnsecured is a token with alg none.
var errUnsecured = errors.New("unsecured JWT")

// verifyJWT checks token's RS256 signature against keys (or accepts an
// unsecured token when allowNone is set) and returns its claims.
func verifyJWT(token string, keys jwks, allowNone bool) (*claims, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errors.New("not a JWT (want three dot-separated parts)")
	}
	var header struct{ Alg, Kid string }
	if err := decodePart(parts[0], &header); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	switch {
	case header.Alg == "none":
		if !allowNone || parts[2] != "" {
			return nil, errUnsecured
		}
	case header.Alg == "RS256":
		key, ok := keys[header.Kid]
		if !ok {
			return nil, fmt.Errorf("no key %q in the JWKS", header.Kid)
		}
		sig, err := base64.RawURLEncoding.DecodeString(parts[2])
		if err != nil {
			return nil, fmt.Errorf("signature: %w", err)
		}
		sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
		if err := rsa.VerifyPKCS1v15(key, crypto.SHA256, sum[:], sig); err != nil {
			return nil, errors.New("signature does not verify")
		}
	default:
		return nil, fmt.Errorf("alg %q", header.Alg)
	}
	var c claims
	if err := decodePart(parts[1], &c); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	c.unsecured = header.Alg == "none"
	return &c, nil
}

func decodePart(part string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(part)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// expiry is the exp claim as a time.
func (c *claims) expiry() time.Time {
	if c.Expiry == nil {
		return time.Time{}
	}
	sec := int64(*c.Expiry)
	return time.Unix(sec, int64((*c.Expiry-float64(sec))*1e9))
}

// audiences are the aud claim's values (a string or an array).
func (c *claims) audiences() []string { return stringOrList(c.Aud, false) }

// scopes are the scope claim's values (space-separated, or an array; scp
// as some issuers name it).
func (c *claims) scopes() []string {
	if len(c.Scope) > 0 {
		return stringOrList(c.Scope, true)
	}
	return stringOrList(c.Scp, true)
}

func stringOrList(raw json.RawMessage, split bool) []string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if split {
			return strings.Fields(s)
		}
		return []string{s}
	}
	var l []string
	_ = json.Unmarshal(raw, &l)
	return l
}
