package kafkatest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ConsumeDeadline bounds ConsumeAll.
const ConsumeDeadline = 30 * time.Second

// ConsumeAll reads topic from its start with a kgo consumer of the brokers
// at addrs, configured further by opts (ReadCommitted, TLS, SASL, a
// partition to read), until n records arrived, and fails the test unless
// exactly n did within ConsumeDeadline. A retriable fetch error is logged
// and waited out (the consumer retries it); any other fails the test.
func ConsumeAll(t testing.TB, addrs []string, topic string, n int, opts ...kgo.Opt) []*kgo.Record {
	t.Helper()
	opts = append([]kgo.Opt{kgo.SeedBrokers(addrs...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, opts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatalf("consumer of %s: %v", topic, err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), ConsumeDeadline)
	defer cancel()
	var recs []*kgo.Record
	for len(recs) < n {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			break
		}
		for _, fe := range fetches.Errors() {
			if !kerr.IsRetriable(fe.Err) && !errors.Is(fe.Err, context.DeadlineExceeded) {
				t.Fatalf("consuming %s: fetch %s/%d: %v", topic, fe.Topic, fe.Partition, fe.Err)
			}
			t.Logf("consuming %s: fetch %s/%d: %v (retried)", topic, fe.Topic, fe.Partition, fe.Err)
		}
		recs = append(recs, fetches.Records()...)
	}
	if len(recs) != n {
		t.Fatalf("consumed %d records from %s, want %d", len(recs), topic, n)
	}
	return recs
}

// ReadCommitted is the consumer option that reads only committed records
// (and those of no transaction).
func ReadCommitted() kgo.Opt { return kgo.FetchIsolationLevel(kgo.ReadCommitted()) }
