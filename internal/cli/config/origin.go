package config

import (
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
)

// origin says where an option's effective value came from: "flag
// --linger", "-X linger.ms", "env KPRODUCE_LINGER", "file:line" (with
// the profile), or "default", following the precedence of
// layeredValues.
func (r *resolver) origin(key string) string {
	if r.vals.flagChanged(key) {
		return "flag --" + key
	}
	if o, ok := r.overrides[key]; ok {
		return o
	}
	if v, ok := os.LookupEnv(envName(key)); ok && v != "" {
		return "env " + envName(key)
	}
	if o, ok := r.file.origins[key]; ok {
		return o
	}
	return "default"
}

// resolvedValues are the layered values with their origins: what the
// commands' option readers read, so that an error names where a bad
// value was given.
type resolvedValues struct {
	layeredValues
	r *resolver
}

// source is where key's value came from, "" when from its own flag or
// the default (see sourcedValues).
func (v resolvedValues) source(key string) string {
	switch o := v.r.origin(key); o {
	case "default", "flag --" + key:
		return ""
	default:
		return o
	}
}

// Setting is one option's effective value and where it came from.
type Setting struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Origin string `json:"origin"`
}

// Description is the effective configuration of the produce command, as
// kproduce config prints it.
type Description struct {
	// ConfigFile is the config file read ("" when none) and
	// ConfigOrigin how it was chosen.
	ConfigFile   string `json:"config_file"`
	ConfigOrigin string `json:"config_file_origin"`
	// Profile is the profile applied, "" when none.
	Profile  string    `json:"profile"`
	Settings []Setting `json:"settings"`
}

// Describe resolves the produce command's options from the flags fs
// (defined by AddFlags) as Load does, a topic not required, and returns
// every option's effective value and origin, secrets redacted. A value a
// rule between options derived (idempotence off with acks=1) is shown as
// derived, with its cause. Warnings go to stderr; its errors are usage
// errors.
func Describe(fs *pflag.FlagSet, stderr io.Writer) (*Description, error) {
	r, opts, err := resolveOptions(fs, stderr, func(vals optionValues) (*Options, []string, error) {
		return buildOptions(vals, nil, false)
	})
	if err != nil {
		return nil, err
	}
	d := &Description{ConfigFile: r.configFile, ConfigOrigin: r.configOrigin, Profile: r.file.profile}
	for _, spec := range optionSpecs() {
		st := Setting{Name: spec.Name, Value: r.displayValue(spec), Origin: r.origin(spec.Name)}
		if value, cause := opts.derivation(spec.Name, r.vals); cause != "" {
			st.Value, st.Origin = value, "derived: "+cause
		}
		d.Settings = append(d.Settings, st)
	}
	return d, nil
}

// displayValue is an option's effective value as text, secrets redacted.
func (r *resolver) displayValue(spec optionSpec) string {
	v := r.vals.Get(spec.Name)
	var s string
	if spec.Kind == kindList || spec.Kind == kindArray {
		l, _ := toList(v, spec.Kind == kindList)
		if spec.Name == "property" {
			for i, p := range l {
				name, value, _ := strings.Cut(p, "=")
				l[i] = name + "=" + javaprops.RedactValue(strings.TrimSpace(name), value)
			}
		}
		s = strings.Join(l, ",")
	} else {
		s, _ = toString(v)
	}
	if spec.URLs {
		s = javaprops.RedactURLs(s)
	}
	if spec.Secret && s != "" {
		return javaprops.Redacted
	}
	return s
}
