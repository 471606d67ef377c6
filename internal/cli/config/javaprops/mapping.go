package javaprops

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kproduce/kproduce/internal/escape"
)

// Mapping is what one property given by the user means: its row's kind
// and, for a mapped property, the option it sets and the value in the
// option's syntax.
type Mapping struct {
	Kind Kind
	// Key is the option (Mapped), or the property's name (Security,
	// Reader: they are resolved together).
	Key string
	// Value is the option's value (Mapped) or the property's value.
	Value string
	// Warning, when not empty, is printed once: the property has no
	// effect (Unknown, Knob, or a value without an equivalent).
	Warning string
	// Schema says the property is a Schema Registry one, which Confluent's
	// schema console producers also take as line reader properties.
	Schema bool
}

// Map says what the property name=value means to kproduce. where names
// its source for warnings ("-X", "file.properties:3"). The error, for a
// value that does not parse or a setting kproduce cannot honour, names
// the property; it never quotes the value of a password.
func Map(where, name, value string) (Mapping, error) {
	p, ok := Lookup(name)
	if !ok || p.Kind != Reader {
		value = strings.TrimSpace(value) // a separator may be a space
	}
	if !ok {
		switch {
		case strings.HasPrefix(name, "ssl.") || strings.HasPrefix(name, "sasl."):
			// Resolved with the others: unknown ones are warned about
			// there, with the security protocol in view.
			return Mapping{Kind: Security, Key: name, Value: value}, nil
		}
		return Mapping{Kind: Unknown, Warning: fmt.Sprintf("%s: unknown property %s; ignored (kproduce -X help lists the known ones)", where, name)}, nil
	}
	switch p.Kind {
	case Security, Reader:
		return Mapping{Kind: p.Kind, Key: name, Value: value}, nil
	case Knob:
		return Mapping{Kind: Knob, Warning: fmt.Sprintf("%s: %s has no equivalent in kproduce (%s); ignored", where, name, p.Meaning)}, nil
	}
	v := value
	if p.Parse != nil {
		var err error
		if v, err = p.Parse(value); errors.Is(err, ErrNoEquivalent) {
			return Mapping{Kind: Knob, Warning: fmt.Sprintf("%s: %s=%s: %v; ignored", where, name, escape.QuoteClipped(RedactValue(name, value)), err)}, nil
		} else if err != nil {
			return Mapping{}, fmt.Errorf("%s: %s=%s: %w", where, name, escape.QuoteClipped(RedactValue(name, value)), err)
		}
	}
	if p.Kind == Accepted {
		return Mapping{Kind: Accepted, Schema: p.Schema}, nil
	}
	return Mapping{Kind: Mapped, Key: p.Option, Value: v, Schema: p.Schema}, nil
}
