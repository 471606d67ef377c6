package producecmd_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde/protobuf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

const orderProto = `syntax = "proto3";
package shop;

import "common/money.proto";
import "google/protobuf/timestamp.proto";

message Order {
  int64 id = 1;
  string customer_name = 2;
  common.Money total = 3;
  google.protobuf.Timestamp at = 4;
  Status status = 5;
  message Line {
    string sku = 1;
    int32 qty = 2;
  }
  repeated Line lines = 6;
}

message Refund {
  int64 order_id = 1;
}

enum Status {
  NEW = 0;
  PAID = 1;
}
`

const moneyProto = `syntax = "proto3";
package common;

message Money {
  string currency = 1;
  int64 units = 2;
}
`

// protoDir writes the order and money files: order.proto at the top,
// common/money.proto under it.
func protoDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "common"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "order.proto"), []byte(orderProto), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "common", "money.proto"), []byte(moneyProto), 0o644))
	return dir
}

// protoMessages compiles the test's files on their own and returns every
// message by full name.
func protoMessages(t *testing.T, dir string) map[string]protoreflect.MessageDescriptor {
	t.Helper()
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{dir}})}
	files, err := c.Compile(context.Background(), "order.proto")
	require.NoError(t, err)
	out := map[string]protoreflect.MessageDescriptor{}
	var walk func(protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			out[string(ms.Get(i).FullName())] = ms.Get(i)
			walk(ms.Get(i).Messages())
		}
	}
	walk(files[0].Messages())
	return out
}

// protoDecode decodes a framed value with Confluent's Protobuf
// deserializer, which names the message the index points at.
func (e *srEnv) protoDecode(t *testing.T, msgs map[string]protoreflect.MessageDescriptor, payload []byte) (string, proto.Message) {
	t.Helper()
	d, err := protobuf.NewDeserializer(e.confluentClient(t), serde.ValueSerde, protobuf.NewDeserializerConfig())
	require.NoError(t, err)
	var name string
	d.MessageFactory = func(_, n string) (interface{}, error) {
		name = n
		md, ok := msgs[n]
		if !ok {
			return nil, fmt.Errorf("no message %s", n)
		}
		return dynamicpb.NewMessage(md), nil
	}
	v, err := d.Deserialize("t", payload)
	require.NoError(t, err)
	return name, v.(proto.Message)
}

func TestSchemaProtobufMessageIndexesAndReferences(t *testing.T) {
	dir := protoDir(t)
	msgs := protoMessages(t, dir)
	for _, tc := range []struct {
		typ, json, want string
		index           []byte
	}{
		{"", `{"id":"7","customerName":"ann","total":{"currency":"EUR","units":"12"},"at":"2024-01-31T13:45:00Z","status":"PAID","lines":[{"sku":"a","qty":2}]}`,
			"shop.Order", []byte{0}},
		{"shop.Refund", `{"orderId":9}`, "shop.Refund", []byte{2, 2}},
		{"shop.Order.Line", `{"sku":"b","qty":3}`, "shop.Order.Line", []byte{4, 0, 0}},
	} {
		t.Run(tc.want, func(t *testing.T) {
			e := newSREnv(t)
			args := []string{"-t", "t", "--schema-registry", e.url(), "--value-schema", filepath.Join(dir, "order.proto")}
			if tc.typ != "" {
				args = append(args, "--value-type", tc.typ)
			}
			run := e.produceSR(t, tc.json+"\n", args...)
			require.Equal(t, 0, run.Code, run.Stderr)
			rec := e.readBack(t, "t", 1)[0]
			main, ok := e.reg.GetSchema("t-value", 1)
			require.True(t, ok)
			assert.Equal(t, sr.TypeProtobuf, main.Type)
			require.Len(t, main.References, 1, "the import is a reference; the well-known type is not")
			assert.Equal(t, sr.SchemaReference{Name: "common/money.proto", Subject: "common/money.proto", Version: 1}, main.References[0])
			money, ok := e.reg.GetSchema("common/money.proto", 1)
			require.True(t, ok)
			assert.Equal(t, moneyProto, money.Schema.Schema)

			assert.Equal(t, main.ID, schemaID(t, rec.Value))
			assert.Equal(t, tc.index, rec.Value[5:5+len(tc.index)], "message index bytes")
			name, msg := e.protoDecode(t, msgs, rec.Value)
			assert.Equal(t, tc.want, name)
			want := dynamicpb.NewMessage(msgs[tc.want])
			require.NoError(t, protojson.Unmarshal([]byte(tc.json), want))
			assert.True(t, proto.Equal(want, msg), "decoded %v", msg)
		})
	}
}

func TestSchemaProtobufDialects(t *testing.T) {
	dir := protoDir(t)
	msgs := protoMessages(t, dir)
	e := newSREnv(t)
	// The console producer: the file by property, the message by
	// value.schema.full.name, imports found beside the file.
	run := e.produceSR(t, `{"orderId":"1"}`+"\n", "-t", "t", "--line-reader", "io.confluent.kafka.formatter.ProtobufMessageReader",
		"--property", "schema.registry.url="+e.url(), "--property", "value.schema.file="+filepath.Join(dir, "order.proto"),
		"--property", "value.schema.full.name=shop.Refund")
	require.Equal(t, 0, run.Code, run.Stderr)
	main, ok := e.reg.GetSchema("t-value", 1)
	require.True(t, ok)
	// rpk: an existing id and the message by --schema-type.
	run = e.produceSR(t, `{"orderId":"2"}`+"\n", "-t", "t", "-X", "registry.hosts="+strings.TrimPrefix(e.url(), "http://"),
		"--schema-id", fmt.Sprint(main.ID), "--schema-type", "shop.Refund")
	require.Equal(t, 0, run.Code, run.Stderr)
	for i, rec := range e.readBack(t, "t", 2) {
		name, msg := e.protoDecode(t, msgs, rec.Value)
		assert.Equal(t, "shop.Refund", name)
		assert.Equal(t, int64(i+1), msg.ProtoReflect().Get(msgs["shop.Refund"].Fields().ByName("order_id")).Int())
	}
}

func TestSchemaProtobufErrors(t *testing.T) {
	dir := protoDir(t)
	e := newSREnv(t)
	run := e.produceSR(t, `{"id":"1","total":{"units":"x"}}`+"\n"+`{"nope":1}`+"\n"+`{"id":"3"}`+"\n",
		"-t", "t", "--schema-registry", e.url(), "--value-schema", filepath.Join(dir, "order.proto"))
	assert.Equal(t, 1, run.Code)
	assert.Contains(t, run.Stderr, "-:1: t/-1: value: field .total.units: ")
	assert.Contains(t, run.Stderr, "-:2: t/-1: value: field .nope: ")
	assert.EqualValues(t, 1, e.endOffset(t, "t"))

	run = e.produceSR(t, "{}\n", "-t", "t", "--schema-registry", e.url(), "--value-schema", filepath.Join(dir, "order.proto"), "--value-type", "shop.Nope")
	assert.Equal(t, 2, run.Code)
	assert.Contains(t, run.Stderr, "has no message shop.Nope (it has shop.Order, shop.Order.Line, shop.Refund)")

	lonely := writeFile(t, "lonely.proto", `syntax = "proto3"; import "missing.proto"; message M { int32 a = 1; }`)
	run = e.produceSR(t, "{}\n", "-t", "t", "--schema-registry", e.url(), "--value-schema", lonely)
	assert.Equal(t, 2, run.Code)
	assert.Contains(t, run.Stderr, "missing.proto")
}
