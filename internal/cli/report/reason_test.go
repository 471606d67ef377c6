package report

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
	"github.com/kproduce/kproduce/pkg/sender"
)

func TestFailureReason(t *testing.T) {
	tests := map[error]string{
		fmt.Errorf("t/2: leader 3 %w", sender.ErrLeaderUnreachable):                    "not reachable",
		fmt.Errorf("produce: %w", network.ErrDisconnected):                             "not reachable",
		fmt.Errorf("t/1: %w", protocol.ErrNotLeaderOrFollower):                         "NOT_LEADER_OR_FOLLOWER",
		fmt.Errorf("%w after 3 attempts", sender.ErrDeliveryTimeout):                   "timed out",
		fmt.Errorf("%w: %w", sender.ErrDeliveryTimeout, protocol.ErrNotEnoughReplicas): "NOT_ENOUGH_REPLICAS",
		fmt.Errorf("%w: commit failed", sender.ErrTransactionAborted):                  "aborted",
		errors.New("something else"):                                                   "failed",
	}
	for err, want := range tests {
		assert.Equal(t, want, FailureReason(err), "%v", err)
	}
}
