package producecmd_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde/protobuf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Two proto paths: shop/ in one, common/ in the other, with an import
// two deep (order imports money, which imports currency).
const (
	shopOrderProto = `syntax = "proto3";
package shop;

import "common/money.proto";

message Order {
  int64 id = 1;
  common.Money total = 2;
  message Line {
    string sku = 1;
    common.Money price = 2;
  }
  repeated Line lines = 3;
}
`
	commonMoneyProto = `syntax = "proto3";
package common;

import "common/currency.proto";

message Money {
  Currency currency = 1;
  int64 units = 2;
}
`
	commonCurrencyProto = `syntax = "proto3";
package common;

message Currency {
  string code = 1;
}
`
)

// protoPaths writes the files under two directories and returns them.
func protoPaths(t *testing.T) (shop, common string) {
	t.Helper()
	shop, common = t.TempDir(), t.TempDir()
	for path, text := range map[string]string{
		filepath.Join(shop, "shop", "order.proto"):        shopOrderProto,
		filepath.Join(common, "common", "money.proto"):    commonMoneyProto,
		filepath.Join(common, "common", "currency.proto"): commonCurrencyProto,
	} {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	return shop, common
}

// registered is a subject's schema as the references and type say: what
// Confluent's serializer and kproduce must agree on (the text of a
// Protobuf schema is each one's own printing).
type registered struct {
	Type sr.SchemaType
	Refs []sr.SchemaReference
}

// registeredSubjects lists every subject of reg with its latest schema's
// type and references.
func registeredSubjects(t *testing.T, reg *srfake.Registry) map[string]registered {
	t.Helper()
	cl, err := sr.NewClient(sr.URLs(reg.URL()))
	require.NoError(t, err)
	subjects, err := cl.Subjects(context.Background())
	require.NoError(t, err)
	out := map[string]registered{}
	for _, s := range subjects {
		ss, err := cl.SchemaByVersion(context.Background(), s, -1)
		require.NoError(t, err)
		refs := ss.References
		sort.Slice(refs, func(i, j int) bool { return refs[i].Name < refs[j].Name })
		out[s] = registered{Type: ss.Type, Refs: refs}
	}
	return out
}

// TestSchemaProtobufReferencesAsConfluentRegisters: a file whose import
// imports another, found through two --proto-path directories, is
// registered as Confluent's own Protobuf serializer registers the same
// compiled file: each import under its import path with its own
// references, the file with its direct imports; the records carry the
// same message indexes, and Confluent's deserializer reads them.
func TestSchemaProtobufReferencesAsConfluentRegisters(t *testing.T) {
	shop, common := protoPaths(t)
	comp := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{shop, common}})}
	files, err := comp.Compile(context.Background(), "shop/order.proto")
	require.NoError(t, err)
	order := files[0].Messages().ByName("Order")
	msgs := map[string]protoreflect.MessageDescriptor{"shop.Order": order, "shop.Order.Line": order.Messages().ByName("Line")}

	for _, tc := range []struct{ typ, json string }{
		{"shop.Order", `{"id":"7","total":{"currency":{"code":"EUR"},"units":"12"},"lines":[{"sku":"a","price":{"units":"3"}}]}`},
		{"shop.Order.Line", `{"sku":"b","price":{"currency":{"code":"USD"},"units":"4"}}`},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			// Confluent's serializer, on a registry of its own.
			theirs := srfake.New()
			t.Cleanup(theirs.Close)
			client, err := schemaregistry.NewClient(schemaregistry.NewConfig(theirs.URL()))
			require.NoError(t, err)
			ser, err := protobuf.NewSerializer(client, serde.ValueSerde, protobuf.NewSerializerConfig())
			require.NoError(t, err)
			msg := dynamicpb.NewMessage(msgs[tc.typ])
			require.NoError(t, protojson.Unmarshal([]byte(tc.json), msg))
			framed, err := ser.Serialize("t", msg)
			require.NoError(t, err)

			e := newSREnv(t)
			run := e.produceSR(t, tc.json+"\n", "-t", "t", "--schema-registry", e.url(), "--value-schema", filepath.Join(shop, "shop", "order.proto"),
				"--proto-path", shop, "--proto-path", common, "--value-type", tc.typ)
			require.Equal(t, 0, run.Code, run.Stderr)

			ours := registeredSubjects(t, e.reg)
			assert.Equal(t, registeredSubjects(t, theirs), ours)
			assert.Equal(t, []sr.SchemaReference{{Name: "common/money.proto", Subject: "common/money.proto", Version: 1}}, ours["t-value"].Refs)
			assert.Equal(t, []sr.SchemaReference{{Name: "common/currency.proto", Subject: "common/currency.proto", Version: 1}}, ours["common/money.proto"].Refs)
			money, ok := e.reg.GetSchema("common/money.proto", 1)
			require.True(t, ok)
			assert.Equal(t, commonMoneyProto, money.Schema.Schema, "an import is registered as its file is written")

			rec := e.readBack(t, "t", 1)[0]
			var h sr.ConfluentHeader
			theirIndex, theirPayload, err := h.DecodeIndex(framed[5:], 8)
			require.NoError(t, err)
			ourIndex, ourPayload, err := h.DecodeIndex(rec.Value[5:], 8)
			require.NoError(t, err)
			assert.Equal(t, theirIndex, ourIndex, "message index")
			assert.Equal(t, len(theirPayload), len(ourPayload), "payload size (the fields' order may differ)")
			name, got := e.protoDecode(t, msgs, rec.Value)
			assert.Equal(t, tc.typ, name)
			assert.True(t, proto.Equal(msg, got), "decoded %v", got)
		})
	}
}

