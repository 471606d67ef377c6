package producecmd_test

import (
	"encoding/base64"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

const stringAvsc = `{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}`

func TestSchemaRegistryAuth(t *testing.T) {
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:s3cret-pw"))
	e := newSREnv(t, srfake.WithAuth(basic))
	file := writeFile(t, "r.avsc", stringAvsc)
	hostPort := strings.TrimPrefix(e.url(), "http://")
	for name, args := range map[string][]string{
		"flag":     {"--schema-registry", e.url(), "--schema-registry-user", "alice:s3cret-pw"},
		"url":      {"--schema-registry", "http://alice:s3cret-pw@" + hostPort},
		"console":  {"-X", "schema.registry.url=" + e.url(), "-X", "basic.auth.credentials.source=USER_INFO", "-X", "basic.auth.user.info=alice:s3cret-pw"},
		"env only": {"--schema-registry", e.url()},
	} {
		t.Run(name, func(t *testing.T) {
			if name == "env only" {
				t.Setenv("KPRODUCE_SCHEMA_REGISTRY_USER", "alice:s3cret-pw")
			}
			run := e.produceSR(t, `{"s":"x"}`+"\n", append([]string{"-t", "t", "--value-schema", file, "--log-level", "debug"}, args...)...)
			require.Equal(t, 0, run.Code, run.Stderr)
			assert.NotContains(t, run.Stderr, "s3cret-pw")
		})
	}
	t.Run("refused", func(t *testing.T) {
		before := e.endOffset(t, "t")
		for _, creds := range [][]string{nil, {"--schema-registry-user", "alice:wrong-pw"}} {
			run := e.produceSR(t, `{"s":"x"}`+"\n", append([]string{"-t", "t", "--value-schema", file, "--schema-registry", e.url()}, creds...)...)
			assert.Equal(t, 1, run.Code)
			assert.Contains(t, run.Stderr, "schema registry "+e.url()+"/subjects/t-value/versions: register under subject \"t-value\": HTTP 40")
			assert.NotContains(t, run.Stderr, "wrong-pw")
		}
		assert.Equal(t, before, e.endOffset(t, "t"), "nothing produced")
	})
}

func TestSchemaRegistryBearerToken(t *testing.T) {
	e := newSREnv(t, srfake.WithAuth("Bearer tok-123"))
	file := writeFile(t, "r.avsc", stringAvsc)
	for _, args := range [][]string{
		{"--schema-registry", e.url(), "--schema-registry-token", "tok-123"},
		{"-X", "schema.registry.url=" + e.url(), "-X", "bearer.auth.credentials.source=STATIC_TOKEN", "-X", "bearer.auth.token=tok-123"},
	} {
		run := e.produceSR(t, `{"s":"x"}`+"\n", append([]string{"-t", "t", "--value-schema", file}, args...)...)
		require.Equal(t, 0, run.Code, run.Stderr)
	}
}

func TestSchemaRegistryErrorsStopTheRun(t *testing.T) {
	file := writeFile(t, "r.avsc", stringAvsc)
	for _, tc := range []struct {
		name  string
		setup func(e *srEnv)
		args  []string
		want  string
	}{
		{"unauthorized", func(e *srEnv) {
			e.failWith("/subjects/", 401, 401, "Unauthorized")
		}, []string{"--value-schema", file}, `register under subject "t-value": HTTP 401, error code 401: Unauthorized`},
		{"forbidden", func(e *srEnv) {
			e.failWith("/schemas/ids/", 403, 40301, "User is denied operation Read on Subject: t-value")
		}, []string{"--value-schema-id", "7"}, `schema id 7: HTTP 403, error code 40301: User is denied operation Read on Subject: t-value`},
		{"unknown id", nil, []string{"--value-schema-id", "999"}, `schema id 999: HTTP 404, error code 40403: schema not found`},
		{"unknown subject", nil, []string{"--value-schema-id", "topic"}, `latest version of subject "t-value": HTTP 404, error code 40401`},
		{"incompatible", func(e *srEnv) {
			e.failWith("/subjects/t-value/versions", 409, 409, "Schema being registered is incompatible with an earlier schema")
		}, []string{"--value-schema", file}, `register under subject "t-value": HTTP 409, error code 409: Schema being registered is incompatible`},
		{"invalid", func(e *srEnv) {
			e.failWith("/subjects/t-value/versions", 422, 42201, "Invalid schema")
		}, []string{"--value-schema", file}, `register under subject "t-value": HTTP 422, error code 42201: Invalid schema`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newSREnv(t)
			if tc.setup != nil {
				tc.setup(e)
			}
			run := e.produceSR(t, `{"s":"x"}`+"\n", append([]string{"-t", "t", "--schema-registry", e.url()}, tc.args...)...)
			assert.Equal(t, 1, run.Code)
			assert.Contains(t, run.Stderr, "error: schema registry "+e.url())
			assert.Contains(t, run.Stderr, tc.want)
			assert.Equal(t, 1, strings.Count(run.Stderr, "\n"), "one message: %s", run.Stderr)
			assert.Zero(t, e.endOffset(t, "t"), "nothing produced")
		})
	}
}

