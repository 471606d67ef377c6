package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// effect is a property's test: the command line with it and the same
// command line with kproduce's own flags, which must resolve to the same
// options, different from those of base alone.
type effect struct {
	withProperty []string
	withFlags    []string
	base         []string // both start with these
	// noEffect: accepted silently, nothing changes; refused: a usage
	// error.
	noEffect, refused bool
}

// comparable strips what differs between two equal resolutions (the
// logger, the TLS configuration's pointers) and what the properties keep
// verbatim.
func comparableOptions(t *testing.T, args []string) (*Options, string) {
	t.Helper()
	o, stderr, err := parseOptions(t, append([]string{"-t", "t"}, args...)...)
	require.NoError(t, err, "%v", args)
	c := *o
	c.Logger, c.NoticeOut, c.JavaSecurity = zerolog.Logger{}, nil, nil
	c.Security.TLSConfig, c.Security.SASL = nil, nil
	if o.Security.TLSConfig != nil {
		c.Security.TLSCA += "+tls" // TLS was built
	}
	if o.Security.SASL != nil {
		c.Security.SASLMechanism += "+sasl:" + o.Security.SASL.Name()
	}
	return &c, stderr
}

// securityEffects are the tests of the security and rpk rows' names.
func securityEffects(t *testing.T) map[string]effect {
	certs := networktest.NewCertFiles(t)
	ssl := []string{"-X", "security.protocol=SSL"}
	plainSASL := []string{"-X", "security.protocol=SASL_PLAINTEXT"}
	x := func(kv ...string) []string {
		var out []string
		for _, p := range kv {
			out = append(out, "-X", p)
		}
		return out
	}
	effects := map[string]effect{
		"security.protocol": {withProperty: ssl, withFlags: []string{"--tls"}},
		"sasl.mechanism": {base: []string{"--sasl-username", "u", "--sasl-password", "p"},
			withProperty: append(x("sasl.mechanism=SCRAM-SHA-256"), plainSASL...), withFlags: []string{"--sasl-mechanism", "SCRAM-SHA-256"}},
		"sasl.mechanisms": {base: []string{"--sasl-username", "u", "--sasl-password", "p"},
			withProperty: append(x("sasl.mechanisms=PLAIN"), plainSASL...), withFlags: []string{"--sasl-mechanism", "PLAIN"}},
		"sasl.jaas.config": {
			withProperty: append(x(`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";`,
				"sasl.mechanism=PLAIN"), plainSASL...),
			withFlags: []string{"--sasl-mechanism", "PLAIN", "--sasl-username", "u", "--sasl-password", "p"}},
		"sasl.username": {withProperty: []string{"--sasl-mechanism", "PLAIN", "--sasl-password", "p", "-X", "sasl.username=u"},
			withFlags: []string{"--sasl-mechanism", "PLAIN", "--sasl-password", "p", "--sasl-username", "u"}},
		"sasl.password": {withProperty: []string{"--sasl-mechanism", "PLAIN", "--sasl-username", "u", "-X", "sasl.password=p"},
			withFlags: []string{"--sasl-mechanism", "PLAIN", "--sasl-username", "u", "--sasl-password", "p"}},
		"user": {withProperty: x("user=u", "pass=p", "sasl.mechanism=PLAIN"),
			withFlags: []string{"--sasl-mechanism", "PLAIN", "--sasl-username", "u", "--sasl-password", "p"}},
		"pass": {withProperty: x("pass=p", "user=u", "sasl.mechanism=SCRAM-SHA-512"),
			withFlags: []string{"--sasl-mechanism", "SCRAM-SHA-512", "--sasl-username", "u", "--sasl-password", "p"}},
		"ssl.truststore.location": {withProperty: append(x("ssl.truststore.location="+certs.CA), ssl...), withFlags: []string{"--tls-truststore", certs.CA}},
		"ssl.ca.location":         {withProperty: append(x("ssl.ca.location="+certs.CA), ssl...), withFlags: []string{"--tls-ca", certs.CA}},
		"ssl.truststore.type": {withProperty: append(x("ssl.truststore.type=PEM", "ssl.truststore.location="+certs.CA), ssl...),
			withFlags: []string{"--tls-truststore", certs.CA}},
		"ssl.keystore.type": {withProperty: append(x("ssl.keystore.type=PKCS12", "ssl.keystore.location="+certs.ClientBundle), ssl...),
			withFlags: []string{"--tls-keystore", certs.ClientBundle}},
		"ssl.keystore.location": {withProperty: append(x("ssl.keystore.location="+certs.ClientBundle), ssl...),
			withFlags: []string{"--tls-keystore", certs.ClientBundle}},
		"ssl.certificate.location": {withProperty: append(x("ssl.certificate.location="+certs.ClientCert, "ssl.key.location="+certs.ClientKey), ssl...),
			withFlags: []string{"--tls-cert", certs.ClientCert, "--tls-key", certs.ClientKey}},
		"ssl.key.location": {withProperty: append(x("ssl.key.location="+certs.ClientKey, "ssl.certificate.location="+certs.ClientCert), ssl...),
			withFlags: []string{"--tls-cert", certs.ClientCert, "--tls-key", certs.ClientKey}},
		"ssl.key.password": {
			withProperty: append(x("ssl.certificate.location="+fixture("cert.pem"), "ssl.key.location="+fixture("key-pkcs8-aes256.pem"), "ssl.key.password=fixture-pass"), ssl...),
			withFlags:    []string{"--tls-cert", fixture("cert.pem"), "--tls-key", fixture("key-pkcs8-aes256.pem"), "--tls-key-password", "fixture-pass"}},
		"ssl.endpoint.identification.algorithm": {base: []string{"--tls"}, withProperty: x("ssl.endpoint.identification.algorithm=none")},
		"enable.ssl.certificate.verification": {withProperty: append(x("enable.ssl.certificate.verification=false"), ssl...),
			withFlags: []string{"--tls-insecure-skip-verify"}},
		"ssl.truststore.password": {withProperty: append(x("ssl.truststore.location="+certs.CA, "ssl.truststore.password=x"), ssl...),
			withFlags: []string{"--tls-truststore", certs.CA, "--tls-truststore-password", "x"}},
		"ssl.keystore.password": {withProperty: append(x("ssl.keystore.location="+certs.ClientBundle, "ssl.keystore.password=x"), ssl...),
			withFlags: []string{"--tls-keystore", certs.ClientBundle, "--tls-keystore-password", "x"}},
		"tls.ca": {withProperty: x("tls.ca=" + certs.CA), withFlags: []string{"--tls-ca", certs.CA}},
		"tls.cert": {withProperty: []string{"--tls-key", certs.ClientKey, "-X", "tls.cert=" + certs.ClientCert},
			withFlags: []string{"--tls-key", certs.ClientKey, "--tls-cert", certs.ClientCert}},
		"tls.key": {withProperty: []string{"--tls-cert", certs.ClientCert, "-X", "tls.key=" + certs.ClientKey},
			withFlags: []string{"--tls-cert", certs.ClientCert, "--tls-key", certs.ClientKey}},
	}
	for name, e := range oauthEffects(certs.CA, x) {
		effects[name] = e
	}
	for _, name := range []string{"ssl.truststore.certificates", "ssl.keystore.certificate.chain", "ssl.keystore.key",
		"ssl.ca.pem", "ssl.certificate.pem", "ssl.key.pem"} {
		effects[name] = effect{withProperty: append(x(name+"=-----BEGIN CERTIFICATE-----"), ssl...), refused: true}
	}
	return effects
}

