package producecmd

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
