package javaprops

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kproduce/kproduce/internal/tlsconf"
	"github.com/kproduce/kproduce/pkg/network"
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

// ResolveSecurity reads the Java security properties the way the Java
// producer does: security.protocol decides whether the sasl.* and ssl.*
// properties apply (without it, the protocol is PLAINTEXT and they have no
// effect). Errors never quote secrets.
func ResolveSecurity(props map[string]string) (*SecuritySettings, error) {
	js := &SecuritySettings{Protocol: strings.ToUpper(strings.TrimSpace(props["security.protocol"]))}
	switch js.Protocol {
	case "":
	case protocolPlaintext, protocolSASLPlaintext:
		js.add("tls", "false", "security.protocol")
	case protocolSSL, protocolSASLSSL:
		js.add("tls", "true", "security.protocol")
	default:
		return nil, fmt.Errorf("security.protocol %q: %w: want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", props["security.protocol"], ErrBadValue)
	}
	useSASL := js.Protocol == protocolSASLPlaintext || js.Protocol == protocolSASLSSL
	useSSL := js.Protocol == protocolSSL || js.Protocol == protocolSASLSSL
	for _, name := range slices.Sorted(maps.Keys(props)) {
		switch {
		case strings.HasPrefix(name, "sasl.") && !useSASL:
			js.Warnings = append(js.Warnings, fmt.Sprintf("Java property %s has no effect without security.protocol=SASL_PLAINTEXT or SASL_SSL; ignored", name))
		case strings.HasPrefix(name, "ssl.") && !useSSL:
			js.Warnings = append(js.Warnings, fmt.Sprintf("Java property %s has no effect without security.protocol=SSL or SASL_SSL; ignored", name))
		}
	}
	if useSASL {
		if err := js.readSASL(props); err != nil {
			return nil, err
		}
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

// readSASL maps sasl.mechanism and sasl.jaas.config.
func (js *SecuritySettings) readSASL(props map[string]string) error {
	if m, ok := props["sasl.mechanism"]; ok {
		m = strings.ToUpper(strings.TrimSpace(m))
		if !slices.Contains(network.SASLMechanisms(), m) {
			return fmt.Errorf("sasl.mechanism %q: %w: kproduce supports %s", m, ErrBadValue, strings.Join(network.SASLMechanisms(), ", "))
		}
		js.add("sasl-mechanism", m, "sasl.mechanism")
	}
	if text, ok := props["sasl.jaas.config"]; ok {
		jaas, err := ParseJAAS(text)
		if err != nil {
			return fmt.Errorf("sasl.jaas.config: %w", err)
		}
		module := jaas.Module[strings.LastIndexByte(jaas.Module, '.')+1:]
		if module != "PlainLoginModule" && module != "ScramLoginModule" {
			return fmt.Errorf("sasl.jaas.config: login module %s is not supported: kproduce supports PlainLoginModule and ScramLoginModule", jaas.Module)
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
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if strings.HasPrefix(name, "sasl.") && name != "sasl.mechanism" && name != "sasl.jaas.config" {
			js.Warnings = append(js.Warnings, fmt.Sprintf("Java property %s has no effect in kproduce; ignored", name))
		}
	}
	return nil
}

// readSSL maps the ssl.* properties: PEM stores, the key password and
// host name verification.
func (js *SecuritySettings) readSSL(props map[string]string) error {
	if err := js.readStore(props, "truststore", "tls-ca"); err != nil {
		return err
	}
	if err := js.readStore(props, "keystore", "tls-cert", "tls-key"); err != nil {
		return err
	}
	if pw, ok := props["ssl.key.password"]; ok {
		if _, keystore := props["ssl.keystore.location"]; keystore {
			js.add("tls-key-password", pw, "ssl.key.password")
		}
	}
	if alg, ok := props["ssl.endpoint.identification.algorithm"]; ok {
		switch strings.ToLower(strings.TrimSpace(alg)) {
		case "":
			js.SkipHostnameVerify = true
		case "https":
		default:
			js.Warnings = append(js.Warnings, fmt.Sprintf("ssl.endpoint.identification.algorithm %q is unknown; the host name is verified", alg))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if strings.HasPrefix(name, "ssl.") && !isMappedSSLProperty(name) {
			js.Warnings = append(js.Warnings, fmt.Sprintf("Java property %s has no effect in kproduce (TLS 1.2 or later with Go's defaults); ignored", name))
		}
	}
	return nil
}

// isMappedSSLProperty reports whether readSSL uses name (or ignores it on
// purpose: a PEM store has no store password).
func isMappedSSLProperty(name string) bool {
	switch name {
	case "ssl.truststore.location", "ssl.truststore.type", "ssl.truststore.password",
		"ssl.keystore.location", "ssl.keystore.type", "ssl.keystore.password",
		"ssl.key.password", "ssl.endpoint.identification.algorithm":
		return true
	}
	return false
}

// readStore maps ssl.<store>.location onto options when the store is PEM.
// A JKS or PKCS12 store is an error saying how to convert it; inline PEM
// (ssl.truststore.certificates, ssl.keystore.key) is not supported.
func (js *SecuritySettings) readStore(props map[string]string, store string, keys ...string) error {
	for _, inline := range []string{"ssl." + store + ".certificates", "ssl." + store + ".certificate.chain", "ssl." + store + ".key"} {
		if _, ok := props[inline]; ok {
			return fmt.Errorf("%s (PEM in the property) is not supported: put the PEM in a file and give ssl.%s.location with ssl.%s.type=PEM",
				inline, store, store)
		}
	}
	location, ok := props["ssl."+store+".location"]
	if !ok {
		return nil
	}
	location = strings.TrimSpace(location)
	switch typ := strings.ToUpper(strings.TrimSpace(props["ssl."+store+".type"])); typ {
	case "", "PEM":
	case "JKS", "PKCS12":
		format := tlsconf.FormatJKS
		if typ == "PKCS12" {
			format = tlsconf.FormatPKCS12
		}
		return fmt.Errorf("ssl.%s.type=%s: kproduce reads PEM stores only. %s", store, typ, tlsconf.ConvertHint(store, format))
	default:
		return fmt.Errorf("ssl.%s.type %q: %w: want PEM", store, typ, ErrBadValue)
	}
	for _, key := range keys {
		js.add(key, location, "ssl."+store+".location", "ssl."+store+".type")
	}
	return nil
}
