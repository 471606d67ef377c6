package config

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
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

// Load resolves the options of one produce run from the flags fs (defined
// by AddFlags) and the FILE arguments args: flag > env KPRODUCE_* > config
// file > default, -X counting as the flag it maps to. It builds the logger
// on stderr and logs the warnings found on the way. Its errors are usage
// errors listing every problem found.
func Load(fs *pflag.FlagSet, args []string, stderr io.Writer) (*Options, error) {
	var opts *Options
	err := resolve(fs, stderr, func(vals optionValues) (*Connection, []string, error) {
		o, warnings, err := buildOptions(vals, args)
		if err != nil {
			return nil, nil, err
		}
		opts = o
		return &o.Connection, warnings, nil
	})
	if err != nil {
		return nil, err
	}
	logOptions(opts)
	return opts, nil
}

// resolve layers the option values and calls build to read them: the
// produce run's options, or a subcommand's connection options (see
// LoadConnection), of which build returns the Connection part. Options
// whose flag fs lacks still come from the environment and the config
// file, where build asks for them. resolve then completes the Connection:
// the Java security properties, the TLS configuration and SASL mechanism,
// and the logger.
func resolve(fs *pflag.FlagSet, stderr io.Writer, build func(optionValues) (*Connection, []string, error)) error {
	v := viper.New()
	if err := v.BindPFlags(fs); err != nil {
		return fmt.Errorf("bind flags: %w", err)
	}
	v.SetEnvPrefix(envPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	vals := layeredValues{fs: fs, v: v}

	layer := &configLayer{values: map[string]any{}, security: map[string]string{}}
	if path, err := toString(vals.Get("config")); err != nil {
		return cmdutil.UsageErrorf("--config: %w", err)
	} else if path != "" {
		if layer, err = readConfigFile(path); err != nil {
			return cmdutil.AsUsageError(err)
		}
		if err := v.MergeConfigMap(layer.values); err != nil {
			return cmdutil.UsageErrorf("config file %s: %w", path, err)
		}
	}
	fromX := map[string]bool{}
	warnings, err := applyProperties(vals, layer.security, fromX)
	if err != nil {
		return cmdutil.AsUsageError(err)
	}
	js, err := javaprops.ResolveSecurity(layer.security)
	if err != nil {
		return cmdutil.AsUsageError(err)
	}
	w, err := applyJavaSecurity(vals, js, fromX)
	if err != nil {
		return cmdutil.AsUsageError(err)
	}
	warnings = append(append(warnings, js.Warnings...), w...)
	conn, w, err := build(vals)
	if err != nil {
		return err
	}
	conn.JavaSecurity = layer.security
	if err := conn.finishSecurity(js); err != nil {
		return cmdutil.AsUsageError(err)
	}
	conn.Logger = cmdutil.NewLogger(stderr, conn.LogLevel)
	if conn.LogLevel <= zerolog.WarnLevel {
		conn.NoticeOut = stderr
	}
	for _, msg := range append(append(layer.warnings, warnings...), w...) {
		conn.Logger.Warn().Msg(msg)
	}
	conn.Logger.Debug().Fields(conn.Security.logFields()).Msg("security")
	return nil
}

// applyJavaSecurity applies the option values the Java security properties
// give: those from a -X property as a viper override (the flag level),
// unless the option's own flag was given; the others at the config file
// level. It returns warnings for the overridden ones.
func applyJavaSecurity(vals layeredValues, js *javaprops.SecuritySettings, fromX map[string]bool) ([]string, error) {
	var warnings []string
	fileLevel := map[string]any{}
	for _, d := range js.Derived {
		if !slices.ContainsFunc(d.Props, func(p string) bool { return fromX[p] }) {
			fileLevel[d.Key] = d.Value
			continue
		}
		if f := vals.fs.Lookup(d.Key); f != nil && f.Changed {
			warnings = append(warnings, fmt.Sprintf("-X %s ignored for --%s: --%s was given", d.Props[0], d.Key, d.Key))
			continue
		}
		vals.v.Set(d.Key, d.Value)
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
func (o *Connection) finishSecurity(js *javaprops.SecuritySettings) error {
	o.Security.TLSSkipHostnameVerify = js.SkipHostnameVerify
	if strings.HasPrefix(js.Protocol, "SASL_") && o.Security.SASLMechanism == "" {
		return fmt.Errorf("security.protocol=%s needs sasl.mechanism (or --sasl-mechanism): one of %s"+
			" (GSSAPI, Java's default, is not supported)", js.Protocol, strings.Join(network.SASLMechanisms(), ", "))
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
			return nil, fmt.Errorf("--property %q: %w: want KEY=VALUE", p, ErrBadValue)
		}
		kind, key, val, err := javaprops.Map(name, value)
		if err != nil {
			return nil, fmt.Errorf("--property: %w", err)
		}
		switch kind {
		case javaprops.Mapped:
			if f := vals.fs.Lookup(key); f != nil && f.Changed {
				warnings = append(warnings, fmt.Sprintf("-X %s ignored: --%s was given", name, key))
				continue
			}
			vals.v.Set(key, val)
		case javaprops.Security:
			security[key] = val
			fromX[key] = true
		default:
			warnings = append(warnings, javaprops.Warning(kind, "-X", name))
		}
	}
	return warnings, nil
}
