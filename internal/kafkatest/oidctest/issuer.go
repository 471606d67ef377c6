// Package oidctest is an OAuth 2 authorization server for tests: an
// httptest server whose token endpoint issues RS256 JWTs for the client
// credentials grant (RFC 6749 section 4.4) with a short expires_in, and
// whose JWKS lets a broker (saslfront's OAUTHBEARER) verify them. It can
// also sign tokens directly, for tests of static tokens and token files.
package oidctest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Config configures an Issuer.
type Config struct {
	// Clients maps client ids to their secrets.
	Clients map[string]string
	// Lifetime is the tokens' lifetime, expires_in (default 1h).
	Lifetime time.Duration
	// Audience is the aud claim (default "kafka").
	Audience string
	// Scopes are the scopes a client may ask for; a token carries those it
	// asked for (all of them when it asked for none).
	Scopes []string
	// TLS serves the endpoint over HTTPS (httptest's certificate; see
	// Issuer.CertificatePEM).
	TLS bool
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Issuer is a running authorization server. Its methods are safe for
// concurrent use.
type Issuer struct {
	cfg    Config
	key    *rsa.PrivateKey
	kid    string
	server *httptest.Server

	mu       sync.Mutex // guards the fields below
	requests int
	issued   int
	failures []failure
}

// failure is a scripted answer of the token endpoint.
type failure struct {
	status      int
	code, descr string
}

// NewIssuer starts an Issuer; Close stops it.
func NewIssuer(cfg Config) (*Issuer, error) {
	if cfg.Lifetime <= 0 {
		cfg.Lifetime = time.Hour
	}
	if cfg.Audience == "" {
		cfg.Audience = "kafka"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	i := &Issuer{cfg: cfg, key: key, kid: "test-key-1"}
	mux := http.NewServeMux()
	mux.HandleFunc("/token", i.serveToken)
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(i.JWKS()) })
	if cfg.TLS {
		i.server = httptest.NewTLSServer(mux)
	} else {
		i.server = httptest.NewServer(mux)
	}
	return i, nil
}

// Close stops the server.
func (i *Issuer) Close() { i.server.Close() }

// TokenURL is the token endpoint's URL.
func (i *Issuer) TokenURL() string { return i.server.URL + "/token" }

// CertificatePEM is the PEM of the HTTPS server's certificate, the CA a
// client must trust (nil without TLS).
func (i *Issuer) CertificatePEM() []byte {
	if c := i.server.Certificate(); c != nil {
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	return nil
}

// Server is the underlying httptest server (its Certificate for TLS).
func (i *Issuer) Server() *httptest.Server { return i.server }

// Requests is the number of requests the token endpoint received, Issued
// the number of tokens it issued.
func (i *Issuer) Requests() (requests, issued int) {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.requests, i.issued
}

// FailNext makes the next n token requests fail with status and the OAuth
// error code and description (RFC 6749 section 5.2).
func (i *Issuer) FailNext(n, status int, code, description string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	for range n {
		i.failures = append(i.failures, failure{status: status, code: code, descr: description})
	}
}

// JWKS is the key set (RFC 7517) that verifies the issuer's tokens.
func (i *Issuer) JWKS() []byte {
	pub := i.key.PublicKey
	set := map[string]any{"keys": []map[string]string{{
		"kty": "RSA", "use": "sig", "alg": "RS256", "kid": i.kid,
		"n": b64(pub.N.Bytes()), "e": b64(big.NewInt(int64(pub.E)).Bytes()),
	}}}
	out, _ := json.Marshal(set)
	return out
}

// Sign returns an RS256 JWT with claims, signed by the issuer's key.
func (i *Issuer) Sign(claims map[string]any) string {
	header, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": i.kid})
	payload, _ := json.Marshal(claims)
	signingInput := b64(header) + "." + b64(payload)
	sum := sha256.Sum256([]byte(signingInput))
	sig, err := rsa.SignPKCS1v15(rand.Reader, i.key, crypto.SHA256, sum[:])
	if err != nil {
		panic(err) // a 2048-bit key always signs
	}
	return signingInput + "." + b64(sig)
}

// Token returns a token for sub with the issuer's audience, the given
// scope and a lifetime (negative: already expired).
func (i *Issuer) Token(sub, scope string, lifetime time.Duration) string {
	now := i.cfg.Now()
	claims := map[string]any{
		"iss": i.server.URL, "sub": sub, "aud": i.cfg.Audience,
		"iat": now.Unix(), "exp": now.Add(lifetime).Unix(),
	}
	if scope != "" {
		claims["scope"] = scope
	}
	return i.Sign(claims)
}

// serveToken is the token endpoint: the client credentials grant, the
// client authenticated with HTTP Basic or with client_id and
// client_secret in the form.
func (i *Issuer) serveToken(w http.ResponseWriter, r *http.Request) {
	i.mu.Lock()
	i.requests++
	var f *failure
	if len(i.failures) > 0 {
		f = &i.failures[0]
		i.failures = i.failures[1:]
	}
	i.mu.Unlock()
	if f != nil {
		oauthError(w, f.status, f.code, f.descr)
		return
	}
	if r.Method != http.MethodPost {
		oauthError(w, http.StatusMethodNotAllowed, "invalid_request", "POST expected")
		return
	}
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	if gt := r.PostForm.Get("grant_type"); gt != "client_credentials" {
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", fmt.Sprintf("grant_type %q", gt))
		return
	}
	id, secret, ok := basicAuth(r)
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if want, known := i.cfg.Clients[id]; !known || want != secret {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "Invalid client or Invalid client credentials")
		return
	}
	scope, err := i.grantScope(r.PostForm.Get("scope"))
	if err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_scope", err.Error())
		return
	}
	token := i.Token(id, scope, i.cfg.Lifetime)
	i.mu.Lock()
	i.issued++
	i.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"access_token": token, "token_type": "Bearer",
		"expires_in": int(i.cfg.Lifetime / time.Second), "scope": scope,
	})
}

// basicAuth reads HTTP Basic credentials, form-urlencoded as RFC 6749
// section 2.3.1 says.
func basicAuth(r *http.Request) (string, string, bool) {
	id, secret, ok := r.BasicAuth()
	if !ok {
		return "", "", false
	}
	if u, err := url.QueryUnescape(id); err == nil {
		id = u
	}
	if s, err := url.QueryUnescape(secret); err == nil {
		secret = s
	}
	return id, secret, true
}

// grantScope checks the requested scopes.
func (i *Issuer) grantScope(requested string) (string, error) {
	if requested == "" {
		return strings.Join(i.cfg.Scopes, " "), nil
	}
	for _, s := range strings.Fields(requested) {
		known := false
		for _, k := range i.cfg.Scopes {
			known = known || k == s
		}
		if !known {
			return "", fmt.Errorf("scope %q is not allowed", s)
		}
	}
	return strings.Join(strings.Fields(requested), " "), nil
}

func oauthError(w http.ResponseWriter, status int, code, description string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": description})
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
