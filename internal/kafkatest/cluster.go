package kafkatest

import (
	"context"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// NewCluster starts a kfake cluster on loopback with opts (kfake's
// defaults otherwise: three brokers, no topic); it is closed when the test
// ends.
func NewCluster(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatalf("starting a kfake cluster: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// Brokers is the -b value of c: its listen addresses, comma-separated.
func Brokers(c *kfake.Cluster) string { return strings.Join(c.ListenAddrs(), ",") }

// Metadata is the cluster's metadata as franz-go reads it from the brokers
// at addrs: the oracle for what kproduce shows. No topics: every topic.
func Metadata(t testing.TB, addrs []string, topics ...string) *kmsg.MetadataResponse {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		t.Fatalf("metadata client: %v", err)
	}
	defer cl.Close()
	req := kmsg.NewPtrMetadataRequest()
	for _, name := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, rt)
	}
	if topics == nil {
		req.Topics = nil // every topic
	}
	ctx, cancel := context.WithTimeout(context.Background(), ConsumeDeadline)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("metadata of %q: %v", topics, err)
	}
	return resp
}

// RequireKeys fails the test unless the JSON object obj has at least the
// keys want (extra keys are allowed).
func RequireKeys(t testing.TB, obj map[string]any, want ...string) {
	t.Helper()
	for _, k := range want {
		if _, ok := obj[k]; !ok {
			t.Errorf("no key %q in %v", k, obj)
		}
	}
}

// AdminCluster starts the cluster of the tests of the admin side (pkg/admin,
// pkg/fetcher, kproduce check and metadata): 3 brokers, the 6-partition
// topic "t" and the 2-partition topic "u", no automatic topic creation,
// and opts.
func AdminCluster(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	return NewCluster(t, append([]kfake.Opt{kfake.NumBrokers(3), kfake.SeedTopics(6, "t"), kfake.SeedTopics(2, "u")}, opts...)...)
}

// ProducerCluster starts the cluster of the produce command's end-to-end
// tests: 3 brokers, the 6-partition topic "t", and other topics created on
// first use with 6 partitions, unless opts say otherwise.
func ProducerCluster(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	base := []kfake.Opt{kfake.NumBrokers(3), kfake.SeedTopics(6, "t"), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(6)}
	return NewCluster(t, append(base, opts...)...)
}