// oauthEffects are the tests of the OAUTHBEARER and AWS_MSK_IAM rows.
func oauthEffects(ca string, x func(...string) []string) map[string]effect {
	static := []string{"--sasl-mechanism", "OAUTHBEARER", "--sasl-token", "t"}
	rpk := []string{"--sasl-mechanism", "OAUTHBEARER", "--sasl-password", "token:t"}
	endpoint := []string{"--sasl-mechanism", "OAUTHBEARER", "--oauth-token-endpoint", "https://idp/token", "--oauth-client-id", "c", "--oauth-client-secret", "s"}
	unsecured := x("enable.sasl.oauthbearer.unsecure.jwt=true", "sasl.oauthbearer.config=principal=admin scope=a,b")
	effects := map[string]effect{
		"sasl.oauthbearer.token.endpoint.url": {base: append(slices.Clone(rpk), "--oauth-client-id", "c", "--oauth-client-secret", "s"),
			withProperty: x("sasl.oauthbearer.token.endpoint.url=https://idp/token"), withFlags: []string{"--oauth-token-endpoint", "https://idp/token"}},
		"sasl.oauthbearer.method":              {base: endpoint, withProperty: x("sasl.oauthbearer.method=oidc"), noEffect: true},
		"sasl.oauthbearer.scope":               {base: static, withProperty: x("sasl.oauthbearer.scope=kafka"), withFlags: []string{"--oauth-scope", "kafka"}},
		"https.ca.location":                    {base: static, withProperty: x("https.ca.location=" + ca), withFlags: []string{"--oauth-ca", ca}},
		"enable.sasl.oauthbearer.unsecure.jwt": {base: rpk, withProperty: unsecured, withFlags: []string{"--sasl-unsecured-jwt", "principal=admin scope=a,b"}},
		"sasl.oauthbearer.config":              {base: rpk, withProperty: unsecured, withFlags: []string{"--sasl-unsecured-jwt", "principal=admin scope=a,b"}},
		"sasl.oauthbearer.extensions": {base: static, withProperty: x("sasl.oauthbearer.extensions=logicalCluster=lkc-1,identityPoolId=pool-2"),
			withFlags: []string{"--oauth-extension", "logicalCluster=lkc-1", "--oauth-extension", "identityPoolId=pool-2"}},
		"sasl.login.callback.handler.class": {base: endpoint, noEffect: true,
			withProperty: x("sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler")},
		"sasl.client.callback.handler.class": {base: []string{"--sasl-mechanism", "AWS_MSK_IAM"}, noEffect: true,
			withProperty: x("sasl.client.callback.handler.class=software.amazon.msk.auth.iam.IAMClientCallbackHandler")},
	}
	for _, name := range []string{"sasl.oauthbearer.client.credentials.client.id", "sasl.oauthbearer.client.id"} {
		effects[name] = effect{base: static, withProperty: x(name + "=c"), withFlags: []string{"--oauth-client-id", "c"}}
	}
	for _, name := range []string{"sasl.oauthbearer.client.credentials.client.secret", "sasl.oauthbearer.client.secret"} {
		effects[name] = effect{base: static, withProperty: x(name + "=s"), withFlags: []string{"--oauth-client-secret", "s"}}
	}
	for name, flag := range map[string]string{"sasl.login.connect.timeout.ms": "--oauth-connect-timeout", "sasl.login.read.timeout.ms": "--oauth-read-timeout",
		"sasl.login.retry.backoff.ms": "--oauth-retry-backoff", "sasl.login.retry.backoff.max.ms": "--oauth-retry-backoff-max"} {
		effects[name] = effect{base: static, withProperty: x(name + "=2500"), withFlags: []string{flag, "2.5s"}}
	}
	return effects
}

