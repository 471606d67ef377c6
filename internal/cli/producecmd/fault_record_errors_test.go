package producecmd_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// failingFault fails count requests carrying one of partitions with err,
// starting from the 10th Produce request.
func failingFault(err *kerr.Error, count int, partitions ...int32) func(*testing.T, *faultCluster) {
	return func(_ *testing.T, fc *faultCluster) {
		fc.inject(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: fc.topic, Partitions: partitions,
			Err: err, Count: count, When: afterRequests(fc, 10)})
	}
}

// recordErrorScenarios are answers that fail records for good. Only the
// records of the faulted partitions may fail, with the broker's error;
// everything else is delivered exactly once.
func recordErrorScenarios() []faultScenario {
	onP3 := onPartitions(3)
	return []faultScenario{
		{
			name:  "UNKNOWN_TOPIC_OR_PARTITION past the delivery timeout",
			setup: failingFault(kerr.UnknownTopicOrPartition, -1, 3),
			args:  []string{"--delivery-timeout", deliveryTimeoutArg(5 * time.Second)},
			exp:   faultExpect{mayFail: onP3, reason: "delivery timeout expired"},
		},
		{
			// The broker appends every attempt and answers
			// REQUEST_TIMED_OUT: the records fail at the delivery
			// timeout, yet they may well be stored, and the report
			// must say so.
			name:  "REQUEST_TIMED_OUT past the delivery timeout",
			setup: failingFault(kerr.RequestTimedOut, -1, 3),
			args:  []string{"--delivery-timeout", deliveryTimeoutArg(5 * time.Second)},
			exp:   faultExpect{mayFail: onP3},
		},
		{
			name:  "TOPIC_AUTHORIZATION_FAILED",
			setup: failingFault(kerr.TopicAuthorizationFailed, 2, 2),
			exp:   faultExpect{mayFail: onPartitions(2), reason: "TOPIC_AUTHORIZATION_FAILED"},
		},
		{
			name:  "INVALID_RECORD",
			setup: failingFault(kerr.InvalidRecord, 1, 5),
			exp:   faultExpect{mayFail: onPartitions(5), reason: "INVALID_RECORD"},
		},
		{
			name:  "CORRUPT_MESSAGE",
			setup: failingFault(kerr.CorruptMessage, 2, 0),
			exp:   faultExpect{mayFail: onPartitions(0), reason: "CORRUPT_MESSAGE"},
		},
	}
}

// TestFaultRecordErrors checks that errors that cannot be retried fail the
// records they concern, promptly, and only those.
func TestFaultRecordErrors(t *testing.T) {
	t.Parallel()
	stats := runScenarioTable(t, recordErrorScenarios(), true)
	t.Cleanup(func() {
		for name, st := range stats {
			assert.Positive(t, st.failed, "%s: no record failed", name)
		}
	})
}

// TestFaultUnknownPartitionFailsInTime checks that records of a partition
// that stays unknown fail at the delivery timeout, not later.
func TestFaultUnknownPartitionFailsInTime(t *testing.T) {
	t.Parallel()
	in := newFaultInput(faultRecordCount()/4, faultDistinctKeys)
	fc := newFaultCluster(t, nil)
	fc.inject(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: fc.topic, Partitions: []int32{3},
		Err: kerr.UnknownTopicOrPartition, Count: -1})
	timeout := faultDeliveryTimeout(3 * time.Second)
	out := runFault(t, fc, in, "--delivery-timeout", timeout.String())
	st := out.faultCheck(t, fc, in, faultExpect{mustFail: onPartitions(3), reason: "delivery timeout expired"})
	assert.Positive(t, st.failed)
	// A batch whose request is still in flight at its deadline is reported
	// as such; the others name the broker's answer.
	named := 0
	for _, r := range out.reports {
		if r.Error != nil && strings.Contains(*r.Error, "UNKNOWN_TOPIC_OR_PARTITION") {
			named++
		}
	}
	assert.Positive(t, named, "no failure names the broker's error")
	assert.Less(t, out.elapsed, timeout+10*time.Second, "records failed long after the delivery timeout")
}

// TestFaultMessageTooLarge runs against brokers whose message.max.bytes is
// below the batch size: batches must be split until they fit, and only the
// records too large on their own fail.
func TestFaultMessageTooLarge(t *testing.T) {
	t.Parallel()
	for _, idem := range []bool{true, false} {
		t.Run(fmt.Sprintf("idempotence=%v", idem), func(t *testing.T) {
			t.Parallel()
			in := newFaultInput(faultRecordCount(), faultDistinctKeys)
			oversized := []int64{100, int64(len(in.keys) / 2), int64(len(in.keys) - 7)}
			for _, line := range oversized {
				in.withValue(int(line), fmt.Sprintf("line-%07d-%s", line, strings.Repeat("x", 1600)))
			}
			fc := newFaultCluster(t, nil, kfake.BrokerConfigs(map[string]string{"message.max.bytes": "1200"}))
			out := runFault(t, fc, in, fmt.Sprintf("--idempotence=%v", idem))
			tooLarge := func(r *faultReport) bool { return slices.Contains(oversized, r.Record) }
			st := out.faultCheck(t, fc, in, faultExpect{atLeastOnce: !idem, mustFail: tooLarge, reason: "MESSAGE_TOO_LARGE"})
			require.Equal(t, len(oversized), st.failed)
		})
	}
}
