package main

import (
	"fmt"
	"strings"
)

// javaKind says what kproduce does with a Java producer property.
type javaKind int

const (
	javaUnknown  javaKind = iota // not known: a warning
	javaMapped                   // the same as a kproduce option
	javaSecurity                 // kept verbatim in Options.JavaSecurity
	javaIgnored                  // known, has no meaning here: a warning
)

// mapJavaProperty says what a Java producer property means to kproduce. For
// a mapped property it returns the option key and the value in the
// option's syntax (Java's *.ms milliseconds become Go durations).
func mapJavaProperty(name, value string) (kind javaKind, key, val string, err error) {
	value = strings.TrimSpace(value)
	switch name {
	case "bootstrap.servers":
		return javaMapped, "brokers", value, nil
	case "acks":
		return javaMapped, "acks", value, nil
	case "batch.size":
		return javaMapped, "batch-size", value, nil
	case "buffer.memory":
		return javaMapped, "buffer-memory", value, nil
	case "max.request.size":
		return javaMapped, "max-request-size", value, nil
	case "compression.type":
		return javaMapped, "compression", value, nil
	case "enable.idempotence":
		return javaMapped, "idempotence", value, nil
	case "max.in.flight.requests.per.connection":
		return javaMapped, "max-in-flight", value, nil
	case "client.id":
		return javaMapped, "client-id", value, nil
	case "transactional.id":
		return javaMapped, "transactional-id", value, nil
	case "linger.ms", "delivery.timeout.ms", "request.timeout.ms", "retry.backoff.ms", "metadata.max.age.ms", "transaction.timeout.ms":
		d, err := javaMillis(value)
		if err != nil {
			return javaMapped, "", "", fmt.Errorf("%s=%q: %w", name, value, err)
		}
		return javaMapped, javaMillisOption(name), d, nil
	case "security.protocol", "sasl.mechanism", "sasl.jaas.config":
		return javaSecurity, name, value, nil
	case "partitioner.class", "key.serializer", "value.serializer":
		return javaIgnored, "", "", nil
	}
	if strings.HasPrefix(name, "ssl.") {
		return javaSecurity, name, value, nil
	}
	return javaUnknown, "", "", nil
}

// javaMillisOption is the option of a Java *.ms property.
func javaMillisOption(name string) string {
	switch name {
	case "linger.ms":
		return "linger"
	case "delivery.timeout.ms":
		return "delivery-timeout"
	case "request.timeout.ms":
		return "request-timeout"
	case "retry.backoff.ms":
		return "retry-backoff"
	case "transaction.timeout.ms":
		return "transaction-timeout"
	}
	return "metadata-max-age"
}

// javaWarning is the warning for a property that is not mapped.
func javaWarning(kind javaKind, where, name string) string {
	if kind == javaIgnored {
		return fmt.Sprintf("%s: Java property %s has no effect in kproduce; ignored", where, name)
	}
	return fmt.Sprintf("%s: unknown Java property %s; ignored", where, name)
}

// redactSecurity returns a copy of Java security properties that is safe to
// log: passwords and the password in a JAAS config are replaced.
func redactSecurity(props map[string]string) map[string]string {
	out := make(map[string]string, len(props))
	for k, v := range props {
		switch {
		case strings.Contains(strings.ToLower(k), "password"):
			out[k] = redacted
		case k == "sasl.jaas.config":
			out[k] = redactJAAS(v)
		default:
			out[k] = v
		}
	}
	return out
}

// redacted replaces a secret in logs.
const redacted = "[redacted]"

// redactJAAS replaces the value of every password option in a JAAS config
// line (password="secret" or password=secret).
func redactJAAS(s string) string {
	var b strings.Builder
	lower := strings.ToLower(s)
	i := 0
	for {
		j := strings.Index(lower[i:], "password")
		if j < 0 {
			b.WriteString(s[i:])
			return b.String()
		}
		j += i + len("password")
		k := j
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		if k >= len(s) || s[k] != '=' {
			b.WriteString(s[i:j])
			i = j
			continue
		}
		k++
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		b.WriteString(s[i:k])
		end := jaasValueEnd(s, k)
		if k < len(s) && s[k] == '"' {
			b.WriteString(`"` + redacted + `"`)
		} else {
			b.WriteString(redacted)
		}
		i = end
	}
}

// jaasValueEnd returns the end of the JAAS option value starting at s[k]: a
// double-quoted string (with backslash escapes) or a token ending at white
// space or ';'.
func jaasValueEnd(s string, k int) int {
	if k < len(s) && s[k] == '"' {
		for i := k + 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return len(s)
	}
	i := k
	for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != ';' {
		i++
	}
	return i
}
