//go:build unix

package input

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// accessRead is access(2)'s R_OK.
const accessRead = 4

// checkReadable reports whether the process may open name for reading,
// without opening it (access(2)).
func checkReadable(name string) error { return syscall.Access(name, accessRead) }

// statFile is stat(2) of name (following symbolic links): its kind and,
// for a regular file, its size. Unlike os.Stat it allocates no FileInfo: a
// run of many files checks each.
func statFile(name string) (fileKind, int64, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(name, &st)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EINTR) {
			return 0, 0, err
		}
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
		return kindRegular, st.Size, nil
	case syscall.S_IFDIR:
		return kindDir, 0, nil
	case syscall.S_IFIFO:
		return kindPipe, 0, nil
	}
	return kindOther, 0, nil
}

// openRegular opens a file that is not a named pipe for reading, with two
// system calls (the open, and os.NewFile's look at the descriptor's
// flags) where os.Open also tries, and fails, to register a regular file
// with the runtime's poller: a run of many small files opens each.
func openRegular(name string) (*os.File, error) {
	fd, err := openFD(name)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// openFD opens name for reading.
func openFD(name string) (int, error) {
	for {
		fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == nil {
			return fd, nil
		}
		if !errors.Is(err, syscall.EINTR) {
			return -1, &fs.PathError{Op: "open", Path: name, Err: err}
		}
	}
}

// readWhole opens the file name, of size bytes when it was checked, and
// reads it into a buffer of size+1 bytes: an open, a read and the read
// that sees the end, then a close. When the buffer holds the whole file,
// the file is closed (f nil); otherwise (it grew, or a read failed) f is
// left open at the end of data, for its reader to go on from there.
func readWhole(name string, size int64) (data []byte, f *os.File, err error) {
	fd, err := openFD(name)
	if err != nil {
		return nil, nil, err
	}
	buf := make([]byte, size+1)
	n := 0
	for n < len(buf) {
		k, err := syscall.Read(fd, buf[n:])
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			// The reader meets the error again, where it belongs.
			return buf[:n], os.NewFile(uintptr(fd), name), nil
		case k == 0:
			_ = syscall.Close(fd)
			return buf[:n], nil, nil
		}
		n += k
	}
	return buf[:n], os.NewFile(uintptr(fd), name), nil
}
