package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// release is a Kafka release kfake can emulate.
type release struct {
	name     string
	versions *kversion.Versions
}

// releases are the Kafka releases from the oldest kproduce supports (0.11,
// the first with record batch v2 and Metadata v4) to the newest.
func releases() []release {
	return []release{
		{"0.11.0", kversion.V0_11_0()}, {"1.0", kversion.V1_0_0()}, {"1.1", kversion.V1_1_0()},
		{"2.0", kversion.V2_0_0()}, {"2.1", kversion.V2_1_0()}, {"2.2", kversion.V2_2_0()},
		{"2.3", kversion.V2_3_0()}, {"2.4", kversion.V2_4_0()}, {"2.5", kversion.V2_5_0()},
		{"2.6", kversion.V2_6_0()}, {"2.7", kversion.V2_7_0()}, {"2.8", kversion.V2_8_0()},
		{"3.0", kversion.V3_0_0()}, {"3.1", kversion.V3_1_0()}, {"3.2", kversion.V3_2_0()},
		{"3.3", kversion.V3_3_0()}, {"3.4", kversion.V3_4_0()}, {"3.5", kversion.V3_5_0()},
		{"3.6", kversion.V3_6_0()}, {"3.7", kversion.V3_7_0()}, {"3.8", kversion.V3_8_0()},
		{"3.9", kversion.V3_9_0()}, {"4.0", kversion.V4_0_0()}, {"4.1", kversion.V4_1_0()},
		{"4.2", kversion.V4_2_0()}, {"4.3", kversion.V4_3_0()}, {"4.4", kversion.V4_4_0()},
		{"latest", kversion.Stable()},
	}
}

// matrixKeys are the APIs whose chosen versions the matrix checks.
var matrixKeys = []protocol.APIKey{
	protocol.KeyApiVersions, protocol.KeyMetadata, protocol.KeyProduce, protocol.KeyInitProducerId,
	protocol.KeyFindCoordinator, protocol.KeyAddPartitionsToTxn, protocol.KeyEndTxn,
}

// versionLog records the versions of the requests a kfake cluster served,
// per API, in the order seen.
type versionLog struct {
	mu   sync.Mutex
	seen map[int16][]int16
}

// observe makes c record every request's version.
func (l *versionLog) observe(c *kfake.Cluster) {
	l.seen = map[int16][]int16{}
	c.Control(func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		l.mu.Lock()
		l.seen[req.Key()] = append(l.seen[req.Key()], req.GetVersion())
		l.mu.Unlock()
		return nil, nil, false
	})
}

// of returns the distinct versions seen for key, in the order first seen.
func (l *versionLog) of(key protocol.APIKey) []int16 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []int16
	for _, v := range l.seen[int16(key)] {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// matrixCluster is a three-broker kfake capped at rel, with the topics the
// matrix uses, recording the request versions.
func matrixCluster(t *testing.T, rel *kversion.Versions) (*kfake.Cluster, *versionLog) {
	t.Helper()
	c := kafkatest.NewCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(3, "plain", "keyed", "txn", "check"), kfake.MaxVersions(rel))
	log := &versionLog{}
	log.observe(c)
	return c, log
}

// brokerVersions asks the cluster which versions it serves.
func brokerVersions(t *testing.T, addrs []string) map[int16]int16 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	require.NoError(t, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	require.NoError(t, err)
	out := map[int16]int16{}
	for _, k := range resp.ApiKeys {
		out[k.ApiKey] = k.MaxVersion
	}
	return out
}

// keyedInput is n lines "k<i%5>:v<i>".
func keyedInput(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "k%d:v%d\n", i%5, i)
	}
	return b.String()
}

