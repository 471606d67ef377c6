package schema

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/sr"
)

// Encoder turns one record's JSON text into the bytes Confluent's
// serializers write: the header of the schema's id (and Protobuf message
// index), then the payload.
type Encoder struct {
	// ID is the schema's id (0 in a dry run for a schema not registered).
	ID int
	// Subject is the subject the schema was registered or found under; ""
	// for a schema given by id.
	Subject string
	// Format is the schema's format.
	Format Format
	// Action says what resolving did, for a dry run's account: "registered",
	// "found", "would register", "latest version N", "by id".
	Action  string
	header  []byte
	payload payloadEncoder
}

// Encode appends to dst the framed encoding of the JSON text. On error it
// returns dst unchanged and a *FieldError.
func (e *Encoder) Encode(dst, text []byte) ([]byte, error) {
	start := len(dst)
	dst = append(dst, e.header...)
	out, err := e.payload.appendPayload(dst, text)
	if err != nil {
		return dst[:start], err
	}
	return out, nil
}

// newEncoder frames c's payloads with id.
func newEncoder(c *compiled, id int, subject, action string) *Encoder {
	var h sr.ConfluentHeader
	header, _ := h.AppendEncode(nil, id, c.index) // never fails
	return &Encoder{ID: id, Subject: subject, Format: c.format, Action: action, header: header, payload: c.payload}
}

// Resolver resolves specs against one registry, remembering what it
// asked: each subject and schema, each id is asked once per run.
type Resolver struct {
	reg *Registry
	// DryRun resolves read-only: nothing is registered.
	dryRun bool
	ids    map[int]sr.Schema
	found  map[subjectSchema]sr.SubjectSchema
	latest map[string]sr.SubjectSchema
}

// subjectSchema is a cache key: a schema under a subject.
type subjectSchema struct {
	subject, text string
}

// NewResolver returns a resolver on reg; dryRun registers nothing.
func NewResolver(reg *Registry, dryRun bool) *Resolver {
	return &Resolver{reg: reg, dryRun: dryRun, ids: map[int]sr.Schema{}, found: map[subjectSchema]sr.SubjectSchema{},
		latest: map[string]sr.SubjectSchema{}}
}

// Resolve returns the encoder of spec for records produced to topic:
// local is spec's compiled schema (Load), nil for one by id. Registry
// failures are *RegistryError; a registered schema that does not compile
// or lacks the Protobuf message wraps ErrSchema.
func (r *Resolver) Resolve(ctx context.Context, spec *Spec, local *Local, topic string) (*Encoder, error) {
	switch {
	case spec.ID > 0:
		s, err := r.byID(ctx, spec.ID)
		if err != nil {
			return nil, err
		}
		return r.registered(ctx, spec, s, spec.ID, "", "by id")
	case spec.TopicLatest:
		subject, err := StrategyTopic.Subject(topic, spec.Role, "")
		if err != nil {
			return nil, err
		}
		return r.latestOf(ctx, spec, subject)
	case local == nil:
		return nil, schemaErrorf("%s: no schema", spec.Name())
	}
	subject, err := spec.Strategy.Subject(topic, spec.Role, local.c.record)
	if err != nil {
		return nil, err
	}
	if spec.UseLatest {
		return r.latestOf(ctx, spec, subject)
	}
	id, action, err := r.registerOrFind(ctx, subject, local.c.format, local.c.text, local.c.refs, spec.AutoRegister)
	if err != nil {
		return nil, err
	}
	return newEncoder(local.c, id, subject, action), nil
}

// latestOf encodes with the latest schema of subject.
func (r *Resolver) latestOf(ctx context.Context, spec *Spec, subject string) (*Encoder, error) {
	ss, ok := r.latest[subject]
	if !ok {
		var err error
		if ss, err = r.reg.latest(ctx, subject); err != nil {
			return nil, err
		}
		r.latest[subject] = ss
	}
	return r.registered(ctx, spec, ss.Schema, ss.ID, subject, fmt.Sprintf("latest version %d", ss.Version))
}

// byID fetches a schema by id, once.
func (r *Resolver) byID(ctx context.Context, id int) (sr.Schema, error) {
	if s, ok := r.ids[id]; ok {
		return s, nil
	}
	s, err := r.reg.schemaByID(ctx, id)
	if err != nil {
		return sr.Schema{}, err
	}
	r.ids[id] = s
	return s, nil
}

