package javaprops

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The values of Kafka's security.protocol.
const (
	protocolPlaintext     = "PLAINTEXT"
	protocolSSL           = "SSL"
	protocolSASLPlaintext = "SASL_PLAINTEXT"
	protocolSASLSSL       = "SASL_SSL"
)

// Derived is an option value given by Java security properties.
type Derived struct {
	// Key is the option's name (a long flag name) and Value its value.
	Key, Value string
	// Props are the properties it comes from.
	Props []string
}

// SecuritySettings is what the Java security properties mean to kproduce.
type SecuritySettings struct {
	// Derived are option values, applied at the level of the properties
	// they come from (-X: the flag level; a config file: its level).
	Derived []Derived
	// Protocol is security.protocol in upper case; "" when not given.
	Protocol string
	// SkipHostnameVerify: ssl.endpoint.identification.algorithm is empty.
	SkipHostnameVerify bool
	// Warnings are about properties that have no effect.
	Warnings []string
}

// SecurityContext says whether kproduce's own options (flags, environment,
// config file keys, not properties) turn TLS and SASL on. It decides
// whether the ssl.* and sasl.* properties apply when security.protocol is
// not given.
type SecurityContext struct {
	TLS, SASL bool
}

// ResolveSecurity reads the security properties (Java's and librdkafka's
// names) the way both clients do: security.protocol decides whether the
// sasl.* and ssl.* properties apply; without it, kproduce's own options
// do (--tls, the --tls-* options, --sasl-mechanism), and otherwise the
// connection is plaintext and they have no effect. Errors never quote
// secrets.
func ResolveSecurity(props map[string]string, ctx SecurityContext) (*SecuritySettings, error) {
	js := &SecuritySettings{Protocol: strings.ToUpper(strings.TrimSpace(props["security.protocol"]))}
	useSSL, useSASL := ctx.TLS, ctx.SASL
	switch js.Protocol {
	case "":
	case protocolPlaintext, protocolSASLPlaintext:
		js.add("tls", "false", "security.protocol")
		useSSL, useSASL = false, js.Protocol == protocolSASLPlaintext
	case protocolSSL, protocolSASLSSL:
		js.add("tls", "true", "security.protocol")
		useSSL, useSASL = true, js.Protocol == protocolSASLSSL
	default:
		return nil, fmt.Errorf("security.protocol %q: %w: want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", props["security.protocol"], ErrBadValue)
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		switch {
		case (strings.HasPrefix(name, "sasl.") || name == "https.ca.location" || name == "enable.sasl.oauthbearer.unsecure.jwt") && !useSASL:
			js.Warnings = append(js.Warnings, fmt.Sprintf("property %s has no effect without security.protocol=SASL_PLAINTEXT or SASL_SSL (or --sasl-mechanism); ignored", name))
		case (strings.HasPrefix(name, "ssl.") || name == "enable.ssl.certificate.verification") && !useSSL:
			js.Warnings = append(js.Warnings, fmt.Sprintf("property %s has no effect without security.protocol=SSL or SASL_SSL (or --tls); ignored", name))
		}
	}
	if useSASL {
		if err := js.readSASL(props); err != nil {
			return nil, err
		}
		js.defaultGSSAPI(props, ctx)
	}
	if useSSL {
		if err := js.readSSL(props); err != nil {
			return nil, err
		}
	}
	return js, nil
}

// add records an option value derived from props.
func (js *SecuritySettings) add(key, value string, props ...string) {
	js.Derived = append(js.Derived, Derived{Key: key, Value: value, Props: props})
}

// lookupAny returns the first of names that props holds.
func lookupAny(props map[string]string, names ...string) (name, value string, ok bool) {
	for _, n := range names {
		if v, ok := props[n]; ok {
			return n, v, true
		}
	}
	return "", "", false
}

