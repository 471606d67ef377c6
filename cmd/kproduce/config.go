package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/kproduce/kproduce/pkg/network"
)

// maxConfigFileBytes bounds the size of a config file.
const maxConfigFileBytes = 4 << 20

// envPrefix prefixes the environment variable of every option.
const envPrefix = "KPRODUCE"

// layeredValues layers option values: a flag given on the command line,
// then viper's layers (a -X override, the environment, the config file, the
// flag's default).
type layeredValues struct {
	fs *pflag.FlagSet
	v  *viper.Viper
}

// Get returns an option's value. Flags given on the command line are read
// from the flag set directly, so repeatable values keep their exact text.
func (l layeredValues) Get(key string) any {
	if f := l.fs.Lookup(key); f != nil && f.Changed {
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			return sv.GetSlice()
		}
		return f.Value.String()
	}
	return l.v.Get(key)
}

// IsSet reports whether any source other than the default gave the option.
func (l layeredValues) IsSet(key string) bool {
	if f := l.fs.Lookup(key); f != nil && f.Changed {
		return true
	}
	return l.v.IsSet(key)
}

// configLayer is what a config file contributes.
type configLayer struct {
	values   map[string]any    // option key -> value
	security map[string]string // Java security properties
	warnings []string
}

// loadOptions resolves the options of one run (flag > env KPRODUCE_* >
// config file > default, -X counting as the flag it maps to), builds the
// logger on stderr and logs the warnings found on the way.
func loadOptions(fs *pflag.FlagSet, args []string, stderr io.Writer) (*Options, error) {
	return resolveOptions(fs, stderr, func(vals optionValues) (*Options, []string, error) {
		return buildOptions(vals, args)
	})
}