func TestSchemaRegistryUnreachableOrSilent(t *testing.T) {
	e := newSREnv(t)
	file := writeFile(t, "r.avsc", stringAvsc)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	refused := "http://" + closed.Addr().String()
	require.NoError(t, closed.Close())
	run := e.produceSR(t, `{"s":"x"}`+"\n", "-t", "t", "--schema-registry", refused, "--value-schema", file)
	assert.Equal(t, 1, run.Code)
	assert.Contains(t, run.Stderr, "error: schema registry "+refused+"/subjects/t-value/versions: register under subject \"t-value\": ")
	assert.Contains(t, run.Stderr, "connection refused")
	assert.Equal(t, 1, strings.Count(run.Stderr, "\n"), "one message: %s", run.Stderr)

	silent, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = silent.Close() })
	held := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held <- c // accepted, never answered
		}
	}()
	t.Cleanup(func() {
		for len(held) > 0 {
			_ = (<-held).Close()
		}
	})
	run = e.produceSR(t, `{"s":"x"}`+"\n", "-t", "t", "--schema-registry", "http://"+silent.Addr().String(), "--value-schema", file,
		"--bootstrap-timeout", "300ms")
	assert.Equal(t, 1, run.Code)
	assert.Contains(t, run.Stderr, `register under subject "t-value": no answer within 300ms (--bootstrap-timeout)`,
		"bounded by the bootstrap timeout, not the run's")
	assert.Equal(t, 1, strings.Count(run.Stderr, "\n"), "one message: %s", run.Stderr)
	assert.Zero(t, e.endOffset(t, "t"))
}

func TestSchemaUsageErrors(t *testing.T) {
	bad := writeFile(t, "bad.avsc", `{"type":"record","name":"R","fields":[{"name":"s","type":"strin"}]}`)
	good := writeFile(t, "r.avsc", stringAvsc)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--value-schema", good}, "--schema-registry: "},
		{[]string{"--schema-registry", "http://h:1", "--value-schema", bad}, "--value-schema: " + bad + ": Avro schema: record R: field s: unknown type \"strin\""},
		{[]string{"--schema-registry", "http://h:1", "--value-schema", "/nonexistent.avsc"}, "no such file"},
		{[]string{"--schema-registry", "http://h:1", "--value-schema-text", `{"type":"strin"}`}, "error: --value-schema-text: the schema given inline: Avro schema: "},
		{[]string{"--schema-registry", "http://h:1", "-K", ":", "--key-schema-text", `{"type":"strin"}`}, "error: --key-schema-text: the schema given inline: "},
		{[]string{"--schema-registry", "http://h:1", "--value-schema", good, "--value-schema-id", "3"}, "give one of --value-schema, --value-schema-text and --value-schema-id"},
		{[]string{"--schema-registry", "http://h:1", "--value-schema-id", "x"}, `--value-schema-id "x"`},
		{[]string{"--schema-registry", "http://h:1", "--value-schema", good, "--subject-strategy", "nope"}, "unknown subject name strategy"},
		{[]string{"--schema-registry", "http://h:1", "--key-schema", good}, "lines have no key to encode"},
		{[]string{"--schema-registry", "ftp://h:1", "--value-schema", good}, "want http://host:port"},
		{[]string{"--value-type", "a.B"}, "--value-type: "},
		{[]string{"--line-reader", "com.example.Reader"}, "kproduce cannot run Java reader classes"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			res := runKproduce(t, strings.NewReader("{}\n"), append([]string{"-b", "127.0.0.1:1", "-t", "t"}, tc.args...)...)
			assert.Equal(t, 2, res.Code, res.Stderr)
			assert.Contains(t, res.Stderr, tc.want)
		})
	}
}
