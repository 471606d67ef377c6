package cmdutil

// Exit statuses of every kproduce command.
const (
	ExitOK          = 0   // every record delivered, the check or the metadata ok
	ExitFailed      = 1   // some record failed, or the cluster could not be used
	ExitUsage       = 2   // bad flags, config or input files: nothing was sent
	ExitInterrupted = 130 // SIGINT, SIGTERM or SIGHUP
)