// assertKeyedReadBack checks the records are exactly keyedInput(n): every
// value once, each key in one partition, in input order.
func assertKeyedReadBack(t *testing.T, recs []*kgo.Record, n int) {
	t.Helper()
	require.Len(t, recs, n)
	part := map[string]int32{}
	last := map[string]int{}
	seen := map[string]bool{}
	slices.SortFunc(recs, func(a, b *kgo.Record) int {
		if a.Partition != b.Partition {
			return int(a.Partition - b.Partition)
		}
		return int(a.Offset - b.Offset)
	})
	for _, r := range recs {
		k, v := string(r.Key), string(r.Value)
		var i int
		_, err := fmt.Sscanf(v, "v%d", &i)
		require.NoError(t, err, v)
		assert.Equal(t, fmt.Sprintf("k%d", i%5), k)
		assert.False(t, seen[v], "%s read twice", v)
		seen[v] = true
		if p, ok := part[k]; ok {
			assert.Equal(t, p, r.Partition, "key %s in one partition", k)
			assert.Greater(t, i, last[k], "key %s in order", k)
		}
		part[k], last[k] = r.Partition, i
		require.Len(t, r.Headers, 1)
		assert.Equal(t, "h", r.Headers[0].Key)
		assert.Equal(t, "1", string(r.Headers[0].Value))
	}
}

// matrixRow is the versions kproduce used against one release.
type matrixRow struct {
	release string
	used    map[protocol.APIKey][]int16
}

// TestVersionMatrix produces plain, keyed idempotent and transactional
// records to kfake capped at each Kafka release since 0.11, runs metadata
// and check, reads everything back with franz-go, and checks each request
// went at the newest version both sides speak.
func TestVersionMatrix(t *testing.T) {
	t.Parallel()
	rows := make([]matrixRow, len(releases()))
	t.Cleanup(func() { logMatrix(t, rows) })
	for i, rel := range releases() {
		t.Run(rel.name, func(t *testing.T) {
			t.Parallel()
			rows[i] = matrixRow{release: rel.name, used: runMatrixRelease(t, rel)}
		})
	}
}

// runMatrixRelease runs the matrix against one release and returns the
// versions used. Every kproduce run comes first, so that the versions
// recorded are kproduce's alone; franz-go reads back afterwards.
func runMatrixRelease(t *testing.T, rel release) map[protocol.APIKey][]int16 {
	c, log := matrixCluster(t, rel.versions)
	addrs := c.ListenAddrs()
	b := strings.Join(addrs, ",")
	codec := "lz4"
	if v, ok := rel.versions.LookupMaxKeyVersion(int16(protocol.KeyProduce)); ok && v >= protocol.MinProduceVersionZstd {
		codec = "zstd"
	}
	const n = 50
	runs := [][]string{
		{"-t", "plain", "-a", "1", "--idempotence=false", "-z", codec},
		{"-t", "keyed", "-K", ":", "-H", "h=1", "-z", codec},
		{"-t", "txn", "-K", ":", "-H", "h=1", "--transactional-id", "matrix-" + rel.name},
	}
	for _, args := range runs {
		res := runKproduce(t, time.Minute, keyedInput(n), append(args, "-b", b, "-o", "none")...)
		require.Equal(t, 0, res.code, "%v: %s", args, res.stderr)
	}
	res := runKproduce(t, time.Minute, "", "metadata", "-b", b, "-o", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var md struct {
		Brokers []struct{ ID int32 }    `json:"brokers"`
		Topics  []struct{ Name string } `json:"topics"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &md), res.stdout)
	assert.Len(t, md.Brokers, 3)
	assert.Len(t, md.Topics, 4)
	res = runKproduce(t, time.Minute, "", "check", "-b", b, "-t", "check", "-o", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var check struct {
		OK bool `json:"ok"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &check), res.stdout)
	assert.True(t, check.OK, res.stdout)

	used := map[protocol.APIKey][]int16{}
	for _, key := range matrixKeys {
		used[key] = log.of(key)
	}
	broker := brokerVersions(t, addrs)
	for _, key := range matrixKeys {
		cv, _ := protocol.ClientVersions(key)
		want := min(cv.Max, broker[int16(key)])
		got := used[key]
		require.NotEmpty(t, got, "%s used", key)
		if key == protocol.KeyApiVersions {
			// The first request is at kproduce's newest; a broker that does
			// not serve it answers in the v0 layout and is asked again.
			assert.Equal(t, cv.Max, got[0])
			assert.Equal(t, want, got[len(got)-1], "ApiVersions settles at the newest both speak")
			continue
		}
		assert.Equal(t, []int16{want}, got, "%s at the newest version both speak", key)
	}
	assert.Len(t, kafkatest.ConsumeAll(t, addrs, "plain", n, kafkatest.ReadCommitted()), n)
	assertKeyedReadBack(t, kafkatest.ConsumeAll(t, addrs, "keyed", n, kafkatest.ReadCommitted()), n)
	assertKeyedReadBack(t, kafkatest.ConsumeAll(t, addrs, "txn", n, kafkatest.ReadCommitted()), n)
	return used
}

