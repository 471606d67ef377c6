package schema

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// inlineProtoName is the file name of a Protobuf schema given inline.
const inlineProtoName = "schema.proto"

// protoSources serves .proto files to the compiler, from the import paths
// or from memory, and remembers the text of each file it served (imports
// are registered with their text).
type protoSources struct {
	paths  []string
	memory map[string]string
	mu     sync.Mutex
	served map[string]string // guarded by mu
}

// find serves one file by its import name.
func (p *protoSources) find(name string) (protocompile.SearchResult, error) {
	if text, ok := p.memory[name]; ok {
		p.keep(name, text)
		return protocompile.SearchResult{Source: strings.NewReader(text)}, nil
	}
	for _, dir := range p.paths {
		data, err := readLimited(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return protocompile.SearchResult{}, err
		}
		p.keep(name, string(data))
		return protocompile.SearchResult{Source: bytes.NewReader(data)}, nil
	}
	return protocompile.SearchResult{}, fmt.Errorf("%s: %w in the proto paths (%s)", name, fs.ErrNotExist, strings.Join(p.paths, ", "))
}

// keep remembers the text of a file served.
func (p *protoSources) keep(name, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.served[name] = text
}

// maxSchemaBytes bounds a schema file.
const maxSchemaBytes = 16 << 20

// readLimited reads a schema file of at most maxSchemaBytes.
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSchemaBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxSchemaBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxSchemaBytes)
	}
	return data, nil
}

// protoSchema is a compiled Protobuf schema: the file, the message
// records are encoded as, and the imports to register as references.
type protoSchema struct {
	file    linker.File
	message protoreflect.MessageDescriptor
	index   []int
	refs    []reference
}

// compileProto compiles the file main, served by src, and picks the
// message named typ (its full name, or its name within the file's
// package; "" is the file's first message).
func compileProto(src *protoSources, main, typ string) (*protoSchema, error) {
	src.served = map[string]string{}
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(protocompile.ResolverFunc(src.find)), MaxParallelism: 1}
	files, err := c.Compile(context.Background(), main)
	if err != nil {
		return nil, schemaErrorf("%v", err)
	}
	f := files[0]
	md, err := findMessage(f, typ)
	if err != nil {
		return nil, err
	}
	return &protoSchema{file: f, message: md, index: messageIndex(md), refs: protoReferences(f, src.served)}, nil
}

// findMessage finds the message typ in f.
func findMessage(f linker.File, typ string) (protoreflect.MessageDescriptor, error) {
	if typ == "" {
		if f.Messages().Len() == 0 {
			return nil, schemaErrorf("%s defines no message", f.Path())
		}
		return f.Messages().Get(0), nil
	}
	typ = strings.TrimPrefix(typ, ".")
	for _, name := range []string{typ, string(f.Package()) + "." + typ} {
		if md, ok := f.FindDescriptorByName(protoreflect.FullName(name)).(protoreflect.MessageDescriptor); ok {
			return md, nil
		}
	}
	var names []string
	collectMessages(f.Messages(), &names)
	return nil, schemaErrorf("%s has no message %s (it has %s)", f.Path(), typ, strings.Join(names, ", "))
}

// collectMessages lists the full names of msgs and their nested messages.
func collectMessages(msgs protoreflect.MessageDescriptors, names *[]string) {
	for i := range msgs.Len() {
		m := msgs.Get(i)
		if m.IsMapEntry() {
			continue
		}
		*names = append(*names, string(m.FullName()))
		collectMessages(m.Messages(), names)
	}
}

// messageIndex is the path of md in its file, as Confluent's wire format
// writes it: the index of each message from the file's top level down.
func messageIndex(md protoreflect.MessageDescriptor) []int {
	var path []int
	var d protoreflect.Descriptor = md
	for {
		path = append([]int{d.Index()}, path...)
		parent, ok := d.Parent().(protoreflect.MessageDescriptor)
		if !ok {
			return path
		}
		d = parent
	}
}

// reference is a schema another refers to: a Protobuf import, registered
// under its import name before the file that imports it.
type reference struct {
	name string // the import name, also its subject
	text string
	refs []reference
}

// builtinProto reports whether an import is one the registry knows
// without a reference (the well-known types and Confluent's own), as
// Confluent's serializers skip them.
func builtinProto(name string) bool {
	return strings.HasPrefix(name, "google/protobuf/") || strings.HasPrefix(name, "google/type/") || strings.HasPrefix(name, "confluent/")
}

// protoReferences lists the imports of f to register, each with its own.
func protoReferences(f protoreflect.FileDescriptor, served map[string]string) []reference {
	var refs []reference
	imports := f.Imports()
	for i := range imports.Len() {
		imp := imports.Get(i)
		if builtinProto(imp.Path()) {
			continue
		}
		refs = append(refs, reference{name: imp.Path(), text: served[imp.Path()], refs: protoReferences(imp.FileDescriptor, served)})
	}
	return refs
}

// protoEncoder encodes JSON texts (proto3's JSON mapping) as Protobuf
// binary.
type protoEncoder struct {
	message protoreflect.MessageDescriptor
	// fast encodes directly when the message allows (protoFast); nil:
	// protojson and a dynamic message.
	fast   *protoFast
	decode protojson.UnmarshalOptions
	encode proto.MarshalOptions
}

// newProtoEncoder returns the encoder of md.
func newProtoEncoder(md protoreflect.MessageDescriptor) *protoEncoder {
	return &protoEncoder{message: md, fast: compileProtoFast(md)}
}

// appendPayload appends the Protobuf binary of the JSON text to dst.
func (p *protoEncoder) appendPayload(dst, text []byte) ([]byte, error) {
	if p.fast != nil {
		return p.fast.appendPayload(dst, text)
	}
	msg := dynamicpb.NewMessage(p.message)
	if err := p.decode.Unmarshal(text, msg); err != nil {
		return dst, protoFieldError(p.message, text, err)
	}
	out, err := p.encode.MarshalAppend(dst, msg)
	if err != nil {
		return dst, &FieldError{Msg: err.Error(), Err: ErrMismatch}
	}
	return out, nil
}

// protoFieldError turns protojson's error into a FieldError with the path
// of the field it names, found by walking the JSON.
func protoFieldError(md protoreflect.MessageDescriptor, text []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "proto:")
	msg = strings.TrimSpace(strings.ReplaceAll(msg, "\u00a0", " "))
	kind := ErrMismatch
	if strings.Contains(msg, "syntax error") || strings.Contains(msg, "unexpected token") || strings.Contains(msg, "EOF") {
		kind = ErrSyntax
	}
	path := protoErrorPath(md, text, msg)
	return &FieldError{Path: path, Msg: cleanProtoMessage(msg), Err: kind}
}
