package oauth

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/kproduce/kproduce/pkg/network"
)

// EndpointError is a token endpoint's refusal (RFC 6749 section 5.2).
type EndpointError struct {
	URL    string
	Status int
	// Code and Description are the OAuth error and error_description,
	// when the answer has them.
	Code, Description string
}

// Error names the endpoint, the status and the OAuth error.
func (e *EndpointError) Error() string {
	s := fmt.Sprintf("token endpoint %s: HTTP %d %s", e.URL, e.Status, http.StatusText(e.Status))
	if e.Code != "" {
		s += ": " + e.Code
	}
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s + endpointHint(e)
}

// endpointHint suggests a fix for the common refusals.
func endpointHint(e *EndpointError) string {
	switch {
	case e.Code == "invalid_client" || e.Status == http.StatusUnauthorized:
		return " (check the client id and secret)"
	case e.Code == "invalid_scope":
		return " (check the scope)"
	case e.Status == http.StatusNotFound:
		return " (check the token endpoint URL)"
	}
	return ""
}

// Permanent reports whether retrying cannot help: the endpoint refused
// the request itself (400, 401, 403, 404, 405).
func (e *EndpointError) Permanent() bool {
	switch e.Status {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed:
		return true
	}
	return false
}

// CertificateError is a token endpoint whose TLS certificate does not
// verify (an unknown CA, another host name): no retry can fix it.
type CertificateError struct {
	URL string
	Err error
}

// Error names the endpoint, the verification failure and what to do.
func (e *CertificateError) Error() string {
	return fmt.Sprintf("token endpoint %s: %v (trust the CA that signs its certificate: --oauth-ca, https.ca.location)", e.URL, e.Err)
}

// Unwrap returns the verification failure.
func (e *CertificateError) Unwrap() error { return e.Err }

// Permanent is true: the certificate does not change between retries.
func (e *CertificateError) Permanent() bool { return true }

// maxExpiresIn bounds the expires_in of an answer.
const maxExpiresIn = 100 * 365 * 24 * time.Hour

// maxAnswerBytes bounds a token endpoint's answer.
const maxAnswerBytes = 1 << 20

// newHTTPClient is an HTTP client with the connect and read timeouts of
// sasl.login.connect.timeout.ms and sasl.login.read.timeout.ms.
func newHTTPClient(tlsConfig *tls.Config, connect, read time.Duration) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: connect}).DialContext,
		TLSHandshakeTimeout:   connect,
		ResponseHeaderTimeout: read,
		TLSClientConfig:       tlsConfig,
		MaxIdleConns:          1,
		IdleConnTimeout:       time.Minute,
	}, Timeout: connect + read}
}

// checkTokenURL checks a token endpoint URL: http or https, with a host.
func checkTokenURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error quotes the URL, user info included: keep its cause.
		return fmt.Errorf("token endpoint URL: %w", unwrapURLError(err))
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("token endpoint URL %q: want https://host/path (or http://)", u.Redacted())
	}
	return nil
}

// fetch asks the endpoint for a token with the client credentials grant,
// the client authenticated with HTTP Basic (RFC 6749 section 2.3.1, as
// the Java client and librdkafka do).
func (s *ClientCredentials) fetch(ctx context.Context) (network.OAuthBearerToken, error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	if s.cfg.Scope != "" {
		form.Set("scope", s.cfg.Scope)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return network.OAuthBearerToken{}, fmt.Errorf("token endpoint: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(s.cfg.ClientID), url.QueryEscape(s.cfg.ClientSecret))
	start := s.cfg.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		var ce *tls.CertificateVerificationError
		if errors.As(err, &ce) {
			return network.OAuthBearerToken{}, &CertificateError{URL: s.shownURL, Err: ce}
		}
		return network.OAuthBearerToken{}, fmt.Errorf("token endpoint %s: %w", s.shownURL, unwrapURLError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return network.OAuthBearerToken{}, fmt.Errorf("token endpoint %s: reading the answer: %w", s.shownURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		e := &EndpointError{URL: s.shownURL, Status: resp.StatusCode}
		var oe struct{ Error, ErrorDescription string }
		var raw map[string]any
		if json.Unmarshal(body, &raw) == nil {
			oe.Error, _ = raw["error"].(string)
			oe.ErrorDescription, _ = raw["error_description"].(string)
		}
		e.Code, e.Description = truncate(oe.Error, 100), truncate(oe.ErrorDescription, 300)
		return network.OAuthBearerToken{}, e
	}
	return s.parseAnswer(body, start)
}

// parseAnswer reads a successful answer: access_token, and expires_in or
// the JWT's exp, whichever ends first.
func (s *ClientCredentials) parseAnswer(body []byte, start time.Time) (network.OAuthBearerToken, error) {
	var ans struct {
		AccessToken string          `json:"access_token"`
		ExpiresIn   json.RawMessage `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return network.OAuthBearerToken{}, fmt.Errorf("token endpoint %s: the answer is not JSON: %w", s.shownURL, err)
	}
	if ans.AccessToken == "" {
		return network.OAuthBearerToken{}, fmt.Errorf("token endpoint %s: the answer has no access_token", s.shownURL)
	}
	tok := newToken(ans.AccessToken)
	if secs, err := strconv.ParseFloat(strings.Trim(string(ans.ExpiresIn), `"`), 64); err == nil && secs > 0 {
		secs = min(secs, maxExpiresIn.Seconds()) // a Duration wraps around past 292 years
		if exp := start.Add(time.Duration(secs * float64(time.Second))); tok.Expiry.IsZero() || exp.Before(tok.Expiry) {
			tok.Expiry = exp
		}
	}
	if tok.Expiry.IsZero() {
		return network.OAuthBearerToken{}, fmt.Errorf("token endpoint %s: the token has no lifetime (no expires_in, and not a JWT with exp)", s.shownURL)
	}
	return tok, nil
}

// unwrapURLError drops url.Error's repetition of the method and URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// truncate is an endpoint's text as shown: at most n bytes (whole
// characters), its control characters (a terminal's escape sequences) as
// spaces.
func truncate(s string, n int) string {
	shown := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s[:min(len(s), n)], ""))
	if len(s) > n {
		shown += "..."
	}
	return shown
}
