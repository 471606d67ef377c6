//go:build unix

package input

import "syscall"

// accessRead is access(2)'s R_OK.
const accessRead = 4

// checkReadable reports whether the process may open name for reading,
// without opening it (access(2)).
func checkReadable(name string) error { return syscall.Access(name, accessRead) }
