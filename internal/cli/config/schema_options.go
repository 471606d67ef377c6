package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/internal/schema"
)

// SchemaOptions are the Schema Registry settings of a run: where the
// registry is, how to reach it, and the key's and value's schemas.
type SchemaOptions struct {
	// Registry says where the registry is and how to authenticate; the
	// password and token are secrets.
	Registry schema.RegistryConfig
	// TLSCA, TLSCert and TLSKey are the registry's PEM files;
	// TLSInsecureSkipVerify accepts any registry certificate; TLS is https
	// for the hosts given without a scheme.
	TLSCA, TLSCert, TLSKey string
	TLSInsecureSkipVerify  bool
	TLS                    bool
	// Key and Value are the key's and the value's schema, nil for none;
	// KeyLocal and ValueLocal their compiled local schemas (nil for a
	// schema by id).
	Key, Value           *schema.Spec
	KeyLocal, ValueLocal *schema.Local
}

// Enabled reports whether the key or the value has a schema.
func (s *SchemaOptions) Enabled() bool { return s.Key != nil || s.Value != nil }

// schemaOptionNames are the options that choose a schema: each needs
// --schema-registry.
func schemaOptionNames() []string {
	return []string{"value-schema", "value-schema-text", "value-schema-id", "key-schema", "key-schema-text", "key-schema-id"}
}

// readSchemas reads the Schema Registry options. load compiles the local
// schemas (a produce run; kproduce config only shows the options).
func (r *optionReader) readSchemas(o *Options, load bool) {
	s := &o.Schemas
	s.Registry.URLs = nil
	for _, u := range r.list("schema-registry") {
		s.Registry.URLs = append(s.Registry.URLs, splitList(u)...)
	}
	r.readRegistryAuth(s)
	format, err := schema.ParseFormat(r.str("schema-format"))
	if err != nil {
		r.failValue("schema-format", r.str("schema-format"), err)
	}
	s.Value = r.readSchemaSpec(schema.RoleValue, format, "subject-strategy", o.Topic)
	keyStrategy := "key-subject-strategy"
	if !r.vals.IsSet(keyStrategy) {
		keyStrategy = "subject-strategy"
	}
	s.Key = r.readSchemaSpec(schema.RoleKey, format, keyStrategy, o.Topic)
	if !s.Enabled() {
		given := map[string]bool{"value-type": r.str("value-type") != "", "key-type": r.str("key-type") != "",
			"proto-path": len(r.list("proto-path")) > 0, "use-latest-version": r.boolean("use-latest-version")}
		for _, name := range []string{"value-type", "key-type", "proto-path", "use-latest-version"} {
			if given[name] {
				r.fail(name, fmt.Errorf("%w: needs a schema (--value-schema, --key-schema, --value-schema-id, --key-schema-id)", ErrBadValue))
			}
		}
		return
	}
	if s.Key != nil && !keyEncodable(&o.Input) {
		r.fail("key-schema", fmt.Errorf("%w: lines have no key to encode without -K (parse.key=true) or -k", ErrBadValue))
	}
	if len(s.Registry.URLs) == 0 {
		r.fail("schema-registry", fmt.Errorf("%w: a schema (--%s) needs the Schema Registry's URL (--schema-registry, or the schema.registry.url property)",
			ErrBadValue, strings.Join(givenSchemaOptions(r), ", --")))
	}
	if load {
		r.loadSchema(s.Value, &s.ValueLocal)
		r.loadSchema(s.Key, &s.KeyLocal)
	}
}

// givenSchemaOptions lists the schema options given.
func givenSchemaOptions(r *optionReader) []string {
	var given []string
	for _, name := range schemaOptionNames() {
		if r.vals.IsSet(name) {
			given = append(given, name)
		}
	}
	return given
}

// readRegistryAuth reads the registry's credentials and TLS files.
func (r *optionReader) readRegistryAuth(s *SchemaOptions) {
	if userInfo := r.secret("schema-registry-user"); userInfo != "" {
		user, pass, ok := strings.Cut(userInfo, ":")
		if !ok || user == "" {
			r.fail("schema-registry-user", fmt.Errorf("%w: want USER:PASSWORD", ErrBadValue))
		}
		s.Registry.User, s.Registry.Password = user, pass
	}
	s.Registry.Token = r.secret("schema-registry-token")
	if s.Registry.Token != "" && s.Registry.User != "" {
		r.fail("schema-registry-token", fmt.Errorf("%w: give either --schema-registry-user or --schema-registry-token", ErrBadValue))
	}
	s.TLSCA = strings.TrimSpace(r.str("schema-registry-ca"))
	s.TLSCert = strings.TrimSpace(r.str("schema-registry-cert"))
	s.TLSKey = strings.TrimSpace(r.str("schema-registry-key"))
	s.TLSInsecureSkipVerify = r.boolean("schema-registry-insecure-skip-verify")
	s.TLS = r.boolean("schema-registry-tls")
	if !r.vals.IsSet("schema-registry-tls") {
		s.TLS = s.TLSCA != "" || s.TLSCert != "" || s.TLSKey != "" || s.TLSInsecureSkipVerify
	}
	if (s.TLSCert == "") != (s.TLSKey == "") {
		r.fail("schema-registry-cert", fmt.Errorf("%w: --schema-registry-cert and --schema-registry-key go together", ErrBadValue))
	}
	for _, u := range s.Registry.URLs {
		if _, err := schema.ParseRegistryURL(u, s.TLS); err != nil {
			r.fail("schema-registry", err)
		}
	}
}

