//go:build !unix

package input

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// checkReadable reports whether the process may open name for reading: it
// opens and closes it.
func checkReadable(name string) error {
	f, err := os.Open(name)
	if err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	return f.Close()
}

// statFile is os.Stat of name: its kind and, for a regular file, its
// size.
func statFile(name string) (fileKind, int64, error) {
	st, err := os.Stat(name)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return 0, 0, pe.Err
	}
	switch {
	case err != nil:
		return 0, 0, err
	case st.Mode().IsRegular():
		return kindRegular, st.Size(), nil
	case st.IsDir():
		return kindDir, 0, nil
	case st.Mode()&os.ModeNamedPipe != 0:
		return kindPipe, 0, nil
	}
	return kindOther, 0, nil
}

// openRegular opens a file that is not a named pipe for reading.
func openRegular(name string) (*os.File, error) { return os.Open(name) }

// readWhole opens the file name, of size bytes when it was checked, and
// reads it into a buffer of size+1 bytes. When the buffer holds the whole
// file, the file is closed (f nil); otherwise (it grew, or a read failed)
// f is left open at the end of data, for its reader to go on from there.
func readWhole(name string, size int64) (data []byte, f *os.File, err error) {
	f, err = os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	buf := make([]byte, size+1)
	n := 0
	for n < len(buf) {
		k, err := f.Read(buf[n:])
		n += k
		if errors.Is(err, io.EOF) {
			_ = f.Close()
			return buf[:n], nil, nil
		}
		if err != nil {
			break // the reader meets it again, where it belongs
		}
	}
	return buf[:n], f, nil
}
