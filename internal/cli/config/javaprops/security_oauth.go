package javaprops

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kproduce/kproduce/pkg/mskiam"
	"github.com/kproduce/kproduce/pkg/network"
)

// SASLMechanisms are the SASL mechanisms kproduce speaks.
func SASLMechanisms() []string {
	return append(network.SASLMechanisms(), network.MechanismOAuthBearer, mskiam.Name)
}

// The login callback handlers kproduce understands: the Java client's
// OAuth one (both its packages) and aws-msk-iam-auth's.
const (
	oauthLoginHandler = "OAuthBearerLoginCallbackHandler"
	iamClientHandler  = "software.amazon.msk.auth.iam.IAMClientCallbackHandler"
)

// oauthOptionProps map the OAUTHBEARER properties that carry a value
// straight to an option: the Java name first, then librdkafka's.
func oauthOptionProps() []struct {
	option string
	names  []string
} {
	return []struct {
		option string
		names  []string
	}{
		{"oauth-client-id", []string{"sasl.oauthbearer.client.credentials.client.id", "sasl.oauthbearer.client.id"}},
		{"oauth-client-secret", []string{"sasl.oauthbearer.client.credentials.client.secret", "sasl.oauthbearer.client.secret"}},
		{"oauth-scope", []string{"sasl.oauthbearer.scope"}},
		{"oauth-extension", []string{"sasl.oauthbearer.extensions"}},
	}
}

// loginTimeoutProps map Java's sasl.login.* timeouts (ms) to options.
func loginTimeoutProps() map[string]string {
	return map[string]string{
		"sasl.login.connect.timeout.ms":   "oauth-connect-timeout",
		"sasl.login.read.timeout.ms":      "oauth-read-timeout",
		"sasl.login.retry.backoff.ms":     "oauth-retry-backoff",
		"sasl.login.retry.backoff.max.ms": "oauth-retry-backoff-max",
	}
}

