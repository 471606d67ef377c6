package producecmd_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/network/networktest"
)

// TestE2ETopicFlagBeatsRecordTopic: copying a topic with kcat -C -J |
// kproduce -f json -t dst writes every record into dst, never back into
// the source, with one warning; each keeps its key, value, headers and
// partition.
func TestE2ETopicFlagBeatsRecordTopic(t *testing.T) {
	t.Parallel()
	c := kafkatest.ProducerCluster(t)
	var in strings.Builder
	for i := range 20 {
		fmt.Fprintf(&in, `{"topic":"src","partition":%d,"offset":%d,"tstype":"create","ts":1700000000000,"broker":1,"headers":["h","%d"],"key":"k%d","payload":"v%d"}`+"\n",
			i%6, i, i, i, i)
	}
	res := produceTo(t, c, strings.NewReader(in.String()), "-f", "json", "-t", "dst")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	assert.Equal(t, 1, strings.Count(res.Stderr, "WRN"), res.Stderr)
	assert.Contains(t, res.Stderr, "records name their own topic (src first); -t dst was given, so every record goes to dst")
	kafkatest.RequireEmpty(t, c, "src")
	for _, r := range kafkatest.ConsumeExactly(t, c, "dst", 20) {
		var i int
		_, err := fmt.Sscanf(string(r.Value), "v%d", &i)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("k%d", i), string(r.Key))
		assert.EqualValues(t, i%6, r.Partition, "the record's partition is kept")
		assert.Equal(t, []string{fmt.Sprintf("h=%d", i)}, headerList(r))
	}
}

// TestE2EPropertyHelp: -X help and -X list list every name of the
// property table; -X dump points to kproduce config.
func TestE2EPropertyHelp(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"help", "list"} {
		res := runKproduce(t, nil, "-X", flag)
		require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
		for _, row := range javaprops.Table() {
			for _, name := range row.Names() {
				assert.Contains(t, res.Stdout, name, "-X %s", flag)
			}
			if row.Option != "" {
				assert.Contains(t, res.Stdout, "--"+strings.Split(row.Option, ",")[0])
			}
		}
	}
	res := runKproduce(t, nil, "-X", "dump")
	assert.Equal(t, cmdutil.ExitUsage, res.Code)
	assert.Contains(t, res.Stderr, "kproduce config")
}

// TestE2EProfilesAndDefaultConfig: the default config file is read
// without --config; its profile key, KPRODUCE_PROFILE and --profile pick
// the cluster, each over the one before.
func TestE2EProfilesAndDefaultConfig(t *testing.T) { // not parallel: it sets the environment
	c := kafkatest.ProducerCluster(t)
	kafkatest.WithDefaultConfig(t, fmt.Sprintf(`brokers: [%s]
bootstrap-timeout: 2s
profile: local
profiles:
  local:
    brokers: [%s]
    topic: from-local
  stage:
    brokers: [%s]
    topic: from-stage
`, networktest.ClosedAddr(t), kafkatest.Brokers(c), networktest.ClosedAddr(t)))
	res := runKproduce(t, strings.NewReader("a\n"))
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	kafkatest.ConsumeExactly(t, c, "from-local", 1)

	t.Setenv("KPRODUCE_PROFILE", "stage")
	res = runKproduce(t, strings.NewReader("b\n"))
	assert.Equal(t, cmdutil.ExitFailed, res.Code, "the stage profile's cluster is down: %s", res.Stderr)
	res = runKproduce(t, strings.NewReader("c\n"), "--profile", "local", "-t", "flag-topic")
	require.Equal(t, cmdutil.ExitOK, res.Code, res.Stderr)
	kafkatest.ConsumeExactly(t, c, "flag-topic", 1)
	kafkatest.RequireEmpty(t, c, "from-stage")

	res = runKproduce(t, strings.NewReader("d\n"), "--profile", "prod")
	assert.Equal(t, cmdutil.ExitUsage, res.Code)
	assert.Contains(t, res.Stderr, `no profile "prod": the profiles are local, stage`)
}
