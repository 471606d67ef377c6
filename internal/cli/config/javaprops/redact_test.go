package javaprops

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRedactJAAS(t *testing.T) {
	tests := map[string]string{
		`M required username="u" password="p";`:                  `M required username="u" password="[redacted]";`,
		`M required password = "a \" b" user="x";`:               `M required password = "[redacted]" user="x";`,
		`M required password=plain;`:                             `M required password=[redacted];`,
		`M required PASSWORD="X" truststore.password=y;`:         `M required PASSWORD="[redacted]" truststore.password=[redacted];`,
		`M required passwordless="x";`:                           `M required passwordless="[redacted]";`,
		`M required clientId="c" clientSecret="s" tokenauth=x;`:  `M required clientId="c" clientSecret="[redacted]" tokenauth=x;`,
		`M required username="u" password="p"`:                   Redacted, // malformed: no ';'
		`M required password "hunter2";`:                         Redacted, // malformed: no '='
		`M required password="unterminated;`:                     Redacted,
		"M required username=\"J\xfcrgen\" password=\"SECRET\";": "M required username=\"J\xfcrgen\" password=\"[redacted]\";",
	}
	for in, want := range tests {
		assert.Equal(t, want, RedactJAAS(in), in)
	}
}

// TestRedactJAASWhateverTheText checks that bytes before the password
// whose lower case has another length, or that are not UTF-8 at all,
// neither show the password nor break the redaction.
func TestRedactJAASWhateverTheText(t *testing.T) {
	for name, user := range map[string]string{
		"Latin-1":           "J\xfcrgen",
		"dotted capital I":  "İİİİİİ",
		"Kelvin sign":       "KKKK",
		"Ohm sign":          "ΩΩΩΩΩ",
		"invalid UTF-8":     "\xff\xfe\xc3",
		"lone continuation": "\x80\x80\x80\x80\x80\x80\x80\x80",
	} {
		t.Run(name, func(t *testing.T) {
			for _, jaas := range []string{
				`org.apache.kafka.common.security.plain.PlainLoginModule required username="` + user + `" password="SECRETPLAIN1";`,
				`org.apache.kafka.common.security.plain.PlainLoginModule required username=` + user + ` password=SECRETPLAIN1;`,
				user + ` password=SECRETPLAIN1`,
				`M required ` + user + `="x" password="SECRETPLAIN1";`,
			} {
				got := RedactJAAS(jaas)
				assert.NotContains(t, got, "SECRETPLAIN1", jaas)
				assert.NotContains(t, RedactValue("sasl.jaas.config", jaas), "SECRETPLAIN1", jaas)
			}
		})
	}
	assert.NotPanics(t, func() { RedactJAAS("\xff password") })
	assert.Equal(t, Redacted, RedactJAAS("\xff password"))
}

func TestSecrecyOfTheTable(t *testing.T) {
	secret := []string{"sasl.password", "pass", "ssl.key.password", "ssl.keystore.password", "ssl.truststore.password",
		"ssl.keystore.key", "ssl.key.pem", "sasl.oauthbearer.client.secret", "sasl.oauthbearer.client.credentials.client.secret",
		"basic.auth.user.info", "bearer.auth.token"}
	for _, name := range secret {
		p, ok := Lookup(name)
		require.True(t, ok, name)
		assert.Equal(t, Secret, p.Secret, name)
		assert.Equal(t, Redacted, RedactValue(name, "x"), name)
	}
	assert.Equal(t, SecretOptions, SecrecyOf("sasl.jaas.config"))
	// A token endpoint's URL may hold a password in its user information.
	assert.Equal(t, URLPasswords, SecrecyOf("sasl.oauthbearer.token.endpoint.url"))
	assert.Equal(t, "https://app:"+Redacted+"@idp/token", RedactValue("sasl.oauthbearer.token.endpoint.url", "https://app:pw@idp/token"))
	assert.Equal(t, "https://idp/token", RedactValue("sasl.oauthbearer.token.endpoint.url", "https://idp/token"))
	for _, name := range []string{"bootstrap.servers", "tls.key", "ssl.key.location", "sasl.username", "user", "parse.key", "linger.ms"} {
		assert.Equal(t, Public, SecrecyOf(name), name)
		assert.Equal(t, "v", RedactValue(name, "v"), name)
	}
}

// TestSecrecyOfUnknownNames checks that the secrets of properties
// kproduce has no row for yet are not shown either.
func TestSecrecyOfUnknownNames(t *testing.T) {
	for _, name := range []string{"schema.registry.basic.auth.user.info", "schema.registry.ssl.keystore.password", "schema.registry.ssl.key.password",
		"Sasl.Password", "listener.name.x.sasl.jaas.config", "api.key", "some.credentials", "tls.PASS"} {
		_, known := Lookup(name)
		require.False(t, known, name)
		assert.NotEqual(t, Public, SecrecyOf(name), name)
		assert.NotContains(t, RedactValue(name, `M required password="SECRET";`), "SECRET", name)
	}
	assert.Equal(t, Public, SecrecyOf("socket.keepalive.enable"))
}

// TestSecretRowsLookSecret checks that every name of the table that looks
// like a secret is in a row marked secret, or is one of the few known to
// name a file or a separator: a secret row added without its mark fails
// here.
func TestSecretRowsLookSecret(t *testing.T) {
	notSecret := map[string]bool{"tls.key": true, "ssl.key.location": true, "parse.key": true, "key.separator": true,
		"key.serializer": true, "headers.key.separator": true, "ssl.ca.pem": true, "ssl.certificate.pem": true,
		// OAUTHBEARER's client id: a name, not a secret.
		"sasl.oauthbearer.client.credentials.client.id": true,
		// The Schema Registry's: where credentials come from, the key's
		// schema and subject, the path of the client key file.
		"basic.auth.credentials.source": true, "bearer.auth.credentials.source": true, "key.schema": true,
		"key.schema.file": true, "key.schema.id": true, "key.subject.name.strategy": true, "registry.tls.key": true}
	for _, p := range Table() {
		for _, name := range p.Names() {
			if notSecret[name] {
				assert.Equal(t, Public, p.Secret, name)
				continue
			}
			if looksSecret(name) {
				assert.NotEqual(t, Public, p.Secret, "%s looks like a secret: mark its row Secret", name)
			}
		}
	}
	assert.Equal(t, Redacted, Redact(map[string]string{"ssl.keystore.password": "a", "security.protocol": "SSL"})["ssl.keystore.password"])
	assert.Equal(t, "SSL", Redact(map[string]string{"security.protocol": "SSL"})["security.protocol"])
	assert.True(t, strings.Contains(RedactValue("sasl.jaas.config", `M required username="u" password="p";`), `username="u"`))
}