// readOAuth maps the OAUTHBEARER and AWS_MSK_IAM properties of both
// clients. Errors never quote a secret.
func (js *SecuritySettings) readOAuth(props map[string]string) error {
	if err := js.readTokenEndpoint(props); err != nil {
		return err
	}
	for _, p := range oauthOptionProps() {
		if name, v, ok := lookupAny(props, p.names...); ok {
			js.add(p.option, strings.TrimSpace(v), name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(loginTimeoutProps())) {
		if v, ok := props[name]; ok {
			d, err := millis(v)
			if err != nil {
				return fmt.Errorf("%s %q: %w", name, v, err)
			}
			js.add(loginTimeoutProps()[name], d, name)
		}
	}
	if ca, ok := props["https.ca.location"]; ok && !strings.EqualFold(strings.TrimSpace(ca), "probe") {
		js.add("oauth-ca", strings.TrimSpace(ca), "https.ca.location")
	}
	if err := js.readUnsecuredJWT(props); err != nil {
		return err
	}
	return checkHandlers(props)
}

// readTokenEndpoint maps the token endpoint (Java's file:///path is a
// token file) and librdkafka's sasl.oauthbearer.method.
func (js *SecuritySettings) readTokenEndpoint(props map[string]string) error {
	endpoint, hasEndpoint := props["sasl.oauthbearer.token.endpoint.url"]
	endpoint = strings.TrimSpace(endpoint)
	switch {
	case hasEndpoint && strings.HasPrefix(strings.ToLower(endpoint), "file:"):
		u, err := url.Parse(endpoint)
		if err != nil || u.Path == "" {
			return fmt.Errorf("sasl.oauthbearer.token.endpoint.url %q: %w: want file:///path/to/token", endpoint, ErrBadValue)
		}
		js.add("sasl-token-file", u.Path, "sasl.oauthbearer.token.endpoint.url")
	case hasEndpoint:
		js.add("oauth-token-endpoint", endpoint, "sasl.oauthbearer.token.endpoint.url")
	}
	// oidc needs a token endpoint, default another token source: the
	// options say whether one was given.
	switch m, ok := props["sasl.oauthbearer.method"]; strings.ToLower(strings.TrimSpace(m)) {
	case "default", "oidc":
	default:
		if ok {
			return fmt.Errorf("sasl.oauthbearer.method %q: %w: want oidc or default", m, ErrBadValue)
		}
	}
	return nil
}

// readUnsecuredJWT maps librdkafka's enable.sasl.oauthbearer.unsecure.jwt
// with sasl.oauthbearer.config.
func (js *SecuritySettings) readUnsecuredJWT(props map[string]string) error {
	cfg, hasCfg := props["sasl.oauthbearer.config"]
	on := false
	if v, ok := props["enable.sasl.oauthbearer.unsecure.jwt"]; ok {
		b, err := parseBool(v)
		if err != nil {
			return fmt.Errorf("enable.sasl.oauthbearer.unsecure.jwt %q: %w", v, err)
		}
		on = b == "true"
	}
	switch {
	case on && !hasCfg:
		return fmt.Errorf("enable.sasl.oauthbearer.unsecure.jwt=true needs sasl.oauthbearer.config (principal=NAME ...)")
	case on:
		if _, err := ParseUnsecuredJWT(cfg); err != nil {
			return fmt.Errorf("sasl.oauthbearer.config: %w", err)
		}
		js.add("sasl-unsecured-jwt", strings.TrimSpace(cfg), "enable.sasl.oauthbearer.unsecure.jwt", "sasl.oauthbearer.config")
	case hasCfg:
		js.Warnings = append(js.Warnings, "property sasl.oauthbearer.config has no effect without enable.sasl.oauthbearer.unsecure.jwt=true; ignored")
	}
	return nil
}

// checkHandlers refuses callback handler classes kproduce cannot stand
// in for.
func checkHandlers(props map[string]string) error {
	if h, ok := props["sasl.login.callback.handler.class"]; ok && !strings.HasSuffix(strings.TrimSpace(h), "."+oauthLoginHandler) {
		return fmt.Errorf("sasl.login.callback.handler.class %s is not supported: kproduce has the %s's client credentials grant"+
			" (sasl.oauthbearer.token.endpoint.url), static tokens and token files", strings.TrimSpace(h), oauthLoginHandler)
	}
	if h, ok := props["sasl.client.callback.handler.class"]; ok && strings.TrimSpace(h) != iamClientHandler {
		return fmt.Errorf("sasl.client.callback.handler.class %s is not supported: kproduce knows %s (AWS_MSK_IAM)", strings.TrimSpace(h), iamClientHandler)
	}
	return nil
}

// readOAuthJAAS maps OAuthBearerLoginModule's options: clientId,
// clientSecret, scope, extension_NAME, and Kafka's unsecured login
// (unsecuredLoginStringClaim_sub, unsecuredLoginLifetimeSeconds,
// unsecuredLoginListClaim_scope).
func (js *SecuritySettings) readOAuthJAAS(opts map[string]string) {
	for _, o := range []struct{ name, option string }{{"clientId", "oauth-client-id"}, {"clientSecret", "oauth-client-secret"}, {"scope", "oauth-scope"}} {
		if v, ok := opts[o.name]; ok {
			js.add(o.option, v, "sasl.jaas.config")
		}
	}
	var ext []string
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if name, ok := strings.CutPrefix(k, "extension_"); ok {
			ext = append(ext, name+"="+opts[k])
		}
	}
	if len(ext) > 0 {
		js.add("oauth-extension", strings.Join(ext, ","), "sasl.jaas.config")
	}
	if sub, ok := opts["unsecuredLoginStringClaim_sub"]; ok {
		cfg := "principal=" + sub
		if life, ok := opts["unsecuredLoginLifetimeSeconds"]; ok {
			cfg += " lifeSeconds=" + life
		}
		if scope, ok := opts["unsecuredLoginListClaim_scope"]; ok {
			cfg += " scope=" + scope
		}
		js.add("sasl-unsecured-jwt", cfg, "sasl.jaas.config")
	}
}

// readIAMJAAS maps IAMLoginModule's options.
func (js *SecuritySettings) readIAMJAAS(opts map[string]string) {
	for _, o := range []struct{ name, option string }{
		{"awsProfileName", "aws-profile"}, {"awsRoleArn", "aws-role-arn"}, {"awsRoleSessionName", "aws-role-session-name"},
	} {
		if v, ok := opts[o.name]; ok {
			js.add(o.option, v, "sasl.jaas.config")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		switch k {
		case "awsProfileName", "awsRoleArn", "awsRoleSessionName", "awsDebugCreds":
		default:
			js.Warnings = append(js.Warnings, fmt.Sprintf("sasl.jaas.config: IAMLoginModule option %s has no effect in kproduce; ignored", k))
		}
	}
}

// UnsecuredJWT is librdkafka's sasl.oauthbearer.config for an unsecured
// JWT.
type UnsecuredJWT struct {
	Principal, PrincipalClaim, ScopeClaim string
	Scope                                 []string
	Lifetime                              time.Duration
	Extensions                            map[string]string
}

// ParseUnsecuredJWT reads "principal=NAME lifeSeconds=N scope=a,b
// principalClaimName=sub scopeClaimName=scope extension_NAME=value", as
// librdkafka does: space-separated name=value pairs; principal is
// required.
func ParseUnsecuredJWT(s string) (UnsecuredJWT, error) {
	u := UnsecuredJWT{Lifetime: time.Hour, Extensions: map[string]string{}}
	for _, f := range strings.Fields(s) {
		name, value, ok := strings.Cut(f, "=")
		if !ok || value == "" {
			return u, fmt.Errorf("%w: %q: want name=value", ErrBadValue, name)
		}
		switch {
		case name == "principal":
			u.Principal = value
		case name == "principalClaimName":
			u.PrincipalClaim = value
		case name == "scopeClaimName":
			u.ScopeClaim = value
		case name == "scope":
			u.Scope = strings.Split(value, ",")
		case name == "lifeSeconds":
			n, err := strconv.Atoi(value)
			if err != nil || n <= 0 {
				return u, fmt.Errorf("%w: lifeSeconds %q: want a positive number of seconds", ErrBadValue, value)
			}
			u.Lifetime = time.Duration(n) * time.Second
		case strings.HasPrefix(name, "extension_"):
			u.Extensions[strings.TrimPrefix(name, "extension_")] = value
		default:
			return u, fmt.Errorf("%w: unknown name %q (want principal, lifeSeconds, scope, principalClaimName, scopeClaimName, extension_NAME)", ErrBadValue, name)
		}
	}
	if u.Principal == "" {
		return u, fmt.Errorf("%w: principal=NAME is required", ErrBadValue)
	}
	return u, nil
}