// readerEffects are the tests of the line reader's properties.
func readerEffects() map[string]effect {
	x := func(kv ...string) []string {
		var out []string
		for _, p := range kv {
			out = append(out, "-X", p)
		}
		return out
	}
	headers := []string{"--header-delimiter", `\t`, "--header-separator", ",", "--header-key-separator", ":"}
	return map[string]effect{
		"parse.key":     {withProperty: x("parse.key=true"), withFlags: []string{"-K", `\t`, "--require-delimiters"}},
		"key.separator": {withProperty: x("parse.key=true", "key.separator=:"), withFlags: []string{"-K", ":", "--require-delimiters"}},
		"parse.headers": {withProperty: x("parse.headers=true"), withFlags: append(headers, "--require-delimiters")},
		"headers.delimiter": {withProperty: x("parse.headers=true", "headers.delimiter=|"),
			withFlags: []string{"--header-delimiter", "|", "--require-delimiters"}},
		"headers.separator": {withProperty: x("parse.headers=true", "headers.separator=;"),
			withFlags: []string{"--header-delimiter", `\t`, "--header-separator", ";", "--require-delimiters"}},
		"headers.key.separator": {withProperty: x("parse.headers=true", "headers.key.separator=="),
			withFlags: []string{"--header-delimiter", `\t`, "--header-key-separator", "=", "--require-delimiters"}},
		"null.marker":  {withProperty: x("null.marker=NULL"), withFlags: []string{"--null", "NULL"}},
		"ignore.error": {withProperty: x("parse.key=true", "ignore.error=true"), withFlags: []string{"-K", `\t`, "--require-delimiters=false"}},
	}
}

