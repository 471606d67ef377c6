package oauth

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Claims are the claims of a JWT that errors and lifetimes need. They are
// read without verifying the signature: the broker verifies it.
type Claims struct {
	Subject  string
	Audience []string
	Scope    []string
	// Expiry and IssuedAt are zero when the claim is missing.
	Expiry, IssuedAt time.Time
}

// ParseClaims reads the claims of a JWT (header.payload.signature); ok is
// false when token is not one (an opaque token).
func ParseClaims(token string) (c Claims, ok bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return Claims{}, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return Claims{}, false
	}
	var raw struct {
		Sub   string          `json:"sub"`
		Aud   json.RawMessage `json:"aud"`
		Scope json.RawMessage `json:"scope"`
		Scp   json.RawMessage `json:"scp"`
		Exp   *float64        `json:"exp"`
		Iat   *float64        `json:"iat"`
	}
	if err := json.Unmarshal(payload, &raw); err != nil {
		return Claims{}, false
	}
	c = Claims{Subject: raw.Sub, Audience: stringOrList(raw.Aud, false), Expiry: unixTime(raw.Exp), IssuedAt: unixTime(raw.Iat)}
	if c.Scope = stringOrList(raw.Scope, true); c.Scope == nil {
		c.Scope = stringOrList(raw.Scp, true)
	}
	return c, true
}

// Summary names the claims for an error message: sub, aud, scope and exp.
func (c Claims) Summary() string {
	var parts []string
	if c.Subject != "" {
		parts = append(parts, "sub="+quoteIfNeeded(c.Subject))
	}
	if len(c.Audience) > 0 {
		parts = append(parts, "aud="+quoteIfNeeded(strings.Join(c.Audience, ",")))
	}
	if len(c.Scope) > 0 {
		parts = append(parts, "scope="+quoteIfNeeded(strings.Join(c.Scope, " ")))
	}
	if !c.Expiry.IsZero() {
		parts = append(parts, "exp="+c.Expiry.UTC().Format(time.RFC3339))
	}
	if len(parts) == 0 {
		return "none of sub, aud, scope, exp"
	}
	return strings.Join(parts, " ")
}

func quoteIfNeeded(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	if strings.ContainsAny(s, " \t\"") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// The range of a claim's time: years 1 to 9999 (beyond int64's range a
// conversion wraps around, a time far ahead read as one long past).
const (
	minUnixSeconds = -62135596800
	maxUnixSeconds = 253402300799
)

func unixTime(f *float64) time.Time {
	if f == nil {
		return time.Time{}
	}
	v := min(max(*f, minUnixSeconds), maxUnixSeconds)
	sec := int64(v)
	return time.Unix(sec, int64((v-float64(sec))*1e9))
}

func stringOrList(raw json.RawMessage, split bool) []string {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if split {
			return strings.Fields(s)
		}
		return []string{s}
	}
	var l []string
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil
	}
	return l
}
