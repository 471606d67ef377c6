package producecmd_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestE2ELinesReportsMatchConsumedOffsets produces lines and checks every
// text report against the record found at that offset.
func TestE2ELinesReportsMatchConsumedOffsets(t *testing.T) {
	c := kafkatest.ProducerCluster(t)
	var in strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&in, "value-%d\n", i)
	}
	res := runKproduce(t, strings.NewReader(in.String()), "-b", kafkatest.Brokers(c), "-t", "t")
	require.Equal(t, 0, res.Code, res.Stderr)
	reports := kafkatest.Lines(res.Stdout)
	require.Len(t, reports, 1000)
	recs := kafkatest.ConsumeAll(t, c.ListenAddrs(), "t", 1000)
	byPos := map[string]string{}
	for _, r := range recs {
		byPos[fmt.Sprintf("t/%d@%d", r.Partition, r.Offset)] = string(r.Value)
	}
	for i, rep := range reports {
		assert.Equal(t, fmt.Sprintf("value-%d", i), byPos[rep], "report %d: %s", i, rep)
	}
}