// TestEveryPropertyHasItsEffect walks the property table: every name of
// a mapped row sets the same options as kproduce's own flag, which differ
// from the defaults; the security, rpk and reader names do what their
// tests above say; an accepted name changes nothing silently; a knob
// changes nothing but warns once.
func TestEveryPropertyHasItsEffect(t *testing.T) {
	special := securityEffects(t)
	for k, v := range kerberosEffects(t) {
		special[k] = v
	}
	for k, v := range readerEffects() {
		special[k] = v
	}
	for k, v := range schemaEffects(t) {
		special[k] = v
	}
	for k, v := range compressionLevelEffects() {
		special[k] = v
	}
	tested := map[string]bool{}
	for _, row := range javaprops.Table() {
		for _, name := range row.Names() {
			if tested[name] {
				continue
			}
			tested[name] = true
			t.Run(name, func(t *testing.T) {
				if e, ok := special[name]; ok {
					checkEffect(t, e)
					return
				}
				switch row.Kind {
				case javaprops.Mapped:
					require.NotEmpty(t, row.Example, "a mapped row needs an example")
					m, err := javaprops.Map("-X", name, row.Example)
					require.NoError(t, err)
					checkEffect(t, effect{withProperty: []string{"-X", name + "=" + row.Example}, withFlags: []string{"--" + m.Key + "=" + m.Value}})
				case javaprops.Accepted:
					def, _ := comparableOptions(t, nil)
					o, stderr := comparableOptions(t, []string{"-X", name + "=false"})
					assert.Equal(t, def, o, "no effect")
					assert.Empty(t, stderr, "accepted silently")
				case javaprops.Knob:
					def, _ := comparableOptions(t, nil)
					o, stderr := comparableOptions(t, []string{"-X", name + "=1"})
					assert.Equal(t, def, o, "no effect")
					assert.Equal(t, 1, strings.Count(stderr, "has no equivalent"), "one warning: %s", stderr)
					assert.Contains(t, stderr, name)
				default:
					t.Fatalf("%s (%v) has no test", name, row.Kind)
				}
			})
		}
	}
	for name := range special {
		assert.True(t, tested[name], "%s is tested but not in the table", name)
	}
}

// checkEffect checks one property's effect.
func checkEffect(t *testing.T, e effect) {
	t.Helper()
	if e.refused {
		_, _, err := parseOptions(t, append([]string{"-t", "t"}, e.withProperty...)...)
		assert.True(t, cmdutil.IsUsageError(err), "refused: %v", err)
		return
	}
	base, _ := comparableOptions(t, e.base)
	withProp, stderr := comparableOptions(t, append(slices.Clone(e.base), e.withProperty...))
	assert.NotContains(t, stderr, "ignored", "the property is not ignored")
	if e.noEffect {
		assert.Equal(t, base, withProp, "accepted, no effect")
		return
	}
	if e.withFlags == nil {
		assert.NotEqual(t, base, withProp, "the property has an effect")
		return
	}
	withFlags, _ := comparableOptions(t, append(slices.Clone(e.base), e.withFlags...))
	assert.Equal(t, withFlags, withProp, "the property means %v", e.withFlags)
	assert.NotEqual(t, base, withProp, "the property has an effect")
}
