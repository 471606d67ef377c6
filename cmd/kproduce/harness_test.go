package main

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kproduce/kproduce/internal/kafkatest"
)

// streamWait bounds the wait for a run to reach a point a test needs.
const streamWait = 10 * time.Second

// e2eCluster starts a kfake cluster on loopback for one test: 3 brokers
// and, unless opts say otherwise, a 6-partition topic "t".
func e2eCluster(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	base := []kfake.Opt{kfake.NumBrokers(3), kfake.SeedTopics(6, "t"), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(6)}
	return kafkatest.NewCluster(t, append(base, opts...)...)
}
