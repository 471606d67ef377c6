package network

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// MechanismOAuthBearer is SASL OAUTHBEARER's name.
const MechanismOAuthBearer = "OAUTHBEARER"

// OAuthBearerToken is a bearer token and what is known of it. Value is a
// secret: never log it.
type OAuthBearerToken struct {
	Value string
	// Expiry is when the token expires, zero when unknown.
	Expiry time.Time
	// Claims summarises the token's claims for error messages (sub, aud,
	// scope, exp), never the token itself; "" when it is not a JWT.
	Claims string
}

// OAuthBearerTokenSource gives the token to authenticate with. A source
// that fetches its tokens (from an endpoint) also implements
// SASLPreparer and fetches them in the background: Token must not block.
type OAuthBearerTokenSource interface {
	// Token returns the current token. An error wrapping ErrSASLPending
	// means none is ready (not fetched yet, or expired before its refresh
	// arrived); any other error fails the authentication.
	Token() (OAuthBearerToken, error)
}

// OAuthBearerMechanism is SASL OAUTHBEARER (RFC 7628) as Kafka speaks it
// (KIP-255, KIP-342): the client's first message carries the token and
// the SASL extensions; a broker that refuses the token answers with a JSON
// status, which the client acknowledges with 0x01 before the broker fails
// the authentication. Each authentication takes the source's current
// token.
type OAuthBearerMechanism struct {
	Tokens OAuthBearerTokenSource
	// Extensions are sent with the token (Confluent Cloud's
	// logicalCluster and identityPoolId, for instance).
	Extensions map[string]string
	// AuthorizationID, optional, is the authzid of the GS2 header.
	AuthorizationID string
	// Now is the clock of the error messages (default time.Now).
	Now func() time.Time
}

// Name returns "OAUTHBEARER".
func (OAuthBearerMechanism) Name() string { return MechanismOAuthBearer }

// isExtensionKey reports whether k has RFC 7628's key syntax (letters
// only); the values may hold any printable character, space and tab.
func isExtensionKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') {
			return false
		}
	}
	return k != ""
}

// CheckOAuthBearerExtensions checks extension names and values as RFC
// 7628 and Kafka's broker require; the error names the bad extension.
func CheckOAuthBearerExtensions(ext map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(ext)) {
		if !isExtensionKey(k) || k == "auth" {
			return fmt.Errorf("SASL extension name %q: want letters only, and not \"auth\"", k)
		}
		for _, r := range ext[k] {
			if r < 0x20 && r != '\t' && r != '\r' && r != '\n' || r == 0x7f {
				return fmt.Errorf("SASL extension %s: its value holds a control character", k)
			}
		}
	}
	return nil
}

// NewSession takes the current token and starts an exchange.
func (m OAuthBearerMechanism) NewSession(Node) (SASLSession, error) {
	if m.Tokens == nil {
		return nil, errors.New("sasl oauthbearer: no token source")
	}
	if err := CheckOAuthBearerExtensions(m.Extensions); err != nil {
		return nil, fmt.Errorf("sasl oauthbearer: %w", err)
	}
	tok, err := m.Tokens.Token()
	if err != nil {
		return nil, err
	}
	if tok.Value == "" || strings.ContainsAny(tok.Value, "\x01 ") {
		return nil, errors.New("sasl oauthbearer: the token is empty or holds spaces or control characters")
	}
	now := time.Now
	if m.Now != nil {
		now = m.Now
	}
	return &oauthBearerSession{m: m, token: tok, now: now}, nil
}

// Prepare forwards to the token source when it prepares its tokens.
func (m OAuthBearerMechanism) Prepare(w Waker) error {
	if p, ok := m.Tokens.(SASLPreparer); ok {
		return p.Prepare(w)
	}
	return nil
}

// Release forwards to the token source when it prepares its tokens.
func (m OAuthBearerMechanism) Release(w Waker) {
	if p, ok := m.Tokens.(SASLPreparer); ok {
		p.Release(w)
	}
}

// oauthBearerSession is one OAUTHBEARER exchange.
type oauthBearerSession struct {
	m     OAuthBearerMechanism
	token OAuthBearerToken
	now   func() time.Time
	step  int
	// status is the broker's JSON error status, once received.
	status string
}

// Step sends the client's first message, then completes on the broker's
// empty answer, or answers its error status with 0x01.
func (s *oauthBearerSession) Step(challenge []byte) ([]byte, bool, error) {
	s.step++
	switch {
	case s.step == 1:
		return s.clientFirst(), false, nil
	case s.step == 2 && len(challenge) == 0:
		return nil, true, nil
	case s.step == 2:
		s.status = summarizeStatus(challenge)
		return []byte{1}, false, nil
	}
	return nil, false, s.ExplainFailure(errors.New("sasl oauthbearer: the broker refused the token"))
}

// clientFirst is gs2-header, then auth=Bearer TOKEN and every extension
// as key=value, each followed by 0x01, then 0x01.
func (s *oauthBearerSession) clientFirst() []byte {
	var b strings.Builder
	b.WriteString("n,")
	if s.m.AuthorizationID != "" {
		b.WriteString("a=" + s.m.AuthorizationID)
	}
	b.WriteString(",\x01auth=Bearer ")
	b.WriteString(s.token.Value)
	b.WriteByte(1)
	for _, k := range slices.Sorted(maps.Keys(s.m.Extensions)) {
		b.WriteString(k + "=" + s.m.Extensions[k] + "\x01")
	}
	b.WriteByte(1)
	return []byte(b.String())
}

// ExplainFailure adds the broker's status and what the token claims.
func (s *oauthBearerSession) ExplainFailure(err error) error {
	var parts []string
	if s.status != "" {
		parts = append(parts, "broker status "+s.status)
	}
	if s.token.Claims != "" {
		parts = append(parts, "token claims "+s.token.Claims)
	}
	if !s.token.Expiry.IsZero() {
		if left := s.token.Expiry.Sub(s.now()); left <= 0 {
			parts = append(parts, fmt.Sprintf("the token expired %v ago", (-left).Round(time.Second)))
		}
	}
	if len(parts) == 0 {
		return err
	}
	return fmt.Errorf("%w (%s)", err, strings.Join(parts, "; "))
}

// summarizeStatus reads the broker's RFC 7628 JSON status: its status,
// scope and openid-configuration, as text.
func summarizeStatus(challenge []byte) string {
	var st map[string]any
	if err := json.Unmarshal(challenge, &st); err != nil {
		return fmt.Sprintf("%q", truncate(string(challenge), 200))
	}
	var parts []string
	for _, k := range []string{"status", "scope", "openid-configuration"} {
		if v, ok := st[k].(string); ok && v != "" {
			parts = append(parts, fmt.Sprintf("%s=%s", k, truncate(v, 200)))
		}
	}
	return strings.Join(parts, " ")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
