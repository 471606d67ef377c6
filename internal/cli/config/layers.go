package config

import (
	"fmt"
	"io"
	"strings"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
)

// maxConfigFileBytes bounds the size of a config file.
const maxConfigFileBytes = 4 << 20

// envPrefix prefixes the environment variable of every option.
const envPrefix = "KPRODUCE"

// layeredValues layers option values: a flag given on the command line,
// then viper's layers (a value set by a property or another tool's flag,
// the environment, the config file, the flag's default).
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

// flagChanged reports whether the option's own flag was given.
func (l layeredValues) flagChanged(key string) bool {
	f := l.fs.Lookup(key)
	return f != nil && f.Changed
}

// resolver resolves the options of one command: it layers them and
// remembers where each value came from.
type resolver struct {
	vals layeredValues
	// file is what the config file gives; empty without one.
	file *configLayer
	// props holds the properties resolved together (security, the line
	// reader), from the config file and then the command line.
	props *propertyLayer
	// overrides are the origins of the values set at the flag level by a
	// property (-X) or another tool's flag, by option.
	overrides map[string]string
	// configFile is the config file read ("" when none) and
	// configOrigin says how it was chosen.
	configFile, configOrigin string
	warnings                 warningList
	// spellingHints caches the known property nearest to each unknown
	// name ("" for none; see mapProperty).
	spellingHints map[string]string
}

