package config

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
	"github.com/kproduce/kproduce/internal/tlsconf"
	"github.com/kproduce/kproduce/pkg/mskiam"
	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/oauth"
)

// OAuthOptions are the OAUTHBEARER settings: exactly one token source
// (a static token, a token file, the client credentials grant, an
// unsecured JWT, or rpk's password), and the SASL extensions. The token
// and the client secret are secrets.
type OAuthOptions struct {
	Token, TokenFile                             string
	TokenEndpoint, ClientID, ClientSecret, Scope string
	// CA is the PEM file of the token endpoint's CAs.
	CA string
	// Extensions are the SASL extensions, by name.
	Extensions map[string]string
	// ConnectTimeout, ReadTimeout, RetryBackoff and RetryBackoffMax tune
	// the token endpoint's requests.
	ConnectTimeout, ReadTimeout, RetryBackoff, RetryBackoffMax time.Duration
	// UnsecuredJWT is librdkafka's sasl.oauthbearer.config.
	UnsecuredJWT string
}

// AWSOptions are the AWS_MSK_IAM settings.
type AWSOptions struct {
	Region, Profile, RoleARN, RoleSessionName string
}

// given reports whether a token source was given.
func (o *OAuthOptions) given() bool {
	return o.Token != "" || o.TokenFile != "" || o.TokenEndpoint != "" || o.UnsecuredJWT != ""
}

// source names the token source, for the logs.
func (o *OAuthOptions) source() string {
	switch {
	case o.Token != "":
		return "static token"
	case o.TokenFile != "":
		return "token file " + o.TokenFile
	case o.TokenEndpoint != "":
		return "client credentials"
	case o.UnsecuredJWT != "":
		return "unsecured JWT"
	}
	return "the password (rpk)"
}

// readOAuth reads the OAUTHBEARER options.
func (r *optionReader) readOAuth(o *OAuthOptions) {
	o.Token = strings.TrimSpace(r.secret("sasl-token"))
	o.TokenFile = strings.TrimSpace(r.str("sasl-token-file"))
	o.TokenEndpoint = strings.TrimSpace(r.str("oauth-token-endpoint"))
	o.ClientID = strings.TrimSpace(r.str("oauth-client-id"))
	o.ClientSecret = r.secret("oauth-client-secret")
	o.Scope = strings.TrimSpace(r.str("oauth-scope"))
	o.CA = strings.TrimSpace(r.str("oauth-ca"))
	o.UnsecuredJWT = strings.TrimSpace(r.str("sasl-unsecured-jwt"))
	o.ConnectTimeout = r.duration("oauth-connect-timeout", true)
	o.ReadTimeout = r.duration("oauth-read-timeout", true)
	o.RetryBackoff = r.duration("oauth-retry-backoff", true)
	o.RetryBackoffMax = r.duration("oauth-retry-backoff-max", true)
	if rest, ok := strings.CutPrefix(strings.ToLower(o.TokenEndpoint), "file://"); ok && o.TokenFile == "" {
		o.TokenFile, o.TokenEndpoint = o.TokenEndpoint[len(o.TokenEndpoint)-len(rest):], "" // Java's file:///path
	}
	for _, kv := range r.list("oauth-extension") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			r.failValue("oauth-extension", kv, fmt.Errorf("%w: want KEY=VALUE", ErrBadValue))
			continue
		}
		if o.Extensions == nil {
			o.Extensions = map[string]string{}
		}
		o.Extensions[strings.TrimSpace(k)] = v
	}
	if err := network.CheckOAuthBearerExtensions(o.Extensions); err != nil {
		r.fail("oauth-extension", fmt.Errorf("%w: %w", ErrBadValue, err))
	}
}

// readAWS reads the AWS_MSK_IAM options.
func (r *optionReader) readAWS(a *AWSOptions) {
	a.Region = strings.TrimSpace(r.str("aws-region"))
	a.Profile = strings.TrimSpace(r.str("aws-profile"))
	a.RoleARN = strings.TrimSpace(r.str("aws-role-arn"))
	a.RoleSessionName = strings.TrimSpace(r.str("aws-role-session-name"))
}