// registered compiles a schema the registry holds (fetching the Protobuf
// imports it references) and frames with its id.
func (r *Resolver) registered(ctx context.Context, spec *Spec, s sr.Schema, id int, subject, action string) (*Encoder, error) {
	format := registryFormat(s.Type)
	if spec.Format != FormatAuto && spec.Format != format {
		return nil, schemaErrorf("%s: the registry's schema %d is %s, not %s", spec.Name(), id, format, spec.Format)
	}
	imports := map[string]string{}
	if err := r.fetchReferences(ctx, s.References, imports, 0); err != nil {
		return nil, err
	}
	c, err := compileText(format, s.Schema, imports, spec.MessageType)
	if err != nil {
		return nil, fmt.Errorf("%s: the registry's schema %d: %w", spec.Name(), id, err)
	}
	return newEncoder(c, id, subject, action), nil
}

// maxReferenceDepth bounds the chain of references followed.
const maxReferenceDepth = 32

// fetchReferences fetches the schemas refs name, and theirs, by import
// name into imports.
func (r *Resolver) fetchReferences(ctx context.Context, refs []sr.SchemaReference, imports map[string]string, depth int) error {
	if depth > maxReferenceDepth {
		return schemaErrorf("references nested more than %d deep", maxReferenceDepth)
	}
	for _, ref := range refs {
		if _, done := imports[ref.Name]; done {
			continue
		}
		ss, err := r.reg.version(ctx, ref.Subject, ref.Version)
		if err != nil {
			return err
		}
		imports[ref.Name] = ss.Schema.Schema
		if err := r.fetchReferences(ctx, ss.References, imports, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// registerOrFind registers a schema under subject (its references first,
// each under its import name), or looks it up: with autoRegister false,
// or in a dry run, which then says it would register it. It returns the
// id and what it did.
func (r *Resolver) registerOrFind(ctx context.Context, subject string, format Format, text string, refs []reference, autoRegister bool) (int, string, error) {
	srRefs := make([]sr.SchemaReference, 0, len(refs))
	for _, ref := range refs {
		_, version, err := r.reference(ctx, ref, autoRegister)
		if err != nil {
			return 0, "", err
		}
		srRefs = append(srRefs, sr.SchemaReference{Name: ref.name, Subject: ref.name, Version: version})
	}
	s := sr.Schema{Schema: text, Type: format.srType(), References: srRefs}
	key := subjectSchema{subject, text}
	if ss, ok := r.found[key]; ok {
		return ss.ID, "found", nil
	}
	if !autoRegister || r.dryRun {
		ss, err := r.reg.lookup(ctx, subject, s)
		if err == nil {
			r.found[key] = ss
			return ss.ID, "found", nil
		}
		if isNotFound(err) && autoRegister && r.dryRun {
			return 0, "would register", nil
		}
		return 0, "", err
	}
	id, err := r.reg.register(ctx, subject, s)
	if err != nil {
		return 0, "", err
	}
	r.found[key] = sr.SubjectSchema{Subject: subject, ID: id, Schema: s}
	return id, "registered", nil
}

// reference registers (or finds) a referenced schema under its import
// name and returns its id and version: a lookup first, and a
// registration then a lookup (for the version) when it is new.
func (r *Resolver) reference(ctx context.Context, ref reference, autoRegister bool) (int, int, error) {
	key := subjectSchema{ref.name, ref.text}
	if ss, ok := r.found[key]; ok && ss.Version > 0 {
		return ss.ID, ss.Version, nil
	}
	srRefs := make([]sr.SchemaReference, 0, len(ref.refs))
	for _, sub := range ref.refs {
		_, version, err := r.reference(ctx, sub, autoRegister)
		if err != nil {
			return 0, 0, err
		}
		srRefs = append(srRefs, sr.SchemaReference{Name: sub.name, Subject: sub.name, Version: version})
	}
	s := sr.Schema{Schema: ref.text, Type: sr.TypeProtobuf, References: srRefs}
	ss, err := r.reg.lookup(ctx, ref.name, s)
	if isNotFound(err) && autoRegister {
		if r.dryRun {
			return 0, 0, nil
		}
		if _, err = r.reg.register(ctx, ref.name, s); err != nil {
			return 0, 0, err
		}
		ss, err = r.reg.lookup(ctx, ref.name, s)
	}
	if err != nil {
		return 0, 0, err
	}
	r.found[key] = ss
	return ss.ID, ss.Version, nil
}

// isNotFound reports whether err is the registry's 404.
func isNotFound(err error) bool {
	var re *RegistryError
	return errors.As(err, &re) && re.NotFound()
}

// Encoder returns an encoder of the local schema framed with an id the
// caller knows (a schema registered elsewhere, a benchmark), without
// asking a registry.
func (l *Local) Encoder(id int) *Encoder { return newEncoder(l.c, id, "", "given id") }
