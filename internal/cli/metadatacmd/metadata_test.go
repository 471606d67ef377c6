package metadatacmd_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// jsonBroker is one broker of kproduce metadata -o json.
type jsonBroker struct {
	ID          int32   `json:"id"`
	Host        string  `json:"host"`
	Port        int32   `json:"port"`
	Rack        *string `json:"rack"`
	APIVersions map[string]struct {
		Kproduce struct{ Min, Max int16 }  `json:"kproduce"`
		Broker   *struct{ Min, Max int16 } `json:"broker"`
		Version  *int16                    `json:"version"`
	} `json:"api_versions"`
}

// jsonMetadata is kproduce metadata -o json, decoded.
type jsonMetadata struct {
	ClusterID  *string      `json:"cluster_id"`
	Controller int32        `json:"controller"`
	Brokers    []jsonBroker `json:"brokers"`
	Topics     []struct {
		Name       string  `json:"name"`
		Error      *string `json:"error"`
		Partitions []struct {
			Partition int32   `json:"partition"`
			Leader    int32   `json:"leader"`
			Replicas  []int32 `json:"replicas"`
			ISR       []int32 `json:"isr"`
			Error     *string `json:"error"`
		} `json:"partitions"`
	} `json:"topics"`
}

// assertMatchesOracle compares the JSON metadata with franz-go's.
func assertMatchesOracle(t *testing.T, want *kmsg.MetadataResponse, got jsonMetadata) {
	t.Helper()
	assert.Equal(t, want.ClusterID, got.ClusterID)
	assert.Equal(t, want.ControllerID, got.Controller)
	require.Len(t, got.Brokers, len(want.Brokers))
	for _, wb := range want.Brokers {
		i := slices.IndexFunc(got.Brokers, func(b jsonBroker) bool { return b.ID == wb.NodeID })
		require.GreaterOrEqual(t, i, 0, "broker %d", wb.NodeID)
		assert.Equal(t, wb.Host, got.Brokers[i].Host)
		assert.Equal(t, wb.Port, got.Brokers[i].Port)
		assert.Equal(t, wb.Rack, got.Brokers[i].Rack)
	}
	require.Len(t, got.Topics, len(want.Topics))
	for _, wt := range want.Topics {
		var found bool
		for _, gt := range got.Topics {
			if gt.Name != *wt.Topic {
				continue
			}
			found = true
			require.Len(t, gt.Partitions, len(wt.Partitions), gt.Name)
			for _, wp := range wt.Partitions {
				gp := gt.Partitions[wp.Partition]
				assert.Equal(t, wp.Partition, gp.Partition, "partitions sorted")
				assert.Equal(t, wp.Leader, gp.Leader)
				assert.Equal(t, wp.Replicas, gp.Replicas)
				assert.Equal(t, wp.ISR, gp.ISR)
				assert.Nil(t, gp.Error)
			}
		}
		assert.True(t, found, "topic %s", *wt.Topic)
	}
}

func TestE2EMetadataJSON(t *testing.T) {
	c := kafkatest.AdminCluster(t)
	res := runMetadata(t, "-b", kafkatest.Brokers(c), "-o", "json")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Empty(t, res.Stderr)
	got := decodeMetadata(t, res.Stdout)
	assertMatchesOracle(t, kafkatest.Metadata(t, c.ListenAddrs()), got)

	// The field names and shapes CONTRACT.md fixes.
	var raw map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &raw))
	kafkatest.RequireKeys(t, raw, "cluster_id", "controller", "brokers", "topics")
	broker := raw["brokers"].([]any)[0].(map[string]any)
	kafkatest.RequireKeys(t, broker, "id", "host", "port", "rack", "api_versions")
	topic := raw["topics"].([]any)[0].(map[string]any)
	kafkatest.RequireKeys(t, topic, "name", "partitions")
	part := topic["partitions"].([]any)[0].(map[string]any)
	kafkatest.RequireKeys(t, part, "partition", "leader", "replicas", "isr", "error")
	assert.Nil(t, part["error"])

	// Versions: kfake's ranges, and the version used is min(kproduce max,
	// broker max).
	for _, b := range got.Brokers {
		produce := b.APIVersions["Produce"]
		require.NotNil(t, produce.Broker, "broker %d", b.ID)
		assert.Equal(t, struct{ Min, Max int16 }{3, 13}, *produce.Broker)
		require.NotNil(t, produce.Version)
		assert.Equal(t, min(produce.Kproduce.Max, produce.Broker.Max), *produce.Version)
		for _, api := range []string{"Metadata", "ApiVersions", "InitProducerId", "SaslHandshake", "SaslAuthenticate", "CreateTopics"} {
			assert.NotNil(t, b.APIVersions[api].Version, "broker %d %s", b.ID, api)
		}
	}
}