// readSchemaSpec reads the schema options of the key or the value; nil
// when none is given.
func (r *optionReader) readSchemaSpec(role schema.Role, format schema.Format, strategyKey, topic string) *schema.Spec {
	p := role.String()
	spec := &schema.Spec{Role: role, Format: format, File: strings.TrimSpace(r.str(p + "-schema")), Text: r.str(p + "-schema-text"),
		MessageType: strings.TrimSpace(r.str(p + "-type")), ProtoPaths: r.list("proto-path"),
		AutoRegister: r.boolean("auto-register"), UseLatest: r.boolean("use-latest-version")}
	id := strings.TrimSpace(r.str(p + "-schema-id"))
	given := 0
	for _, v := range []string{spec.File, spec.Text, id} {
		if v != "" {
			given++
		}
	}
	if given == 0 {
		return nil
	}
	if given > 1 {
		r.fail(p+"-schema", fmt.Errorf("%w: give one of --%s-schema, --%s-schema-text and --%s-schema-id", ErrBadValue, p, p, p))
	}
	switch {
	case strings.EqualFold(id, "topic"):
		spec.TopicLatest = true
	case id != "":
		n, err := strconv.Atoi(id)
		if err != nil || n <= 0 {
			r.failValue(p+"-schema-id", id, fmt.Errorf("%w: want a schema id (a positive number) or topic", ErrBadValue))
		}
		spec.ID = n
	}
	strategy, err := schema.ParseStrategy(r.str(strategyKey))
	if err != nil {
		r.failValue(strategyKey, r.str(strategyKey), err)
	}
	spec.Strategy = strategy
	needsTopic := spec.TopicLatest || (spec.ID == 0 && strategy.NeedsTopic())
	if needsTopic && topic == "" {
		r.fail("topic", fmt.Errorf("%w: the %s schema's subject names the topic (subject strategy %s): give --topic", ErrBadValue, p, strategy))
	}
	return spec
}

// loadSchema reads and compiles a local schema (a usage error when it
// cannot be).
func (r *optionReader) loadSchema(spec *schema.Spec, local **schema.Local) {
	if spec == nil {
		return
	}
	flag := spec.Role.String() + "-schema"
	if spec.File == "" && spec.Text != "" {
		flag += "-text"
	}
	if r.failed(flag) {
		return
	}
	l, err := schema.Load(spec)
	if err != nil {
		r.fail(flag, err)
		return
	}
	*local = l
}

// ResumeOptions are the schema options a resumed load must keep: each
// schema's source, format, message type and subject strategy, a local
// schema by the digest of its text; "(none)" for a key or value without a
// schema, so that a resumed run cannot add one.
func (s *SchemaOptions) ResumeOptions() map[string]string {
	m := map[string]string{}
	for role, spec := range map[string]*schema.Spec{"key": s.Key, "value": s.Value} {
		p := role + "-schema"
		if spec == nil {
			m[p] = noValue
			continue
		}
		switch {
		case spec.TopicLatest:
			m[p] = "id topic"
		case spec.ID > 0:
			m[p] = "id " + strconv.Itoa(spec.ID)
		default:
			m[p] = "text " + schemaDigest(spec)
		}
		m[p+"-settings"] = fmt.Sprintf("format=%s type=%s strategy=%s latest=%t", spec.Format, spec.MessageType, spec.Strategy, spec.UseLatest)
	}
	return m
}

// schemaDigest is the SHA-256 of a local schema's text.
func schemaDigest(spec *schema.Spec) string {
	text := []byte(spec.Text)
	if spec.File != "" {
		text, _ = os.ReadFile(spec.File) // read once already: Load checked it
	}
	sum := sha256.Sum256(text)
	return hex.EncodeToString(sum[:8])
}

// keyEncodable reports whether the input format gives records a key a key
// schema can encode.
func keyEncodable(in *input.Config) bool {
	return in.Format != input.FormatLines || in.KeyDelimiter != nil || in.Key != nil
}
