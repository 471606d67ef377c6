package versioncmd

// The values a release build stamps into the binary at link time, each
// with -ldflags "-X github.com/kproduce/kproduce/internal/cli/versioncmd.NAME=VALUE"
// (see scripts/release.sh). They are set by the linker only and never
// written at run time; empty in any other build.
var (
	// version is the release's version, v1.2.3.
	version string
	// commit is the full hash of the commit built.
	commit string
	// date is the time of that commit, RFC 3339 in UTC.
	date string
	// treeState is "clean", or "dirty" when the work tree had changes not
	// committed.
	treeState string
)

// Stamp is what a release build stamped into the binary; every field is
// empty in a build that stamped nothing.
type Stamp struct {
	Version, Commit, Date, TreeState string
}

// linkerStamp returns the values the linker stamped.
func linkerStamp() Stamp {
	return Stamp{Version: version, Commit: commit, Date: date, TreeState: treeState}
}
