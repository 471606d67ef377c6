package javaprops

import "strings"

// Redacted replaces a secret in logs.
const Redacted = "[redacted]"

// Secrecy says whether the value of a property is a secret: a column of
// the property table (Setting.Secret), so that a row added for a new
// secret property is redacted everywhere by being added.
type Secrecy int

const (
	// Public values are shown as they are.
	Public Secrecy = iota
	// Secret values (passwords, keys, client secrets, tokens) are never
	// shown: every output shows Redacted instead.
	Secret
	// SecretOptions values are JAAS configurations: shown with the value
	// of every secret option (password=, clientSecret=, ...) redacted.
	SecretOptions
	// URLPasswords values are URLs (a comma-separated list of them): shown
	// with the password of their user information redacted
	// (https://user:[redacted]@host/path).
	URLPasswords
)

// SecrecyOf says whether the value of the property name is a secret. The
// table decides for the names it holds; a name it does not hold is taken
// for a secret when it looks like one (a part password, secret, token,
// credentials or key, "user.info", a JAAS config), so that a property
// kproduce does not know yet is not shown either.
func SecrecyOf(name string) Secrecy {
	if p, ok := Lookup(name); ok {
		return p.Secret
	}
	if strings.HasSuffix(foldASCII(name), "jaas.config") {
		return SecretOptions
	}
	if looksSecret(name) {
		return Secret
	}
	return Public
}

// looksSecret reports whether a property name looks like that of a
// secret.
func looksSecret(name string) bool {
	folded := foldASCII(name)
	if strings.Contains(folded, "password") || strings.Contains(folded, "secret") || strings.Contains(folded, "user.info") ||
		strings.HasSuffix(folded, "jaas.config") {
		return true
	}
	for part := range strings.FieldsFuncSeq(folded, func(r rune) bool { return r == '.' || r == '_' || r == '-' }) {
		switch part {
		case "pass", "passwd", "pwd", "token", "credentials", "credential", "key", "pem":
			return true
		}
	}
	return false
}

// RedactValue returns the value of the property name as it may be shown:
// Redacted for a secret (an empty value stays empty: it hides nothing),
// a JAAS configuration with its secret options redacted, any other value
// as it is.
func RedactValue(name, value string) string {
	switch SecrecyOf(name) {
	case Secret:
		if value == "" {
			return ""
		}
		return Redacted
	case SecretOptions:
		return RedactJAAS(value)
	case URLPasswords:
		return RedactURLs(value)
	}
	if p, ok := Lookup(name); ok && p.Schema {
		return RedactURLs(value) // a registry URL may hold user:password
	}
	return value
}

// Redact returns a copy of properties that is safe to show: every value
// as RedactValue shows it.
func Redact(props map[string]string) map[string]string {
	out := make(map[string]string, len(props))
	for k, v := range props {
		out[k] = RedactValue(k, v)
	}
	return out
}

// RedactURLs replaces the password of every URL in a comma-separated
// list (http://user:password@host).
func RedactURLs(list string) string {
	parts := strings.Split(list, ",")
	for i, p := range parts {
		parts[i] = redactURL(p)
	}
	return strings.Join(parts, ",")
}

// redactURL replaces the password in a URL's user information.
func redactURL(s string) string {
	scheme := strings.Index(s, "://")
	if scheme < 0 {
		return s
	}
	rest := s[scheme+3:]
	authority := rest
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		authority = rest[:end]
	}
	at := strings.LastIndexByte(authority, '@')
	colon := strings.IndexByte(authority, ':')
	if at < 0 || colon < 0 || colon > at {
		return s
	}
	return s[:scheme+3] + authority[:colon+1] + Redacted + rest[at:]
}

// RedactJAAS returns a JAAS configuration with the value of every secret
// option (see IsSecretJAASOption) replaced, the rest of the text as it
// is. It reads the text with ParseJAAS's own scanner, byte by byte, so
// that what is redacted is exactly what kproduce would send; a text that
// does not parse is replaced whole (how its author meant it to split is
// unknown).
func RedactJAAS(s string) string {
	cfg, err := ParseJAAS(s)
	if err != nil {
		return Redacted
	}
	var b strings.Builder
	last := 0
	for _, sp := range cfg.spans {
		if !IsSecretJAASOption(sp.Name) {
			continue
		}
		b.WriteString(s[last:sp.Start])
		if s[sp.Start] == '"' {
			b.WriteString(`"` + Redacted + `"`)
		} else {
			b.WriteString(Redacted)
		}
		last = sp.End
	}
	b.WriteString(s[last:])
	return b.String()
}

// IsSecretJAASOption reports whether the value of the JAAS option name is
// a secret: its name (ASCII letters folded) holds password, secret or
// credential, or ends in token (password=, clientSecret=,
// truststore.password=, ...).
func IsSecretJAASOption(name string) bool {
	n := foldASCII(name)
	return strings.Contains(n, "password") || strings.Contains(n, "secret") || strings.Contains(n, "credential") ||
		strings.HasSuffix(n, "token")
}

// foldASCII lower-cases the ASCII letters of s and leaves every other
// byte as it is: the result has the length and the offsets of s, whatever
// s holds (Latin-1 bytes, invalid UTF-8, letters whose lower case has
// another length).
func foldASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