// checkMechanismOptions checks that the options given belong to the
// mechanism: a token source with OAUTHBEARER only, exactly one of them,
// the client credentials complete.
func (r *optionReader) checkMechanismOptions(s *SecurityOptions) {
	o := &s.OAuth
	if s.SASLMechanism != network.MechanismOAuthBearer {
		for _, key := range []string{"sasl-token", "sasl-token-file", "oauth-token-endpoint", "sasl-unsecured-jwt"} {
			if strings.TrimSpace(r.str(key)) != "" {
				r.fail(key, fmt.Errorf("%w: needs --sasl-mechanism OAUTHBEARER (got %s)", ErrBadValue, s.SASLMechanism))
			}
		}
		return
	}
	var sources []string
	for _, src := range []struct {
		flag  string
		given bool
	}{{"--sasl-token", o.Token != ""}, {"--sasl-token-file", o.TokenFile != ""}, {"--oauth-token-endpoint", o.TokenEndpoint != ""}, {"--sasl-unsecured-jwt", o.UnsecuredJWT != ""}} {
		if src.given {
			sources = append(sources, src.flag)
		}
	}
	switch {
	case len(sources) > 1:
		r.fail("sasl-mechanism", fmt.Errorf("%w: OAUTHBEARER takes one token source, got %s", ErrBadValue, strings.Join(sources, " and ")))
	case len(sources) == 0 && s.SASLPassword != "":
		// rpk: --sasl-mechanism OAUTHBEARER --password token:JWT, or the bare JWT.
		o.Token = strings.TrimPrefix(strings.TrimSpace(s.SASLPassword), "token:")
	case len(sources) == 0:
		r.fail("sasl-mechanism", fmt.Errorf("%w: OAUTHBEARER needs a token source: --sasl-token (or KPRODUCE_SASL_TOKEN), --sasl-token-file,"+
			" --oauth-token-endpoint with --oauth-client-id and --oauth-client-secret, or --sasl-unsecured-jwt", ErrBadValue))
	case o.TokenEndpoint != "" && (o.ClientID == "" || o.ClientSecret == ""):
		r.fail("oauth-token-endpoint", fmt.Errorf("%w: the client credentials grant needs --oauth-client-id and --oauth-client-secret"+
			" (or KPRODUCE_OAUTH_CLIENT_SECRET, or the config file)", ErrBadValue))
	}
}

// buildSASL builds the SASL mechanism. A token file must exist, the
// endpoint's CA file must read: usage errors, before connecting.
func (s *SecurityOptions) buildSASL() error {
	switch s.SASLMechanism {
	case "":
		return nil
	case network.MechanismGSSAPI:
		m, err := network.NewGSSAPIMechanism(s.Kerberos)
		if err != nil {
			return fmt.Errorf("--sasl-mechanism GSSAPI: %w", err)
		}
		s.SASL = m
		return nil
	case network.MechanismOAuthBearer:
		src, ext, err := s.OAuth.tokenSource()
		if err != nil {
			return err
		}
		s.SASL = network.OAuthBearerMechanism{Tokens: src, Extensions: ext}
		return nil
	case mskiam.Name:
		s.SASL = mskiam.New(mskiam.Config{Region: s.AWS.Region, Profile: s.AWS.Profile, RoleARN: s.AWS.RoleARN,
			RoleSessionName: s.AWS.RoleSessionName})
		return nil
	}
	m, err := network.NewSASLMechanism(s.SASLMechanism, s.SASLUsername, s.SASLPassword)
	if err != nil {
		return fmt.Errorf("--sasl-mechanism: %w", err)
	}
	s.SASL = m
	return nil
}

// tokenSource builds the token source and the extensions to send.
func (o *OAuthOptions) tokenSource() (network.OAuthBearerTokenSource, map[string]string, error) {
	ext := o.Extensions
	switch {
	case o.Token != "":
		src, err := oauth.NewStatic(o.Token, "the token of --sasl-token", nil)
		return src, ext, err
	case o.TokenFile != "":
		if _, err := os.Stat(o.TokenFile); err != nil {
			return nil, nil, fmt.Errorf("--sasl-token-file: %w", err)
		}
		return oauth.NewFile(o.TokenFile, nil), ext, nil
	case o.UnsecuredJWT != "":
		u, err := javaprops.ParseUnsecuredJWT(o.UnsecuredJWT)
		if err != nil {
			return nil, nil, fmt.Errorf("--sasl-unsecured-jwt: %w", err)
		}
		src, err := oauth.NewUnsecured(oauth.UnsecuredConfig{Principal: u.Principal, PrincipalClaim: u.PrincipalClaim,
			ScopeClaim: u.ScopeClaim, Scope: u.Scope, Lifetime: u.Lifetime})
		merged := map[string]string{}
		for k, v := range u.Extensions {
			merged[k] = v
		}
		for k, v := range ext {
			merged[k] = v
		}
		if err := network.CheckOAuthBearerExtensions(merged); err != nil {
			return nil, nil, fmt.Errorf("--sasl-unsecured-jwt: %w", err)
		}
		return src, merged, err
	}
	cfg := oauth.ClientCredentialsConfig{TokenURL: o.TokenEndpoint, ClientID: o.ClientID, ClientSecret: o.ClientSecret, Scope: o.Scope,
		ConnectTimeout: o.ConnectTimeout, ReadTimeout: o.ReadTimeout, RetryBackoff: o.RetryBackoff, RetryBackoffMax: o.RetryBackoffMax}
	if o.CA != "" {
		tc, err := tlsconf.Config{CAFile: o.CA}.Build()
		if err != nil {
			return nil, nil, fmt.Errorf("--oauth-ca: %w", err)
		}
		cfg.TLS = tc
	}
	src, err := oauth.NewClientCredentials(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("--oauth-token-endpoint: %w", err)
	}
	return src, ext, nil
}
