package protocol

import (
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
)

// errKerrNames lists the codes whose Kafka name kerr spells differently.
var errKerrNames = map[int16]string{
	6: "NOT_LEADER_FOR_PARTITION", // Kafka renamed it NOT_LEADER_OR_FOLLOWER (KIP-392)
}

// TestErrorTableMatchesKerr checks every entry against franz-go's kerr, an
// independently maintained copy of Kafka's Errors.java.
func TestErrorTableMatchesKerr(t *testing.T) {
	seen := make(map[int16]bool)
	for _, e := range errorTable {
		t.Run(e.Name, func(t *testing.T) {
			require.False(t, seen[e.Code], "code %d listed twice", e.Code)
			seen[e.Code] = true
			ke := kerr.TypedErrorForCode(e.Code)
			require.NotNil(t, ke)
			if e.Code != -1 {
				require.NotSame(t, kerr.UnknownServerError, ke, "kerr does not know code %d", e.Code)
			}
			want := ke.Message
			if n, ok := errKerrNames[e.Code]; ok {
				require.Equal(t, n, want)
				want = e.Name
			}
			assert.Equal(t, want, e.Name, "name of code %d", e.Code)
			assert.Equal(t, ke.Retriable, e.Retriable, "retriable flag of %s", e.Name)
		})
	}
	// Every code kerr knows is in the table.
	for code := int16(-1); code < 300; code++ {
		if code == 0 {
			continue
		}
		if ke := kerr.TypedErrorForCode(code); ke != kerr.UnknownServerError || code == -1 {
			assert.True(t, seen[code], "code %d (%s) missing from the table", code, ke.Message)
		}
	}
}

// TestInvalidMetadataSet checks the codes flagged InvalidMetadata against the
// subclasses of InvalidMetadataException in Kafka's clients module
// (org.apache.kafka.common.errors), each mapped to its code by Errors.java:
// NotLeaderOrFollowerException, LeaderNotAvailableException,
// UnknownTopicOrPartitionException, ReplicaNotAvailableException,
// NetworkException, KafkaStorageException, ListenerNotFoundException,
// FencedLeaderEpochException, PreferredLeaderNotAvailableException,
// EligibleLeadersNotAvailableException, UnknownTopicIdException and
// InconsistentTopicIdException.
func TestInvalidMetadataSet(t *testing.T) {
	want := []string{
		"UNKNOWN_TOPIC_OR_PARTITION",
		"LEADER_NOT_AVAILABLE",
		"NOT_LEADER_OR_FOLLOWER",
		"REPLICA_NOT_AVAILABLE",
		"NETWORK_EXCEPTION",
		"KAFKA_STORAGE_ERROR",
		"LISTENER_NOT_FOUND",
		"FENCED_LEADER_EPOCH",
		"PREFERRED_LEADER_NOT_AVAILABLE",
		"ELIGIBLE_LEADERS_NOT_AVAILABLE",
		"UNKNOWN_TOPIC_ID",
		"INCONSISTENT_TOPIC_ID",
	}
	var got []string
	for _, e := range errorTable {
		if e.InvalidMetadata {
			got = append(got, e.Name)
			// InvalidMetadataException extends RetriableException.
			assert.True(t, e.Retriable, "%s is invalid-metadata but not retriable", e.Name)
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	assert.Equal(t, want, got)
}

func TestErrorForCode(t *testing.T) {
	t.Run("zero is no error", func(t *testing.T) {
		assert.NoError(t, ErrorForCode(0))
	})
	t.Run("known codes return the shared value", func(t *testing.T) {
		for _, tc := range []struct {
			code int16
			want *Error
		}{
			{-1, ErrUnknownServerError},
			{6, ErrNotLeaderOrFollower},
			{10, ErrMessageTooLarge},
			{45, ErrOutOfOrderSequenceNumber},
			{59, ErrUnknownProducerId},
			{136, ErrControllerIdNotRegistered},
		} {
			err := ErrorForCode(tc.code)
			assert.Same(t, tc.want, err, "code %d", tc.code)
		}
	})
	t.Run("unknown codes are named and not retriable", func(t *testing.T) {
		for _, code := range []int16{-2, 999, 32767, -32768} {
			err := ErrorForCode(code)
			require.Error(t, err)
			var ke *Error
			require.True(t, errors.As(err, &ke))
			assert.Equal(t, code, ke.Code)
			assert.False(t, ke.Retriable)
			assert.False(t, ke.InvalidMetadata)
			assert.Contains(t, err.Error(), fmt.Sprint(code))
			assert.False(t, errors.Is(err, ErrUnknownServerError))
		}
	})
}

func TestErrorWrapping(t *testing.T) {
	wrapped := fmt.Errorf("produce t/3: %w", ErrorForCode(6))
	twice := fmt.Errorf("batch 7: %w", wrapped)

	assert.True(t, errors.Is(twice, ErrNotLeaderOrFollower))
	assert.False(t, errors.Is(twice, ErrLeaderNotAvailable))

	var ke *Error
	require.True(t, errors.As(twice, &ke))
	assert.Equal(t, int16(6), ke.Code)
	assert.True(t, ke.Retriable)
	assert.True(t, ke.InvalidMetadata)
	assert.Equal(t, "batch 7: produce t/3: NOT_LEADER_OR_FOLLOWER: the broker is not the leader of this partition", twice.Error())

	assert.False(t, errors.As(fmt.Errorf("plain: %w", errors.New("x")), &ke))

	// An error without a description prints its name alone.
	assert.Equal(t, "ILLEGAL_GENERATION", ErrIllegalGeneration.Error())
}

func TestErrorTableOrdered(t *testing.T) {
	for i := 1; i < len(errorTable); i++ {
		assert.Less(t, errorTable[i-1].Code, errorTable[i].Code, "table out of order at %s", errorTable[i].Name)
	}
}
