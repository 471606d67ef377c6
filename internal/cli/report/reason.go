package report

import (
	"errors"

	"github.com/kproduce/kproduce/pkg/network"
	"github.com/kproduce/kproduce/pkg/protocol"
	"github.com/kproduce/kproduce/pkg/sender"
)

// FailureReason names why a record failed, in a word that counts failures
// alike together: "not reachable" when its leader could not be connected
// to, the Kafka error code's name when the broker answered one, "timed
// out" when the delivery timeout passed without either, "aborted" when its
// transaction was aborted, "failed" otherwise.
func FailureReason(err error) string {
	var kerr *protocol.Error
	switch {
	case errors.Is(err, sender.ErrLeaderUnreachable), errors.Is(err, network.ErrDisconnected),
		errors.Is(err, network.ErrConnectionSetupTimeout):
		return "not reachable"
	case errors.As(err, &kerr):
		return kerr.Name
	case errors.Is(err, sender.ErrDeliveryTimeout), errors.Is(err, network.ErrRequestTimedOut):
		return "timed out"
	case errors.Is(err, sender.ErrTransactionAborted):
		return "aborted"
	}
	return "failed"
}
