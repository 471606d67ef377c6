package saslfront

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// OAuthBearerConfig configures the OAUTHBEARER mechanism: what a token
// must be for the broker to accept it.
type OAuthBearerConfig struct {
	// JWKS is the key set (JSON) whose RSA keys sign the tokens (RS256).
	JWKS []byte
	// AllowUnsecured also accepts unsigned tokens (alg none), as Kafka's
	// OAuthBearerUnsecuredValidatorCallbackHandler does.
	AllowUnsecured bool
	// Audience, when set, must be among a signed token's aud values.
	Audience string
	// RequiredScopes must all be in the token's scope claim.
	RequiredScopes []string
	// RequiredExtensions must be sent by the client: an empty value
	// accepts any value, another only itself.
	RequiredExtensions map[string]string
}

// OAuthBearer is SASL OAUTHBEARER (RFC 7628) as Kafka's broker speaks it
// (KIP-255, KIP-342): the client's first message carries the token and its
// extensions. A token that does not validate is answered with the RFC
// 7628 JSON status; the client must then send a single 0x01, which fails
// the authentication with that status as the message. Invalid extensions
// fail it at once. The session ends no later than the token's exp.
func OAuthBearer(cfg OAuthBearerConfig) (Mechanism, error) {
	keys := jwks{}
	if len(cfg.JWKS) > 0 {
		var err error
		if keys, err = parseJWKS(cfg.JWKS); err != nil {
			return nil, err
		}
	}
	return oauthMechanism{cfg: cfg, keys: keys}, nil
}

type oauthMechanism struct {
	cfg  OAuthBearerConfig
	keys jwks
}

func (oauthMechanism) Name() string { return "OAUTHBEARER" }

func (m oauthMechanism) Start(info ConnInfo) Exchange {
	return &oauthExchange{m: m, now: info.Now}
}

// oauthExchange is one OAUTHBEARER authentication.
type oauthExchange struct {
	m      oauthMechanism
	now    time.Time
	status string // the JSON status sent, awaiting the client's 0x01
	sub    string
	exp    time.Time
}

// extensionKey is RFC 7628's key syntax.
var extensionKey = regexp.MustCompile(`^[A-Za-z]+$`)

// Step validates the client's first message, or ends a failed exchange on
// the client's 0x01.
func (e *oauthExchange) Step(msg []byte) ([]byte, bool, error) {
	if e.status != "" {
		if !bytes.Equal(msg, []byte{1}) {
			return nil, false, fmt.Errorf("Authentication failed: expected 0x01 after the error status, got %d bytes", len(msg))
		}
		return nil, false, fmt.Errorf("%s", e.status)
	}
	authz, token, ext, err := parseClientFirst(msg)
	if err != nil {
		return nil, false, fmt.Errorf("Authentication failed: %w", err)
	}
	if status := e.validate(token); status != "" {
		e.status = status
		return []byte(status), false, nil
	}
	if authz != "" && authz != e.sub {
		return nil, false, fmt.Errorf("Authentication failed: Client requested an authorization id (%s) that is different from the token's principal name (%s)", authz, e.sub)
	}
	if bad := e.invalidExtensions(ext); len(bad) > 0 {
		return nil, false, fmt.Errorf("Authentication failed: %d extensions are invalid! They are: %s", len(bad), strings.Join(bad, ", "))
	}
	return nil, true, nil
}

// validate checks the token and returns the JSON status of a token that
// does not validate, "" for a valid one.
func (e *oauthExchange) validate(token string) string {
	c, err := verifyJWT(token, e.m.keys, e.m.cfg.AllowUnsecured)
	if err != nil || c.Expiry == nil || c.Subject == "" {
		return jsonStatus("invalid_token", "")
	}
	if !e.now.Before(c.expiry()) {
		return jsonStatus("invalid_token", "")
	}
	// Kafka's unsecured validator checks no audience.
	if a := e.m.cfg.Audience; a != "" && !c.unsecured && !slices.Contains(c.audiences(), a) {
		return jsonStatus("invalid_token", "")
	}
	for _, s := range e.m.cfg.RequiredScopes {
		if !slices.Contains(c.scopes(), s) {
			return jsonStatus("insufficient_scope", strings.Join(e.m.cfg.RequiredScopes, " "))
		}
	}
	e.sub, e.exp = c.Subject, c.expiry()
	return ""
}

// invalidExtensions lists the required extensions missing or wrong.
func (e *oauthExchange) invalidExtensions(ext map[string]string) []string {
	var bad []string
	for k, want := range e.m.cfg.RequiredExtensions {
		got, ok := ext[k]
		switch {
		case !ok:
			bad = append(bad, k+": missing")
		case want != "" && got != want:
			bad = append(bad, k+": unknown value")
		}
	}
	sort.Strings(bad)
	return bad
}

// Principal is the token's sub.
func (e *oauthExchange) Principal() string { return e.sub }

// Expiry is the token's exp.
func (e *oauthExchange) Expiry() time.Time { return e.exp }

// parseClientFirst reads gs2-header, then key=value pairs separated by
// 0x01 (RFC 7628 section 3.1): the auth value "Bearer TOKEN", the rest
// extensions.
func parseClientFirst(msg []byte) (authz, token string, ext map[string]string, err error) {
	s := string(msg)
	gs2, rest, ok := strings.Cut(s, ",")
	if !ok || (gs2 != "n" && gs2 != "y") {
		return "", "", nil, fmt.Errorf("invalid gs2 header")
	}
	a, rest, ok := strings.Cut(rest, ",")
	if !ok || (a != "" && !strings.HasPrefix(a, "a=")) {
		return "", "", nil, fmt.Errorf("invalid gs2 header")
	}
	authz = strings.TrimPrefix(a, "a=")
	if !strings.HasPrefix(rest, "\x01") || !strings.HasSuffix(rest, "\x01\x01") {
		return "", "", nil, fmt.Errorf("invalid OAUTHBEARER client first message framing")
	}
	ext = map[string]string{}
	for _, kv := range strings.Split(strings.TrimSuffix(rest[1:], "\x01\x01"), "\x01") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !extensionKey.MatchString(k) {
			return "", "", nil, fmt.Errorf("invalid key=value pair")
		}
		if k == "auth" {
			token, ok = strings.CutPrefix(v, "Bearer ")
			if !ok {
				return "", "", nil, fmt.Errorf("invalid auth value")
			}
			continue
		}
		ext[k] = v
	}
	if token == "" {
		return "", "", nil, fmt.Errorf("no token")
	}
	return authz, token, ext, nil
}

// jsonStatus is the RFC 7628 section 3.2.2 error, as Kafka writes it.
func jsonStatus(status, scope string) string {
	m := map[string]string{"status": status}
	if scope != "" {
		m["scope"] = scope
	}
	b, _ := json.Marshal(m)
	return string(b)
}
