package javaprops

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// inlinePEMProperties hold PEM text in the property itself (Java's and
// librdkafka's names): not supported.
var inlinePEMProperties = []string{
	"ssl.truststore.certificates", "ssl.keystore.certificate.chain", "ssl.keystore.key",
	"ssl.ca.pem", "ssl.certificate.pem", "ssl.key.pem",
}

// readSSL maps the ssl.* properties: Java's stores (PKCS #12, JKS, PEM)
// and librdkafka's PEM files and PKCS #12 key store, the passwords,
// certificate and host name verification.
func (js *SecuritySettings) readSSL(props map[string]string) error {
	for _, name := range inlinePEMProperties {
		if _, ok := props[name]; ok {
			return fmt.Errorf("%s (PEM in the property) is not supported: put the PEM in a file and give its location (ssl.truststore.location, ssl.ca.location, ...)", name)
		}
	}
	if err := js.readStore(props, "truststore"); err != nil {
		return err
	}
	if err := js.readStore(props, "keystore"); err != nil {
		return err
	}
	js.readLibrdkafkaFiles(props)
	if pw, ok := props["ssl.key.password"]; ok {
		if _, _, key := lookupAny(props, "ssl.keystore.location", "ssl.key.location"); key {
			js.add("tls-key-password", pw, "ssl.key.password")
		}
	}
	if err := js.readVerification(props); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if strings.HasPrefix(name, "ssl.") && !isMappedSSLProperty(name) {
			js.Warnings = append(js.Warnings, fmt.Sprintf("property %s has no effect in kproduce (TLS 1.2 or later with Go's defaults); ignored", name))
		}
	}
	return nil
}

// readLibrdkafkaFiles maps librdkafka's ssl.ca.location (probe: the
// system's CAs), ssl.certificate.location and ssl.key.location.
func (js *SecuritySettings) readLibrdkafkaFiles(props map[string]string) {
	if ca, ok := props["ssl.ca.location"]; ok && !strings.EqualFold(strings.TrimSpace(ca), "probe") {
		js.add("tls-ca", strings.TrimSpace(ca), "ssl.ca.location")
	}
	if cert, ok := props["ssl.certificate.location"]; ok {
		js.add("tls-cert", strings.TrimSpace(cert), "ssl.certificate.location")
	}
	if key, ok := props["ssl.key.location"]; ok {
		js.add("tls-key", strings.TrimSpace(key), "ssl.key.location")
	}
}

// readVerification maps ssl.endpoint.identification.algorithm (https, or
// empty / none to check the chain only) and librdkafka's
// enable.ssl.certificate.verification.
func (js *SecuritySettings) readVerification(props map[string]string) error {
	if alg, ok := props["ssl.endpoint.identification.algorithm"]; ok {
		switch strings.ToLower(strings.TrimSpace(alg)) {
		case "", "none":
			js.SkipHostnameVerify = true
		case "https":
		default:
			return fmt.Errorf("ssl.endpoint.identification.algorithm %q: %w: want https, or empty (none) to check the certificate chain only", alg, ErrBadValue)
		}
	}
	if v, ok := props["enable.ssl.certificate.verification"]; ok {
		b, err := parseBool(v)
		if err != nil {
			return fmt.Errorf("enable.ssl.certificate.verification %q: %w", v, err)
		}
		if b == "false" {
			js.add("tls-insecure-skip-verify", "true", "enable.ssl.certificate.verification")
		}
	}
	return nil
}

// isMappedSSLProperty reports whether readSSL uses name.
func isMappedSSLProperty(name string) bool {
	switch name {
	case "ssl.truststore.location", "ssl.truststore.type", "ssl.truststore.password",
		"ssl.keystore.location", "ssl.keystore.type", "ssl.keystore.password",
		"ssl.key.password", "ssl.endpoint.identification.algorithm",
		"ssl.ca.location", "ssl.certificate.location", "ssl.key.location":
		return true
	}
	return false
}

// readStore maps ssl.<store>.location and ssl.<store>.password onto the
// --tls-<store> options. The store's content decides its format (PEM,
// JKS or PKCS #12, as Java's keystore.type.compat does); the type
// property is checked, not trusted.
func (js *SecuritySettings) readStore(props map[string]string, store string) error {
	if typ, ok := props["ssl."+store+".type"]; ok {
		switch strings.ToUpper(strings.TrimSpace(typ)) {
		case "", "PEM", "JKS", "PKCS12":
		default:
			return fmt.Errorf("ssl.%s.type %q: %w: want PKCS12, JKS or PEM", store, typ, ErrBadValue)
		}
	}
	location, ok := props["ssl."+store+".location"]
	if !ok {
		return nil
	}
	js.add("tls-"+store, strings.TrimSpace(location), "ssl."+store+".location")
	if pw, ok := props["ssl."+store+".password"]; ok {
		js.add("tls-"+store+"-password", pw, "ssl."+store+".password")
	}
	return nil
}