// TestSchemaProtobufKeysAndRecordStrategy: a Protobuf key schema's
// message by --key-type (rpk's --schema-key-type too), the record
// strategies naming the message, and a dry run that registers none of
// the file's imports.
func TestSchemaProtobufKeysAndRecordStrategy(t *testing.T) {
	shop, common := protoPaths(t)
	file := filepath.Join(shop, "shop", "order.proto")
	e := newSREnv(t)
	base := []string{"-t", "t", "--schema-registry", e.url(), "--proto-path", shop, "--proto-path", common, "-K", "|"}
	line := `{"sku":"k"}|{"id":"1"}` + "\n"

	run := e.produceSR(t, line, append(base, "--dry-run", "--partitions", "1", "--value-schema", file, "--key-schema", file, "--key-type", "shop.Order.Line")...)
	require.Equal(t, 0, run.Code, run.Stderr)
	assert.Contains(t, run.Stderr, `value schema (Protobuf): would register under subject "t-value"`)
	assert.Empty(t, registeredSubjects(t, e.reg), "a dry run registers nothing, imports included")

	for i, args := range [][]string{
		{"--value-schema", file, "--key-schema", file, "--key-type", "shop.Order.Line", "--subject-strategy", "record"},
		{"--value-schema", file, "--key-schema", file, "--schema-key-type", "shop.Order.Line", "--subject-strategy", "topic-record"},
	} {
		run := e.produceSR(t, line, append(base, args...)...)
		require.Equal(t, 0, run.Code, "%v: %s", args, run.Stderr)
		rec := e.readBack(t, "t", i+1)[i]
		assert.Equal(t, []byte{4, 0, 0}, rec.Key[5:8], "the key's message index: shop.Order.Line")
		assert.Equal(t, byte(0), rec.Value[5], "the value's: the first message")
	}
	subjects := registeredSubjects(t, e.reg)
	for _, s := range []string{"shop.Order", "shop.Order.Line", "t-shop.Order", "t-shop.Order.Line", "common/money.proto", "common/currency.proto"} {
		assert.Contains(t, subjects, s)
	}
	assert.Len(t, subjects, 6, fmt.Sprint(subjects))
}

// TestSchemaRegistryRequestsPerRun counts the registry's requests of runs
// of 2,000 records: one per id, one for a topic's latest version, and for
// a Protobuf file with an import two deep a lookup per import (a
// registration and a lookup more when it is new) and one registration;
// never one per record.
func TestSchemaRegistryRequestsPerRun(t *testing.T) {
	shop, common := protoPaths(t)
	e := newSREnv(t)
	var in strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&in, `{"id":"%d","total":{"units":"1"}}`+"\n", i)
	}
	args := []string{"-t", "t", "--schema-registry", e.url(), "-o", "none", "--value-schema", filepath.Join(shop, "shop", "order.proto"),
		"--proto-path", shop, "--proto-path", common}
	count := func(args ...string) map[string]int {
		t.Helper()
		before := e.requests()
		run := e.produceSR(t, in.String(), args...)
		require.Equal(t, 0, run.Code, run.Stderr)
		diff := map[string]int{}
		for k, v := range e.requests() {
			if v != before[k] {
				diff[k] = v - before[k]
			}
		}
		return diff
	}
	assert.Equal(t, map[string]int{
		"POST /subjects/common/currency.proto": 2, "POST /subjects/common/currency.proto/versions": 1,
		"POST /subjects/common/money.proto": 2, "POST /subjects/common/money.proto/versions": 1,
		"POST /subjects/t-value/versions": 1,
	}, count(args...), "new imports: lookup, registration, lookup for the version")
	assert.Equal(t, map[string]int{
		"POST /subjects/common/currency.proto": 1, "POST /subjects/common/money.proto": 1, "POST /subjects/t-value/versions": 1,
	}, count(args...), "imports known: a lookup each")
	main, ok := e.reg.GetSchema("t-value", 1)
	require.True(t, ok)
	byID := []string{"-t", "t", "--schema-registry", e.url(), "-o", "none", "--value-schema-id", fmt.Sprint(main.ID)}
	assert.Equal(t, map[string]int{
		fmt.Sprintf("GET /schemas/ids/%d", main.ID): 1, "GET /subjects/common/money.proto/versions/1": 1, "GET /subjects/common/currency.proto/versions/1": 1,
	}, count(byID...), "an id, and its references")
	assert.Equal(t, map[string]int{
		"GET /subjects/t-value/versions/latest": 1, "GET /subjects/common/money.proto/versions/1": 1, "GET /subjects/common/currency.proto/versions/1": 1,
	}, count("-t", "t", "--schema-registry", e.url(), "-o", "none", "--value-schema-id", "topic"), "the topic's latest, and its references")
	assert.EqualValues(t, 8000, e.endOffset(t, "t"))
}
