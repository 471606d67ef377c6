package sender

import (
	"errors"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// maybeWrittenNote ends the error of a record that failed although the
// broker may have stored it: the user must not assume either way.
const maybeWrittenNote = "the record may or may not have been written"

// outcomeUnknown reports whether an attempt that ended with err may have
// been written by the broker all the same: no answer (disconnection,
// request timeout, a response that does not decode) or an answer that does
// not rule it out. The other broker errors refuse the batch before it is
// appended.
func outcomeUnknown(err error) bool {
	var kerr *protocol.Error
	if !errors.As(err, &kerr) || !isKnownError(kerr) {
		return true
	}
	switch kerr {
	case protocol.ErrRequestTimedOut, protocol.ErrNotEnoughReplicasAfterAppend, protocol.ErrNetworkException,
		protocol.ErrKafkaStorageError, protocol.ErrUnknownServerError:
		return true
	}
	return false
}

// isKnownError reports whether kerr is one of the error codes kproduce
// knows (ErrorForCode returns the shared value for those, a new one for a
// code it does not know, whose meaning for the batch is unknown).
func isKnownError(kerr *protocol.Error) bool { return protocol.ErrorForCode(kerr.Code) == kerr }

// mayBeWritten reports whether an attempt of b ended without proof that
// the broker did not store it.
func (s *sender) mayBeWritten(b *accumulator.Batch) bool {
	_, ok := s.maybeWritten[b]
	return ok
}
