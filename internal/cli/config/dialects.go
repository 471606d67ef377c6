package config

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
	"github.com/kproduce/kproduce/internal/fsutil"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// Other tools' flags that kproduce accepts with their meaning: another
// name for a kproduce flag (an alias), or a flag whose value is a Java
// property (kafka-console-producer's flags in milliseconds). They are
// hidden from the help; docs/coming-from.md lists them.

// flagReaderProperty is kafka-console-producer's --reader-property
// (KIP-1147): line reader properties only.
const flagReaderProperty = "reader-property"

// flagAliases maps other tools' long flag names onto kproduce's. The map
// is built once, when first asked for: pflag normalises every flag name it
// defines or looks up, hundreds of times a run.
var flagAliases = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"bootstrap-server":           "brokers",         // kafka-console-producer
		"broker-list":                "brokers",         // kafka-console-producer (deprecated)
		"producer-property":          "property",        // kafka-console-producer
		"command-property":           "property",        // kafka-console-producer (KIP-1147)
		"producer.config":            "config",          // kafka-console-producer
		"command-config":             "config",          // kafka-console-producer (KIP-1147)
		"request-required-acks":      "acks",            // kafka-console-producer
		"max-memory-bytes":           "buffer-memory",   // kafka-console-producer
		"max-partition-memory-bytes": "batch-size",      // kafka-console-producer
		"output-format":              "output",          // rpk topic produce
		"max-message-bytes":          "batch-size",      // rpk topic produce
		"schema-id":                  "value-schema-id", // rpk topic produce
		"schema-key-id":              "key-schema-id",   // rpk topic produce
		"schema-type":                "value-type",      // rpk topic produce
		"schema-key-type":            "key-type",        // rpk topic produce
		"user":                       "sasl-username",   // rpk (deprecated for -X user, still taken)
		"password":                   "sasl-password",   // rpk (deprecated for -X pass, still taken)
		"tls-enabled":                "tls",             // rpk (deprecated for -X tls.enabled, still taken)
	}
})

