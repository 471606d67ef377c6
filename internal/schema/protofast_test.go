package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

const allKindsProto = `syntax = "proto3";
package k;
enum Color { RED = 0; GREEN = 1; BLUE = -2; }
message Inner { string s = 1; repeated int32 r = 2; }
message All {
  int32 i32 = 1; int64 i64 = 2; uint32 u32 = 3; uint64 u64 = 4; sint32 s32 = 5; sint64 s64 = 6;
  fixed32 f32 = 7; fixed64 f64 = 8; sfixed32 sf32 = 9; sfixed64 sf64 = 10;
  float fl = 11; double db = 12; bool b = 13; string str = 14; bytes by = 15; Color color = 16;
  Inner inner = 17; repeated Inner inners = 18; repeated string strs = 19; repeated double dbs = 20;
  map<string, int64> m = 21; map<int32, Inner> mi = 22; map<bool, string> mb = 23;
  optional int32 opt = 24; oneof choice { string a = 25; int64 n = 26; }
  repeated Color colors = 27; All child = 28; repeated sint64 s64s = 29;
}
`

// allKinds compiles the test message.
func allKinds(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	ps, err := compileProto(&protoSources{memory: map[string]string{"all.proto": allKindsProto}}, "all.proto", "k.All")
	require.NoError(t, err)
	return ps.message
}

// TestProtoFastMatchesProtojson encodes JSON texts both directly and with
// protojson: the same message when both accept it, an error from both
// when neither does.
func TestProtoFastMatchesProtojson(t *testing.T) {
	md := allKinds(t)
	fast := compileProtoFast(md)
	require.NotNil(t, fast)
	ok := []string{
		`{}`,
		`{"i32":-5,"i64":"-9007199254740993","u32":4294967295,"u64":"18446744073709551615","s32":-3,"s64":"-4"}`,
		`{"f32":7,"f64":"8","sf32":-9,"sf64":-10,"fl":1.5,"db":-2.25e-3,"b":true,"str":"h\u00e9\n","by":"AAH/"}`,
		`{"by":"AAH_","color":"BLUE","inner":{"s":"x","r":[1,-2,3]},"inners":[{"s":"a"},{}],"strs":["a",""],"dbs":[1,"NaN","-Infinity"]}`,
		`{"m":{"a":1,"b":"-2"},"mi":{"-7":{"s":"v"}},"mb":{"true":"t","false":""}}`,
		`{"opt":0,"a":"one"}`, `{"n":"5"}`, `{"color":2}`, `{"colors":["RED",1,"BLUE"]}`,
		`{"child":{"child":{"i32":1}},"s64s":[-1,2,"-3"]}`,
		`{"i32":0,"str":"","b":false,"color":"RED","inner":{}}`,
		`{"i32":null,"inner":null,"strs":null}`,
		`{"i32":1e2,"db":"1.5","fl":"3"}`,
		`{"strs":[]}`, `{"m":{}}`,
	}
	for _, text := range ok {
		want := dynamicpb.NewMessage(md)
		require.NoError(t, protojson.Unmarshal([]byte(text), want), text)
		b, err := fast.appendPayload(nil, []byte(text))
		require.NoError(t, err, text)
		got := dynamicpb.NewMessage(md)
		require.NoError(t, proto.Unmarshal(b, got), text)
		assert.True(t, proto.Equal(want, got), "%s:\nwant %v\ngot  %v", text, want, got)
		canonical, err := proto.MarshalOptions{Deterministic: true}.Marshal(want)
		require.NoError(t, err)
		if len(canonical) == len(b) {
			continue
		}
		assert.Len(t, b, len(canonical), "as many bytes as proto.Marshal writes: %s", text)
	}
	bad := map[string]string{
		`{"nope":1}`:                  ".nope",
		`{"i32":"x"}`:                 ".i32",
		`{"i32":3000000000}`:          ".i32",
		`{"u32":-1}`:                  ".u32",
		`{"b":"true"}`:                ".b",
		`{"color":"PINK"}`:            ".color",
		`{"inner":{"r":[1,"x"]}}`:     ".inner.r[1]",
		`{"by":"!!"}`:                 ".by",
		`{"a":"x","n":1}`:             ".n",
		`{"i32":1,"i32":2}`:           ".i32",
		`{"i32":1,"i_32":2}`:          ".i_32",
		`{"mi":{"x":{}}}`:             `.mi["x"]`,
		`{"str":1}`:                   ".str",
		`{"inners":[{"s":"a"},5]}`:    ".inners[1]",
		`{"child":{"child":{"z":1}}}`: ".child.child.z",
	}
	for text, path := range bad {
		assert.Error(t, protojson.Unmarshal([]byte(text), dynamicpb.NewMessage(md)), "protojson refuses %s", text)
		_, err := fast.appendPayload(nil, []byte(text))
		var fe *FieldError
		require.ErrorAs(t, err, &fe, text)
		assert.Equal(t, path, fe.Path, text)
	}
	for _, text := range []string{`{"i32":1`, `{"i32":1} x`, `[1]`, `{"str":"a` + "\x01" + `"}`} {
		_, err := fast.appendPayload(nil, []byte(text))
		assert.Error(t, err, text)
	}
}

func TestProtoFastFallsBack(t *testing.T) {
	for _, src := range []string{
		`syntax = "proto2"; message M { optional int32 a = 1; }`,
		`syntax = "proto3"; import "google/protobuf/timestamp.proto"; message M { google.protobuf.Timestamp at = 1; }`,
	} {
		ps, err := compileProto(&protoSources{memory: map[string]string{"m.proto": src}}, "m.proto", "")
		require.NoError(t, err)
		assert.Nil(t, compileProtoFast(ps.message), src)
	}
}

func TestProtoFastAllocatesNothing(t *testing.T) {
	fast := compileProtoFast(allKinds(t))
	text := []byte(`{"i64":"7","str":"user-1","db":12.5,"color":"GREEN","inner":{"s":"x","r":[1,2]},"m":{"k":1}}`)
	buf := make([]byte, 0, 256)
	_, err := fast.appendPayload(buf, text)
	require.NoError(t, err)
	assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = fast.appendPayload(buf[:0], text) }))
}
