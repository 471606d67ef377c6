package javaprops

import "strings"

// Redact returns a copy of Java security properties that is safe to
// log: the values of the properties the table marks Secret (and of any
// name holding "password" or "secret") are replaced, and so are the
// secret options of a JAAS config.
func Redact(props map[string]string) map[string]string {
	out := make(map[string]string, len(props))
	for k, v := range props {
		switch {
		case k == "sasl.jaas.config":
			out[k] = RedactJAAS(v)
		case IsSecret(k):
			out[k] = Redacted
		default:
			out[k] = v
		}
	}
	return out
}

// IsSecret reports whether the value of property name is a secret: its
// row in the table is marked Secret, or the name holds "password" or
// "secret".
func IsSecret(name string) bool {
	if p, ok := Lookup(name); ok && p.Secret {
		return true
	}
	lower := strings.ToLower(name)
	return strings.Contains(lower, "password") || strings.Contains(lower, "secret")
}

// jaasSecretOptions are the JAAS options whose values are secrets, as
// matched in RedactJAAS (case-insensitive, as a suffix of the option's
// name: password, clientSecret, awsSecretAccessKey...).
func jaasSecretOptions() []string { return []string{"password", "secret", "secretaccesskey", "token"} }

// Redacted replaces a secret in logs.
const Redacted = "[redacted]"

// RedactJAAS replaces the value of every secret option in a JAAS config
// line (password="secret", clientSecret=secret, ...).
func RedactJAAS(s string) string {
	var b strings.Builder
	lower := strings.ToLower(s)
	i := 0
	for {
		j, n := nextSecretOption(lower, i)
		if j < 0 {
			b.WriteString(s[i:])
			return b.String()
		}
		j += n
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
			b.WriteString(`"` + Redacted + `"`)
		} else {
			b.WriteString(Redacted)
		}
		i = end
	}
}

// nextSecretOption finds, from i, the next occurrence in lower of a
// secret option's name; it returns its index and length, -1 when none.
func nextSecretOption(lower string, i int) (int, int) {
	best, n := -1, 0
	for _, name := range jaasSecretOptions() {
		if j := strings.Index(lower[i:], name); j >= 0 && (best < 0 || i+j < best) {
			best, n = i+j, len(name)
		}
	}
	return best, n
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
