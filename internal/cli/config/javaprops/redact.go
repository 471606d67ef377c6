package javaprops

import "strings"

// Redact returns a copy of Java security properties that is safe to
// log: passwords, the properties the table marks secret and the password
// in a JAAS config are replaced.
func Redact(props map[string]string) map[string]string {
	out := make(map[string]string, len(props))
	for k, v := range props {
		p, known := Lookup(k)
		switch {
		case strings.Contains(strings.ToLower(k), "password"), known && p.Secret:
			out[k] = Redacted
		case known && p.Schema:
			out[k] = RedactURLs(v)
		case k == "sasl.jaas.config":
			out[k] = RedactJAAS(v)
		default:
			out[k] = v
		}
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

// Redacted replaces a secret in logs.
const Redacted = "[redacted]"

// RedactJAAS replaces the value of every password option in a JAAS config
// line (password="secret" or password=secret).
func RedactJAAS(s string) string {
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
			b.WriteString(`"` + Redacted + `"`)
		} else {
			b.WriteString(Redacted)
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