// AliasNames are the other tools' long flag names that kproduce takes as
// another name of one of its flags.
func AliasNames() []string {
	var names []string
	for name := range flagAliases() {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// normalizeFlag makes an alias name the kproduce flag it stands for.
func normalizeFlag(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if to, ok := flagAliases()[name]; ok {
		return pflag.NormalizedName(to)
	}
	return pflag.NormalizedName(name)
}

// propertyFlag is another tool's flag whose value is a property.
type propertyFlag struct {
	name, property, usage string
	// noOptDefault is the value of the flag given without one.
	noOptDefault string
}

// propertyFlags are kafka-console-producer's flags that set a producer
// property, with its units (milliseconds).
func propertyFlags() []propertyFlag {
	return []propertyFlag{
		{name: "timeout", property: "linger.ms", usage: "kafka-console-producer: linger.ms"},
		{name: "request-timeout-ms", property: "request.timeout.ms", usage: "kafka-console-producer: request.timeout.ms"},
		{name: "retry-backoff-ms", property: "retry.backoff.ms", usage: "kafka-console-producer: retry.backoff.ms"},
		{name: "metadata-expiry-ms", property: "metadata.max.age.ms", usage: "kafka-console-producer: metadata.max.age.ms"},
		{name: "max-block-ms", property: "max.block.ms", usage: "kafka-console-producer: max.block.ms"},
		{name: "message-send-max-retries", property: "retries", usage: "kafka-console-producer: retries"},
		{name: "socket-buffer-size", property: "send.buffer.bytes", usage: "kafka-console-producer: send.buffer.bytes"},
		{name: "compression-codec", property: "compression.type", noOptDefault: "gzip", usage: "kafka-console-producer: compression.type (gzip without a value)"},
	}
}

// The other tools' flags kproduce takes without a property.
const (
	flagReaderConfig = "reader-config" // kafka-console-producer: a file of line reader properties
	flagLineReader   = "line-reader"   // kafka-console-producer: a Java reader class
	flagReader       = "reader"        // kafka-console-producer (KIP-1147): the same
	flagKcatProduce  = "produce"       // kcat -P: kproduce only produces
	flagKcatLines    = "lines"         // kcat -l: FILEs are read as lines, kproduce's default
	flagKcatQuiet    = "quiet"         // kcat -q
	flagKcatVerbose  = "verbose"       // kcat -v, -vv
)

// dialectAnnotation marks the flags addDialectFlags defines, so that a
// subcommand's own flag of the same name (check --timeout) is not taken
// for one.
const dialectAnnotation = "kproduce-dialect"

// dialectFlag returns the flag name of fs when addDialectFlags defined
// it and it was given, nil otherwise.
func dialectFlag(fs *pflag.FlagSet, name string) *pflag.Flag {
	f := fs.Lookup(name)
	if f == nil || !f.Changed || f.Annotations[dialectAnnotation] == nil {
		return nil
	}
	return f
}

// addDialectFlags defines the other tools' flags on fs, hidden, and the
// aliases of kproduce's flags.
func addDialectFlags(fs *pflag.FlagSet) {
	for _, p := range propertyFlags() {
		fs.String(p.name, "", p.usage)
		if p.noOptDefault != "" {
			fs.Lookup(p.name).NoOptDefVal = p.noOptDefault
		}
	}
	fs.StringArray(flagReaderProperty, nil, "kafka-console-producer: a line reader property KEY=VALUE")
	fs.String(flagReaderConfig, "", "kafka-console-producer: a file of line reader properties")
	fs.String(flagLineReader, "", "kafka-console-producer: a Java reader class (LineMessageReader, or a Confluent schema reader)")
	fs.String(flagReader, "", "kafka-console-producer: a Java reader class (LineMessageReader, or a Confluent schema reader)")
	fs.BoolP(flagKcatProduce, "P", false, "kcat: produce mode (kproduce only produces)")
	fs.BoolP(flagKcatLines, "l", false, "kcat: FILEs are read as lines (kproduce's default)")
	fs.BoolP(flagKcatQuiet, "q", false, "kcat: quiet (-o none --log-level error)")
	fs.CountP(flagKcatVerbose, "v", "kcat: more logs (-v info, -vv debug, -vvv trace)")
	names := []string{flagReaderProperty, flagReaderConfig, flagLineReader, flagReader,
		flagKcatProduce, flagKcatLines, flagKcatQuiet, flagKcatVerbose}
	for _, p := range propertyFlags() {
		names = append(names, p.name)
	}
	for _, name := range names {
		_ = fs.MarkHidden(name) // defined just above
		_ = fs.SetAnnotation(name, dialectAnnotation, []string{"true"})
	}
	fs.SetNormalizeFunc(normalizeFlag)
}

// dialectProperties returns the properties other tools' flags give, in
// the order of propertyFlags. A Java reader class is a usage error.
func dialectProperties(fs *pflag.FlagSet) ([]propArg, error) {
	for _, name := range []string{flagLineReader, flagReader} {
		if f := dialectFlag(fs, name); f != nil && !isLineMessageReader(f.Value.String()) &&
			javaprops.ConfluentReaderFormat(f.Value.String()) == "" {
			return nil, fmt.Errorf("--%s %s: %w: kproduce cannot run Java reader classes. It reads lines as LineMessageReader does "+
				"(--property parse.key=true, parse.headers=true, ...), JSON objects (-f json), whole files (-f file) "+
				"and rpk-style format strings (-f '%%k %%v\\n'), and reads JSON for Confluent's AvroMessageReader, "+
				"ProtobufMessageReader and JsonSchemaMessageReader (io.confluent.kafka.formatter.*)", name, f.Value.String(), ErrBadValue)
		}
	}
	var out []propArg
	for _, p := range propertyFlags() {
		if f := dialectFlag(fs, p.name); f != nil {
			out = append(out, propArg{name: p.property, value: f.Value.String(), origin: "flag --" + p.name})
		}
	}
	return out, nil
}

// isLineMessageReader reports whether class names the console producer's
// default reader, which kproduce is.
func isLineMessageReader(class string) bool {
	class = strings.TrimSpace(class)
	return class == "org.apache.kafka.tools.LineMessageReader" || class == "kafka.tools.LineMessageReader" ||
		class == "kafka.common.MessageReader" || class == "LineMessageReader"
}

// readerConfigProperties reads the --reader-config file: line reader
// properties only, each at the flag level (below --property).
func (r *resolver) readerConfigProperties() ([]propArg, error) {
	f := dialectFlag(r.vals.fs, flagReaderConfig)
	if f == nil {
		return nil, nil
	}
	path := f.Value.String()
	data, err := fsutil.ReadFile(path, maxConfigFileBytes)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flagReaderConfig, err)
	}
	props, err := javaprops.ParseProperties(string(data))
	if err != nil {
		return nil, fmt.Errorf("--%s %s: %w", flagReaderConfig, path, err)
	}
	var out []propArg
	for _, p := range props {
		out = append(out, propArg{name: p.Key, value: p.Value, origin: fmt.Sprintf("%s:%d", path, p.Line), readerOnly: true})
	}
	return out, nil
}

