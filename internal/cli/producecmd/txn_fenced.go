package producecmd

import (
	"errors"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// fencedReason is the producer's final error when another producer with
// the same transactional id took over (it fenced this one), and false
// otherwise. A chunk that fails because of it is aborted for that reason,
// whatever error its records met first: a broker answers the records of a
// transaction the new producer aborted with INVALID_TXN_STATE (kfake) or
// INVALID_PRODUCER_EPOCH, which say nothing of why.
func (t *txnRun) fencedReason() (string, bool) {
	err := t.r.prod.FatalError()
	if err != nil && (errors.Is(err, protocol.ErrProducerFenced) || errors.Is(err, protocol.ErrInvalidProducerEpoch) ||
		errors.Is(err, protocol.ErrTransactionCoordinatorFenced)) {
		return err.Error(), true
	}
	return "", false
}

// fencingConsequence reports whether a record's own error is what a
// broker answers the records of a fenced producer's transaction.
func fencingConsequence(err error) bool {
	return errors.Is(err, protocol.ErrInvalidTxnState) || errors.Is(err, protocol.ErrInvalidProducerEpoch) ||
		errors.Is(err, protocol.ErrProducerFenced)
}