// logMatrix prints the versions used per release, for the README.
func logMatrix(t *testing.T, rows []matrixRow) {
	var b strings.Builder
	b.WriteString("release")
	for _, k := range matrixKeys {
		fmt.Fprintf(&b, " | %s", k)
	}
	b.WriteString("\n")
	for _, r := range rows {
		if r.used == nil {
			continue
		}
		b.WriteString(r.release)
		for _, k := range matrixKeys {
			var vs []string
			for _, v := range r.used[k] {
				vs = append(vs, fmt.Sprintf("v%d", v))
			}
			fmt.Fprintf(&b, " | %s", strings.Join(vs, ","))
		}
		b.WriteString("\n")
	}
	t.Logf("versions used per release:\n%s", b.String())
}

// TestTooOldBrokersFailFast: a broker without Metadata v4 (before Kafka
// 0.11) is given up on at once, naming both version ranges; zstd to a
// broker before Kafka 2.1 (Produce below v7) fails before anything is
// sent. Neither waits for the delivery timeout.
func TestTooOldBrokersFailFast(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rel  *kversion.Versions
		args []string
		want []string
	}{
		{"Kafka 0.10.2 produce", kversion.V0_10_2(), []string{"-t", "plain"},
			[]string{"Metadata: the broker supports v0-v2, kproduce speaks v4-v12 (the broker is too old); upgrade the broker (kproduce needs Kafka 0.11 or newer)"}},
		{"Kafka 0.10.2 metadata", kversion.V0_10_2(), []string{"metadata"},
			[]string{"Metadata: the broker supports v0-v2", "upgrade the broker"}},
		{"Kafka 0.10.0 produce", kversion.V0_10_0(), []string{"-t", "plain"},
			[]string{"Metadata: the broker supports v0-v1, kproduce speaks v4-v12"}},
		{"zstd to Kafka 2.0", kversion.V2_0_0(), []string{"-t", "plain", "-z", "zstd"},
			[]string{"zstd needs Produce v7 (Kafka 2.1 or newer), the broker speaks at most v6: choose another compression or upgrade the broker"}},
		{"zstd to Kafka 1.1 with idempotence off", kversion.V1_1_0(), []string{"-t", "plain", "-z", "zstd", "--idempotence=false"},
			[]string{"zstd needs Produce v7 (Kafka 2.1 or newer), the broker speaks at most v5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, log := matrixCluster(t, tt.rel)
			args := append(tt.args, "-b", strings.Join(c.ListenAddrs(), ","), "--delivery-timeout", "1m")
			if tt.args[0] == "metadata" {
				args = append(tt.args, "-b", strings.Join(c.ListenAddrs(), ","), "--timeout", "1m")
			}
			res := runKproduce(t, time.Minute, "a\nb\nc\n", args...)
			t.Logf("exit %d after %v; stderr:\n%s", res.code, res.took.Round(time.Millisecond), res.stderr)
			assert.Equal(t, 1, res.code)
			assert.Less(t, res.took, 5*time.Second, "fails fast, not at the delivery timeout")
			for _, w := range tt.want {
				assert.Contains(t, res.stderr, w)
			}
			assert.Empty(t, log.of(protocol.KeyProduce), "nothing produced")
			assert.Empty(t, res.stdout)
		})
	}
}