// resolveOptions is loadOptions with the reading of the layered values
// left to build: the producer's options, or a subcommand's connection
// options (see loadConnectionOptions). Options whose flag fs lacks still
// come from the environment and the config file, where build asks for
// them.
func resolveOptions(fs *pflag.FlagSet, stderr io.Writer, build func(optionValues) (*Options, []string, error)) (*Options, error) {
	v := viper.New()
	if err := v.BindPFlags(fs); err != nil {
		return nil, fmt.Errorf("bind flags: %w", err)
	}
	v.SetEnvPrefix(envPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	vals := layeredValues{fs: fs, v: v}

	layer := &configLayer{values: map[string]any{}, security: map[string]string{}}
	if path, err := toString(vals.Get("config")); err != nil {
		return nil, usageErrorf("--config: %w", err)
	} else if path != "" {
		if layer, err = readConfigFile(path); err != nil {
			return nil, asUsageError(err)
		}
		if err := v.MergeConfigMap(layer.values); err != nil {
			return nil, usageErrorf("config file %s: %w", path, err)
		}
	}
	fromX := map[string]bool{}
	warnings, err := applyProperties(vals, layer.security, fromX)
	if err != nil {
		return nil, asUsageError(err)
	}
	js, err := resolveJavaSecurity(layer.security)
	if err != nil {
		return nil, asUsageError(err)
	}
	w, err := applyJavaSecurity(vals, js, fromX)
	if err != nil {
		return nil, asUsageError(err)
	}
	warnings = append(append(warnings, js.warnings...), w...)
	opts, w, err := build(vals)
	if err != nil {
		return nil, err
	}
	opts.JavaSecurity = layer.security
	if err := opts.finishSecurity(js); err != nil {
		return nil, asUsageError(err)
	}
	opts.Logger = newLogger(stderr, opts.LogLevel)
	for _, msg := range append(append(layer.warnings, warnings...), w...) {
		opts.Logger.Warn().Msg(msg)
	}
	logOptions(opts)
	opts.Logger.Debug().Fields(opts.Security.logFields()).Msg("security")
	return opts, nil
}

// applyJavaSecurity applies the option values the Java security properties
// give: those from a -X property as a viper override (the flag level),
// unless the option's own flag was given; the others at the config file
// level. It returns warnings for the overridden ones.
func applyJavaSecurity(vals layeredValues, js *javaSecuritySettings, fromX map[string]bool) ([]string, error) {
	var warnings []string
	fileLevel := map[string]any{}
	for _, d := range js.derived {
		if !slices.ContainsFunc(d.props, func(p string) bool { return fromX[p] }) {
			fileLevel[d.key] = d.value
			continue
		}
		if f := vals.fs.Lookup(d.key); f != nil && f.Changed {
			warnings = append(warnings, fmt.Sprintf("-X %s ignored for --%s: --%s was given", d.props[0], d.key, d.key))
			continue
		}
		vals.v.Set(d.key, d.value)
	}
	if len(fileLevel) == 0 {
		return warnings, nil
	}
	if err := vals.v.MergeConfigMap(fileLevel); err != nil {
		return nil, fmt.Errorf("java security properties: %w", err)
	}
	return warnings, nil
}

// finishSecurity applies what only Java properties say (host name
// verification, SASL required by security.protocol) and builds the TLS
// configuration and the SASL mechanism.
func (o *Options) finishSecurity(js *javaSecuritySettings) error {
	o.Security.TLSSkipHostnameVerify = js.skipHostnameVerify
	if strings.HasPrefix(js.protocol, "SASL_") && o.Security.SASLMechanism == "" {
		return fmt.Errorf("security.protocol=%s needs sasl.mechanism (or --sasl-mechanism): one of %s"+
			" (GSSAPI, Java's default, is not supported)", js.protocol, strings.Join(network.SASLMechanisms(), ", "))
	}
	return o.Security.build()
}

// applyProperties applies the -X properties: a mapped property becomes a
// viper override (the flag level), unless its own flag was given on the
// command line, which wins; security properties go into security (over
// the config file's) and their names into fromX. It returns warnings for
// properties that are unknown, ignored or overridden.
func applyProperties(vals layeredValues, security map[string]string, fromX map[string]bool) ([]string, error) {
	props, err := toList(vals.Get("property"), false)
	if err != nil {
		return nil, fmt.Errorf("--property: %w", err)
	}
	var warnings []string
	for _, p := range props {
		name, value, ok := strings.Cut(p, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("--property %q: %w: want KEY=VALUE", p, errBadValue)
		}
		kind, key, val, err := mapJavaProperty(name, value)
		if err != nil {
			return nil, fmt.Errorf("--property: %w", err)
		}
		switch kind {
		case javaMapped:
			if f := vals.fs.Lookup(key); f != nil && f.Changed {
				warnings = append(warnings, fmt.Sprintf("-X %s ignored: --%s was given", name, key))
				continue
			}
			vals.v.Set(key, val)
		case javaSecurity:
			security[key] = val
			fromX[key] = true
		default:
			warnings = append(warnings, javaWarning(kind, "-X", name))
		}
	}
	return warnings, nil
}

// readConfigFile reads a --config file: a Java .properties file by its
// extension, YAML otherwise.
func readConfigFile(path string) (*configLayer, error) {
	data, err := readSmallFile(path, maxConfigFileBytes)
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	layer := &configLayer{values: map[string]any{}, security: map[string]string{}}
	if strings.EqualFold(filepath.Ext(path), ".properties") {
		err = layer.addProperties(path, string(data))
	} else {
		err = layer.addYAML(data)
	}
	if err != nil {
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	return layer, nil
}

// readSmallFile reads a whole file of at most limit bytes.
func readSmallFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return data, nil
}

// addProperties adds the properties of a Java producer config file.
func (l *configLayer) addProperties(path, text string) error {
	props, err := parseProperties(text)
	if err != nil {
		return err
	}
	for _, p := range props {
		where := fmt.Sprintf("%s:%d", path, p.Line)
		if err := l.addJava(where, p.Key, p.Value); err != nil {
			return fmt.Errorf("line %d: %w", p.Line, err)
		}
	}
	return nil
}

// addJava adds one Java property at the config file level.
func (l *configLayer) addJava(where, name, value string) error {
	kind, key, val, err := mapJavaProperty(name, value)
	switch {
	case err != nil:
		return err
	case kind == javaMapped:
		l.values[key] = val
	case kind == javaSecurity:
		l.security[key] = val
	default:
		l.warnings = append(l.warnings, javaWarning(kind, where, name))
	}
	return nil
}

// addYAML adds a kproduce YAML config: a flat map whose keys are long flag
// names. An unknown key is an error naming it. Keys are read as written (a
// node walk, not a map decode), so that a key such as null is not lost.
func (l *configLayer) addYAML(data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("not a YAML map of options: %w", err)
	}
	if len(doc.Content) == 0 { // an empty file
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("not a YAML map of options (line %d)", root.Line)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, vn := root.Content[i], root.Content[i+1]
		spec, ok := lookupSpec(k.Value)
		if k.Kind != yaml.ScalarNode || !ok || spec.NoConfig {
			return fmt.Errorf("line %d: unknown key %q (keys are the long flag names, e.g. brokers, topic, linger)", k.Line, k.Value)
		}
		var value any
		if err := vn.Decode(&value); err != nil {
			return fmt.Errorf("line %d: key %q: %w", vn.Line, k.Value, err)
		}
		if err := l.addYAMLValue(k.Value, value); err != nil {
			return fmt.Errorf("line %d: %w", vn.Line, err)
		}
	}
	return nil
}

// addYAMLValue adds one YAML key. property takes a map of Java properties
// or a list of KEY=VALUE; other keys take a value or a list.
func (l *configLayer) addYAMLValue(key string, value any) error {
	if value == nil {
		return nil
	}
	if key == "property" {
		return l.addYAMLProperties(value)
	}
	switch value.(type) {
	case map[string]any:
		return fmt.Errorf("key %q: a value or a list expected, not a map", key)
	case []any:
		if spec, _ := lookupSpec(key); spec.Kind != kindList && spec.Kind != kindArray {
			return fmt.Errorf("key %q: one value expected, not a list", key)
		}
	}
	l.values[key] = value
	return nil
}

// addYAMLProperties adds the Java properties of the YAML property key.
func (l *configLayer) addYAMLProperties(value any) error {
	where := "config key property"
	if m, ok := value.(map[string]any); ok {
		for _, name := range slices.Sorted(maps.Keys(m)) {
			s, err := toString(m[name])
			if err != nil {
				return fmt.Errorf("property %s: %w", name, err)
			}
			if err := l.addJava(where, name, s); err != nil {
				return err
			}
		}
		return nil
	}
	list, err := toList(value, false)
	if err != nil {
		return fmt.Errorf("key property: %w", err)
	}
	for _, p := range list {
		name, val, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("key property: %q: %w: want KEY=VALUE", p, errBadValue)
		}
		if err := l.addJava(where, strings.TrimSpace(name), val); err != nil {
			return err
		}
	}
	return nil
}