// applyLineReader applies the schema console producers' --line-reader
// (or --reader) class as --schema-format, unless --schema-format was
// given.
func (r *resolver) applyLineReader() {
	if r.vals.flagChanged("schema-format") {
		return
	}
	for _, name := range []string{flagLineReader, flagReader} {
		if f := dialectFlag(r.vals.fs, name); f != nil {
			if format := javaprops.ConfluentReaderFormat(f.Value.String()); format != "" {
				r.vals.v.Set("schema-format", format)
				r.overrides["schema-format"] = "flag --" + name + " " + f.Value.String()
			}
		}
	}
}

// applyVerbosity applies kcat's -q and -v as --log-level, unless
// --log-level was given. -q also means no report of a delivered record
// (-o none), unless -o was given: kcat -P prints none. Failures are still
// reported on stderr.
func (r *resolver) applyVerbosity() {
	q := dialectFlag(r.vals.fs, flagKcatQuiet)
	quiet := q != nil && q.Value.String() == "true"
	if quiet && !r.vals.flagChanged("output") {
		r.vals.v.Set("output", "none")
		r.overrides["output"] = "flag -q"
	}
	if r.vals.flagChanged("log-level") {
		return
	}
	if f := dialectFlag(r.vals.fs, flagKcatVerbose); f != nil {
		n, _ := r.vals.fs.GetCount(flagKcatVerbose) // defined as a count
		level := []string{"info", "debug", "trace"}[min(n, 3)-1]
		r.vals.v.Set("log-level", level)
		r.overrides["log-level"] = "flag -" + strings.Repeat("v", n)
		return
	}
	if quiet {
		r.vals.v.Set("log-level", "error")
		r.overrides["log-level"] = "flag -q"
	}
}

// ClaimOptionalValues reads the value of a flag whose value is optional
// (--progress, kafka-console-producer's --compression-codec): pflag takes
// such a flag given alone as its no-value default and leaves the word
// after it (--progress never) as a FILE argument. When the flag was given
// with its no-value default, the first FILE is a value it takes and no
// such file exists, that FILE is the flag's value. It returns the FILEs
// left.
func ClaimOptionalValues(fs *pflag.FlagSet, files []string) []string {
	takes := map[string]func(string) bool{
		"progress":          func(s string) bool { return slices.Contains(progressChoices(), s) },
		"compression-codec": func(s string) bool { _, err := parseCodecName(s); return err == nil },
	}
	for _, name := range []string{"progress", "compression-codec"} {
		f := fs.Lookup(name)
		if f == nil || !f.Changed || f.Value.String() != f.NoOptDefVal || len(files) == 0 || !takes[name](files[0]) {
			continue
		}
		if _, err := os.Stat(files[0]); err == nil {
			continue
		}
		_ = f.Value.Set(files[0]) // a value the flag takes
		files = files[1:]
	}
	return files
}

// parseCodecName checks a codec name.
func parseCodecName(s string) (protocol.Codec, error) { return protocol.ParseCodec(s) }
