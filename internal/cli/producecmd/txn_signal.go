package producecmd

import "fmt"

// committedBeforeSignal reports whether a signal came too late to change
// the run's outcome: the input was read to its end and every transaction
// of it was committed (the signal arrived once the last commit had been
// sent, and a commit sent cannot be taken back). The exit status then
// says what was committed, not that the run was interrupted.
func (t *txnRun) committedBeforeSignal() bool {
	t.ctl.Lock()
	defer t.ctl.Unlock()
	return !t.aborted && !t.open && t.committedTxns > 0 && t.r.inputEnded.Load()
}

// lateSignalLine is printed when a signal came after the last commit.
const lateSignalLine = "interrupted after the last transaction was committed: nothing left to abort\n"

// reasonInterrupted is the abort reason of a transaction a signal ended.
const reasonInterrupted = "interrupted"

// resumeHint says how to load what an interrupted transaction did not
// commit: with --resume the same command goes on after the last commit;
// without it, nothing committed means the same command loads it all, and
// otherwise the rest starts after the last record committed. t.ctl must
// be held.
func (t *txnRun) resumeHint() string {
	switch {
	case t.r.resume != nil:
		return "run the same command again to go on after the last commit"
	case t.committedTxns == 0:
		return "nothing was committed: run the same command again to load them"
	}
	return fmt.Sprintf("the records up to %s were committed: load only those after it (--resume does that by itself)", t.lastCommitted)
}