// newResolver binds fs to a fresh viper with the environment.
func newResolver(fs *pflag.FlagSet) (*resolver, error) {
	v := viper.New()
	if err := v.BindPFlags(fs); err != nil {
		return nil, fmt.Errorf("bind flags: %w", err)
	}
	v.SetEnvPrefix(envPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	return &resolver{
		vals:          layeredValues{fs: fs, v: v},
		file:          newConfigLayer(),
		props:         newPropertyLayer(),
		overrides:     map[string]string{},
		spellingHints: map[string]string{},
	}, nil
}

// Load resolves the options of one produce run from the flags fs (defined
// by AddFlags) and the FILE arguments args: flag > env KPRODUCE_* > config
// file > default, a property (-X) or another tool's flag counting as the
// flag it maps to. It builds the logger on stderr and logs the warnings
// found on the way. Its errors are usage errors listing every problem
// found.
func Load(fs *pflag.FlagSet, args []string, stderr io.Writer) (*Options, error) {
	args = ClaimOptionalValues(fs, args)
	_, opts, err := resolveOptions(fs, stderr, func(vals optionValues) (*Options, []string, error) {
		return buildOptions(vals, args, true)
	})
	if err != nil {
		return nil, err
	}
	logOptions(opts)
	return opts, nil
}

// resolveOptions is resolve for a command whose options are an Options
// (a produce run, kproduce config, a command making records of its own),
// which build reads and returns with the warnings to log.
func resolveOptions(fs *pflag.FlagSet, stderr io.Writer, build func(optionValues) (*Options, []string, error)) (*resolver, *Options, error) {
	var opts *Options
	r, err := resolve(fs, stderr, func(vals optionValues) (*Connection, []string, error) {
		o, warnings, err := build(vals)
		if err != nil {
			return nil, nil, err
		}
		opts = o
		return &o.Connection, warnings, nil
	})
	return r, opts, err
}

// resolve layers the option values and calls build to read them: the
// produce run's options, or a subcommand's connection options (see
// LoadConnection), of which build returns the Connection part. Options
// whose flag fs lacks still come from the environment and the config
// file, where build asks for them. resolve then completes the Connection:
// the security properties, the TLS configuration and SASL mechanism, and
// the logger. It returns the resolver, for the origins of the values.
func resolve(fs *pflag.FlagSet, stderr io.Writer, build func(optionValues) (*Connection, []string, error)) (*resolver, error) {
	r, err := newResolver(fs)
	if err != nil {
		return nil, err
	}
	js, err := r.layer()
	if err != nil {
		return nil, cmdutil.AsUsageError(err)
	}
	conn, w, err := build(resolvedValues{r.vals, r})
	if err != nil {
		return nil, err
	}
	conn.JavaSecurity = r.props.security
	conn.ConfigFile = r.configFile
	if err := conn.finishSecurity(js); err != nil {
		return nil, cmdutil.AsUsageError(err)
	}
	conn.Logger = cmdutil.NewLogger(stderr, conn.LogLevel)
	if conn.LogLevel <= zerolog.WarnLevel {
		conn.NoticeOut = stderr
	}
	r.warnings.addAll(w)
	for _, msg := range r.warnings.list() {
		conn.Logger.Warn().Msg(msg)
	}
	conn.Logger.Debug().Fields(conn.Security.logFields()).Msg("security")
	return r, nil
}

// layer stacks the layers below the command line's flags: the config
// file, rpk's environment variables, the properties and other tools' flags, the derived security and
// reader settings. It returns what the security properties mean.
func (r *resolver) layer() (*javaprops.SecuritySettings, error) {
	if err := r.readConfig(); err != nil {
		return nil, err
	}
	if err := r.readRPKEnv(); err != nil {
		return nil, err
	}
	props, err := r.commandLineProperties()
	if err != nil {
		return nil, err
	}
	if err := r.applyProperties(props); err != nil {
		return nil, err
	}
	reader, err := javaprops.ResolveReader(r.props.reader)
	if err != nil {
		return nil, fmt.Errorf("line reader properties: %w", err)
	}
	if err := r.applyDerived(reader); err != nil {
		return nil, err
	}
	js, err := javaprops.ResolveSecurity(r.props.security, r.securityContext())
	if err != nil {
		return nil, err
	}
	if err := r.applyDerived(js.Derived); err != nil {
		return nil, err
	}
	r.warnings.addAll(js.Warnings)
	r.applyVerbosity()
	r.applyLineReader()
	r.warnings.addAll(r.envWarnings())
	return js, nil
}

// securityContext says whether kproduce's own options, before any
// property, turn TLS and SASL on.
func (r *resolver) securityContext() javaprops.SecurityContext {
	rd := &optionReader{vals: r.vals}
	var ctx javaprops.SecurityContext
	if r.vals.IsSet("tls") {
		ctx.TLS = rd.boolean("tls")
	} else {
		for _, k := range []string{"tls-ca", "tls-cert", "tls-key", "tls-keystore", "tls-truststore", "tls-server-name"} {
			ctx.TLS = ctx.TLS || strings.TrimSpace(rd.str(k)) != ""
		}
		ctx.TLS = ctx.TLS || (r.vals.IsSet("tls-insecure-skip-verify") && rd.boolean("tls-insecure-skip-verify"))
	}
	// SASL credentials (rpk's -X user and pass among them) and token
	// sources ask for SASL
	// too: a sasl.mechanism property then says which.
	ctx.SASL = strings.TrimSpace(rd.str("sasl-mechanism")) != "" || rd.str("sasl-username") != ""
	// A password given on the command line (rpk's -X pass, which may be
	// an OAUTHBEARER token) asks for SASL as a user name does.
	_, passOverride := r.overrides["sasl-password"]
	ctx.SASL = ctx.SASL || r.vals.flagChanged("sasl-password") || passOverride
	for _, k := range []string{"sasl-token", "sasl-token-file", "oauth-token-endpoint", "sasl-unsecured-jwt"} {
		ctx.SASL = ctx.SASL || strings.TrimSpace(rd.str(k)) != ""
	}
	return ctx
}

// finishSecurity applies what only the security properties say (host
// name verification, SASL required by security.protocol) and builds the
// TLS configuration and the SASL mechanism.
func (o *Connection) finishSecurity(js *javaprops.SecuritySettings) error {
	o.Security.TLSSkipHostnameVerify = js.SkipHostnameVerify
	if strings.HasPrefix(js.Protocol, "SASL_") && o.Security.SASLMechanism == "" {
		return fmt.Errorf("security.protocol=%s needs sasl.mechanism (or --sasl-mechanism): one of %s",
			js.Protocol, strings.Join(javaprops.SASLMechanisms(), ", "))
	}
	return o.Security.build()
}