func TestE2EMetadataText(t *testing.T) {
	c := kafkatest.AdminCluster(t)
	res := runMetadata(t, "-b", kafkatest.Brokers(c))
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	oracle := kafkatest.Metadata(t, c.ListenAddrs())
	out := res.Stdout
	assert.Contains(t, out, "3 brokers:")
	for _, b := range oracle.Brokers {
		line := fmt.Sprintf("  %d   %s:%d", b.NodeID, b.Host, b.Port)
		found := slices.ContainsFunc(kafkatest.Lines(out), func(l string) bool { return strings.HasPrefix(l, line) })
		assert.True(t, found, "a line for broker %d in\n%s", b.NodeID, out)
		if b.NodeID == oracle.ControllerID {
			assert.Regexp(t, fmt.Sprintf(`(?m)^  %d .*controller$`, b.NodeID), out)
		}
	}
	assert.Regexp(t, `(?m)^  Produce +v3-v11 +v11 +v11 +v11$`, out)
	assert.Regexp(t, `(?m)^  CreateTopics +v2-v7 +v7 +v7 +v7$`, out)
	assert.Contains(t, out, `topic "t", 6 partitions:`)
	assert.Contains(t, out, `topic "u", 2 partitions:`)
	for p := int32(0); p < 6; p++ {
		assert.Regexp(t, fmt.Sprintf(`(?m)^    %d +%d +`, p, c.LeaderFor("t", p)), out)
	}
}

func TestE2EMetadataOneTopicAndMissing(t *testing.T) {
	c := kafkatest.AdminCluster(t)
	res := runMetadata(t, "-b", kafkatest.Brokers(c), "-t", "u", "-o", "json")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	got := decodeMetadata(t, res.Stdout)
	require.Len(t, got.Topics, 1)
	assertMatchesOracle(t, kafkatest.Metadata(t, c.ListenAddrs(), "u"), got)

	res = runMetadata(t, "-b", kafkatest.Brokers(c), "-t", "missing", "-o", "json")
	assert.Equal(t, cmdutil.ExitFailed, res.Code)
	got = decodeMetadata(t, res.Stdout)
	require.Len(t, got.Topics, 1)
	require.NotNil(t, got.Topics[0].Error)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", *got.Topics[0].Error)
	assert.Empty(t, got.Topics[0].Partitions)

	res = runMetadata(t, "-b", kafkatest.Brokers(c), "-t", "missing")
	assert.Equal(t, cmdutil.ExitFailed, res.Code)
	assert.Contains(t, res.Stdout, `topic "missing": error UNKNOWN_TOPIC_OR_PARTITION`)
	assert.Contains(t, res.Stderr, "error: topic missing: UNKNOWN_TOPIC_OR_PARTITION")
	assert.NotZero(t, kafkatest.Metadata(t, c.ListenAddrs(), "missing").Topics[0].ErrorCode, "metadata does not create topics")
}

func TestE2EMetadataOlderBroker(t *testing.T) {
	// Kafka 0.11 has no SaslAuthenticate (KIP-152 came in 1.0).
	c := kafkatest.AdminCluster(t, kfake.MaxVersions(kversion.V0_11_0()))
	res := runMetadata(t, "-b", kafkatest.Brokers(c), "-o", "json")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	got := decodeMetadata(t, res.Stdout)
	for _, b := range got.Brokers {
		sa := b.APIVersions["SaslAuthenticate"]
		assert.Nil(t, sa.Broker, "broker %d", b.ID)
		assert.Nil(t, sa.Version, "unsupported")
		require.NotNil(t, b.APIVersions["Metadata"].Version)
		assert.Equal(t, int16(4), *b.APIVersions["Metadata"].Version, "0.11 speaks Metadata up to v4")
	}
	text := runMetadata(t, "-b", kafkatest.Brokers(c))
	assert.Regexp(t, `(?m)^  SaslAuthenticate +v0-v2 +unsupported +unsupported +unsupported$`, text.Stdout)
}