// readSASL maps the mechanism (sasl.mechanism, or librdkafka's
// sasl.mechanisms), sasl.jaas.config and librdkafka's sasl.username and
// sasl.password.
func (js *SecuritySettings) readSASL(props map[string]string) error {
	if name, m, ok := lookupAny(props, "sasl.mechanism", "sasl.mechanisms"); ok {
		m = strings.ToUpper(strings.TrimSpace(m))
		if !slices.Contains(SASLMechanisms(), m) {
			return fmt.Errorf("%s %q: %w: kproduce supports %s", name, m, ErrBadValue, strings.Join(SASLMechanisms(), ", "))
		}
		js.add("sasl-mechanism", m, name)
	}
	if text, ok := props["sasl.jaas.config"]; ok {
		_, mech, _ := lookupAny(props, "sasl.mechanism", "sasl.mechanisms")
		if err := js.readJAAS(text, strings.ToUpper(strings.TrimSpace(mech))); err != nil {
			return err
		}
	}
	js.readKerberos(props)
	if u, ok := props["sasl.username"]; ok {
		js.add("sasl-username", u, "sasl.username")
	}
	if p, ok := props["sasl.password"]; ok {
		js.add("sasl-password", p, "sasl.password")
	}
	if err := js.readOAuth(props); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if p, known := Lookup(name); strings.HasPrefix(name, "sasl.") && (!known || p.Kind != Security) {
			js.Warnings = append(js.Warnings, fmt.Sprintf("property %s has no effect in kproduce; ignored", name))
		}
	}
	return nil
}

// defaultGSSAPI makes GSSAPI the mechanism, as it is in the Java client
// and librdkafka, when security.protocol asks for SASL and nothing names
// a mechanism or other credentials.
func (js *SecuritySettings) defaultGSSAPI(props map[string]string, ctx SecurityContext) {
	if !strings.HasPrefix(js.Protocol, "SASL_") || ctx.SASL {
		return
	}
	for _, d := range js.Derived {
		if strings.HasPrefix(d.Key, "sasl-") {
			return
		}
	}
	js.add("sasl-mechanism", "GSSAPI", "security.protocol")
}

// loginModules are the JAAS login modules kproduce reads, with the
// mechanisms each is for.
func loginModules() map[string][]string {
	return map[string][]string{
		"PlainLoginModule": {"PLAIN"}, "ScramLoginModule": {"SCRAM-SHA-256", "SCRAM-SHA-512"},
		"OAuthBearerLoginModule": {"OAUTHBEARER"}, "IAMLoginModule": {"AWS_MSK_IAM"}, "Krb5LoginModule": {"GSSAPI"},
	}
}

// readJAAS maps the options of sasl.jaas.config; mech is the mechanism
// the properties name ("" when they name none), which the login module
// must be for.
func (js *SecuritySettings) readJAAS(text, mech string) error {
	jaas, err := ParseJAAS(text)
	if err != nil {
		return fmt.Errorf("sasl.jaas.config: %w", err)
	}
	module := jaas.Module[strings.LastIndexByte(jaas.Module, '.')+1:]
	if want, ok := loginModules()[module]; ok && mech != "" && !slices.Contains(want, mech) {
		return fmt.Errorf("sasl.jaas.config: login module %s is not supported with sasl.mechanism=%s: it is for %s",
			jaas.Module, mech, strings.Join(want, " or "))
	}
	switch module {
	case "PlainLoginModule", "ScramLoginModule":
	case "Krb5LoginModule":
		return js.readKrb5JAAS(jaas)
	case "OAuthBearerLoginModule":
		js.readOAuthJAAS(jaas.Options)
		return nil
	case "IAMLoginModule":
		js.readIAMJAAS(jaas.Options)
		return nil
	default:
		return fmt.Errorf("sasl.jaas.config: login module %s is not supported: kproduce supports PlainLoginModule, ScramLoginModule,"+
			" Krb5LoginModule, OAuthBearerLoginModule and IAMLoginModule", jaas.Module)
	}
	if strings.EqualFold(jaas.Options["tokenauth"], "true") {
		return fmt.Errorf("sasl.jaas.config: delegation tokens (tokenauth=true) are not supported")
	}
	if u, ok := jaas.Options["username"]; ok {
		js.add("sasl-username", u, "sasl.jaas.config")
	}
	if p, ok := jaas.Options["password"]; ok {
		js.add("sasl-password", p, "sasl.jaas.config")
	}
	return nil
}
