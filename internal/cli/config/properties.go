package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
)

// propArg is one property given on the command line: with -X (or
// KPRODUCE_PROPERTY), as another tool's flag, or by a reader properties
// file.
type propArg struct {
	name, value string
	// origin says where it was given: "-X linger.ms", "flag --timeout".
	origin string
	// readerOnly properties must be line reader properties
	// (--reader-property, --reader-config).
	readerOnly bool
}

// propertyLayer holds the properties that are read together: the
// security properties and the line reader's. Command-line ones replace
// the config file's.
type propertyLayer struct {
	security, reader map[string]string
	// origins says where each property came from.
	origins map[string]string
	// fromCommandLine marks the properties given on the command line:
	// what they derive counts as a flag.
	fromCommandLine map[string]bool
}

// newPropertyLayer returns an empty layer.
func newPropertyLayer() *propertyLayer {
	return &propertyLayer{security: map[string]string{}, reader: map[string]string{},
		origins: map[string]string{}, fromCommandLine: map[string]bool{}}
}

// add keeps a security or reader property.
func (p *propertyLayer) add(kind javaprops.Kind, name, value, origin string, commandLine bool) {
	if kind == javaprops.Reader {
		p.reader[name] = value
	} else {
		p.security[name] = value
	}
	p.origins[name] = origin
	p.fromCommandLine[name] = commandLine
}

// derivedOrigin is the origin of a value derived from props: that of the
// first of them given, on the command line when commandLine is set.
func (p *propertyLayer) derivedOrigin(props []string, commandLine bool) string {
	for _, name := range props {
		if o, ok := p.origins[name]; ok && (!commandLine || p.fromCommandLine[name]) {
			return o
		}
	}
	return ""
}

// commandLineProperties returns the properties of the command line in the
// order they apply (a later one wins): a reader properties file,
// KPRODUCE_PROPERTY or -X, --reader-property, then other tools' flags
// (which, as in kafka-console-producer, beat --producer-property).
func (r *resolver) commandLineProperties() ([]propArg, error) {
	args, err := r.readerConfigProperties()
	if err != nil {
		return nil, err
	}
	list, err := toList(r.vals.Get("property"), false)
	if err != nil {
		return nil, fmt.Errorf("--property: %w", err)
	}
	for _, p := range list {
		a, err := splitProperty("--property", p)
		if err != nil {
			return nil, err
		}
		a.origin = "-X " + a.name
		if !r.vals.flagChanged("property") {
			a.origin = "env " + envName("property") + " (" + a.name + ")"
		}
		args = append(args, a)
	}
	if f := dialectFlag(r.vals.fs, flagReaderProperty); f != nil {
		for _, p := range f.Value.(pflag.SliceValue).GetSlice() {
			a, err := splitProperty("--"+flagReaderProperty, p)
			if err != nil {
				return nil, err
			}
			a.origin, a.readerOnly = "flag --"+flagReaderProperty+" "+a.name, true
			args = append(args, a)
		}
	}
	other, err := dialectProperties(r.vals.fs)
	if err != nil {
		return nil, err
	}
	return append(args, other...), nil
}

// splitProperty splits a KEY=VALUE property given with flag.
func splitProperty(flag, p string) (propArg, error) {
	name, value, ok := strings.Cut(p, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return propArg{}, fmt.Errorf("%s %q: %w: want KEY=VALUE", flag, p, ErrBadValue)
	}
	return propArg{name: name, value: value}, nil
}

// applyProperties applies the command line's properties: a mapped one
// sets its option at the flag level, unless the option's own flag was
// given, which wins; security and reader properties are kept (over the
// config file's) to be read together.
func (r *resolver) applyProperties(props []propArg) error {
	for _, p := range props {
		m, err := r.mapProperty(p.origin, p.name, p.value)
		if err != nil {
			return err
		}
		if p.readerOnly && m.Kind != javaprops.Reader && !m.Schema {
			return fmt.Errorf("%s: %w: not a line reader property (parse.key, key.separator, parse.headers, headers.delimiter, headers.separator, headers.key.separator, null.marker, ignore.error); producer properties go to -X",
				p.origin, ErrBadValue)
		}
		switch m.Kind {
		case javaprops.Mapped:
			if r.vals.flagChanged(m.Key) {
				r.warnings.add(fmt.Sprintf("%s ignored: --%s was given", p.origin, m.Key))
				continue
			}
			value := m.Value
			if _, earlier := r.overrides[m.Key]; earlier && accumulates(m.Key) {
				value = fmt.Sprint(r.vals.v.Get(m.Key)) + "," + value
			}
			r.vals.v.Set(m.Key, value)
			r.overrides[m.Key] = p.origin
		case javaprops.Security, javaprops.Reader:
			r.props.add(m.Kind, p.name, m.Value, p.origin, true)
		}
		if m.Warning != "" {
			r.warnings.add(m.Warning)
		}
	}
	return nil
}

// maxSpellingHints bounds how many distinct unknown property names are
// compared with the known ones: a file of a million made-up names is
// read in linear time, its first names still getting their hint.
const maxSpellingHints = 64

// mapProperty is javaprops.Map that names the property meant by a
// misspelt name: an unknown name, or an ssl. or sasl. one no row names
// (which would otherwise be told to need a security protocol), close to
// a known one is a warning naming that one, and is ignored as every
// unknown property is.
func (r *resolver) mapProperty(where, name, value string) (javaprops.Mapping, error) {
	m, err := javaprops.Map(where, name, value)
	if err != nil {
		return m, err
	}
	if _, known := javaprops.Lookup(name); known {
		return m, nil
	}
	near, seen := r.spellingHints[name]
	if !seen && len(r.spellingHints) < maxSpellingHints {
		near = cmdutil.Nearest(name, javaprops.Names(), 2)
		r.spellingHints[name] = near
	}
	if near == "" {
		return m, nil
	}
	return javaprops.Mapping{Kind: javaprops.Unknown,
		Warning: fmt.Sprintf("%s: unknown property %s; ignored (did you mean %s?)", where, name, near)}, nil
}

// accumulates reports whether the properties that set an option add to
// its value rather than replace it: --compression-level, whose items
// CODEC:LEVEL come from Java's per-codec compression.gzip.level,
// compression.lz4.level and compression.zstd.level, which all apply (each
// to its codec).
func accumulates(key string) bool { return key == "compression-level" }

// applyDerived applies option values derived from properties read
// together: at the flag level when one of their properties was given on
// the command line (unless the option's own flag was given), else at the
// config file's level.
func (r *resolver) applyDerived(derived []javaprops.Derived) error {
	fileLevel := map[string]any{}
	for _, d := range derived {
		commandLine := slices.ContainsFunc(d.Props, func(p string) bool { return r.props.fromCommandLine[p] })
		origin := r.props.derivedOrigin(d.Props, commandLine)
		if !commandLine {
			fileLevel[d.Key] = d.Value
			r.file.origins[d.Key] = origin
			continue
		}
		if r.vals.flagChanged(d.Key) {
			r.warnings.add(fmt.Sprintf("%s ignored for --%s: --%s was given", origin, d.Key, d.Key))
			continue
		}
		r.vals.v.Set(d.Key, d.Value)
		r.overrides[d.Key] = origin
	}
	if len(fileLevel) == 0 {
		return nil
	}
	if err := r.vals.v.MergeConfigMap(fileLevel); err != nil {
		return fmt.Errorf("properties: %w", err)
	}
	return nil
}