func TestE2EMetadataUnreachable(t *testing.T) {
	addr := networktest.ClosedAddr(t)
	start := time.Now()
	res := runMetadata(t, "-b", addr, "--timeout", "500ms")
	took := time.Since(start)
	assert.Equal(t, cmdutil.ExitFailed, res.Code)
	assert.Contains(t, res.Stderr, "unreachable")
	assert.Contains(t, res.Stderr, addr)
	assert.Less(t, took, 10*time.Second, "bounded by --timeout")
	assert.Empty(t, res.Stdout)
}

// TestE2EMetadataConnectionOptions: the connection options resolve like
// the root command's: env, a config file holding producer options too,
// -X; and the subcommand's own flags are checked.
func TestE2EMetadataConnectionOptions(t *testing.T) {
	c := kafkatest.AdminCluster(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "kproduce.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("brokers: ["+networktest.ClosedAddr(t)+"]\nacks: all\nlinger: 5ms\noutput: none\ncount: 7\n"), 0o600))
	t.Setenv("KPRODUCE_BROKERS", kafkatest.Brokers(c))
	res := runMetadata(t, "--config", cfg, "-t", "t")
	require.Equal(t, cmdutil.ExitOK, res.Code, "env beats the config file; producer keys are accepted: %s", res.Stderr)
	assert.Contains(t, res.Stdout, `topic "t", 6 partitions:`)

	props := filepath.Join(dir, "producer.properties")
	require.NoError(t, os.WriteFile(props, []byte("bootstrap.servers="+kafkatest.Brokers(c)+"\nlinger.ms=5\n"), 0o600))
	t.Setenv("KPRODUCE_BROKERS", "")
	res = runMetadata(t, "--config", props, "-t", "u", "-o", "json")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Len(t, decodeMetadata(t, res.Stdout).Topics, 1)

}

// TestE2EMetadataBrokerDown: a broker that went down without the cluster
// noticing is listed, its versions are missing with the reason, and the
// exit status is 1; the others are described.
func TestE2EMetadataBrokerDown(t *testing.T) {
	var listeners kafkatest.Listeners
	c := kafkatest.AdminCluster(t, kfake.ListenFn(listeners.Listen))
	down := c.LeaderFor("t", 0)
	require.NoError(t, listeners.Down(down))

	res := runMetadata(t, "-b", kafkatest.Brokers(c), "--timeout", "1500ms", "-o", "json")
	assert.Equal(t, cmdutil.ExitFailed, res.Code, res.Stderr)
	var raw struct {
		Brokers []struct {
			ID          int32           `json:"id"`
			APIVersions json.RawMessage `json:"api_versions"`
			Error       *string         `json:"error"`
		} `json:"brokers"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &raw), res.Stdout)
	require.Len(t, raw.Brokers, 3)
	for _, b := range raw.Brokers {
		if b.ID != down {
			assert.Nil(t, b.Error, "broker %d", b.ID)
			assert.NotEqual(t, "null", string(b.APIVersions))
			continue
		}
		assert.Equal(t, "null", string(b.APIVersions))
		require.NotNil(t, b.Error)
		assert.Contains(t, *b.Error, "unreachable")
		assert.Contains(t, *b.Error, "refused")
	}
}

// TestE2EMetadataSecurity runs metadata over TLS with SCRAM.
func TestE2EMetadataSecurity(t *testing.T) {
	const user, pass = "alice", "wonder-land-7f3a"
	certs := networktest.NewCertFiles(t)
	c := kafkatest.AdminCluster(t, kfake.TLS(certs.ServerTLS(false)), kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", user, pass))
	t.Setenv("KPRODUCE_SASL_PASSWORD", pass)
	res := runMetadata(t, "-t", "t", "-b", kafkatest.Brokers(c), "--tls-ca", certs.CA, "--sasl-mechanism", "SCRAM-SHA-256",
		"--sasl-username", user)
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Contains(t, res.Stdout, `topic "t", 6 partitions:`)
}

// TestMetadataTimeoutAnnounced: with --timeout D against an address where
// nothing listens, metadata announces that it retries for up to D, not
// the 10s bootstrap default.
func TestMetadataTimeoutAnnounced(t *testing.T) {
	r := runMetadata(t, "-b", networktest.ClosedAddr(t), "--timeout", "1500ms")
	assert.Equal(t, cmdutil.ExitFailed, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "retrying for up to 1.5s")
	assert.NotContains(t, r.Stderr, "10s")
}
