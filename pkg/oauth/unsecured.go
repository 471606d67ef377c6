package oauth

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/kproduce/kproduce/pkg/network"
)

// UnsecuredConfig configures an unsecured JWT, for development against a
// broker that accepts them (Kafka's OAuthBearerUnsecuredValidatorCallbackHandler):
// librdkafka's enable.sasl.oauthbearer.unsecure.jwt with
// sasl.oauthbearer.config.
type UnsecuredConfig struct {
	// Principal is the principal claim's value (required).
	Principal string
	// PrincipalClaim and ScopeClaim name the claims (default "sub" and
	// "scope").
	PrincipalClaim, ScopeClaim string
	// Scope, when not empty, is the scope claim (a JSON array).
	Scope []string
	// Lifetime is the token's life (default 1h).
	Lifetime time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Unsecured makes unsigned JWTs (alg none) as librdkafka does, a new one
// once the current one reached 80% of its life.
type Unsecured struct {
	cfg UnsecuredConfig

	mu        sync.Mutex // guards token and refreshAt
	token     network.OAuthBearerToken
	refreshAt time.Time
}

// NewUnsecured checks cfg and returns the source.
func NewUnsecured(cfg UnsecuredConfig) (*Unsecured, error) {
	if cfg.Principal == "" {
		return nil, errors.New("unsecured JWT: principal is required")
	}
	if cfg.PrincipalClaim == "" {
		cfg.PrincipalClaim = "sub"
	}
	if cfg.ScopeClaim == "" {
		cfg.ScopeClaim = "scope"
	}
	if cfg.Lifetime <= 0 {
		cfg.Lifetime = time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Unsecured{cfg: cfg}, nil
}

// Token returns the current unsigned JWT, made anew when due.
func (u *Unsecured) Token() (network.OAuthBearerToken, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	now := u.cfg.Now()
	if u.token.Value == "" || !now.Before(u.refreshAt) {
		u.token = newToken(u.build(now))
		u.refreshAt = now.Add(u.cfg.Lifetime * 8 / 10)
	}
	return u.token, nil
}

// build encodes the header {"alg":"none"}, the claims, and an empty
// signature.
func (u *Unsecured) build(now time.Time) string {
	claims := map[string]any{
		u.cfg.PrincipalClaim: u.cfg.Principal,
		"iat":                float64(now.UnixMilli()) / 1000,
		"exp":                float64(now.Add(u.cfg.Lifetime).UnixMilli()) / 1000,
	}
	if len(u.cfg.Scope) > 0 {
		claims[u.cfg.ScopeClaim] = u.cfg.Scope
	}
	payload, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"none"}`)) + "." + enc(payload) + "."
}
