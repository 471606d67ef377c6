package input

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"sync"
)

// Input is one input of a run: a file, checked but not yet opened, or
// stdin.
type Input struct {
	Name string    // the file name, "-" for stdin
	R    io.Reader // the data
	file *lazyFile // nil for stdin
}

// Close closes the input (stdin is left open). A file not opened yet
// cannot be opened afterwards.
func (n Input) Close() error {
	if n.file == nil {
		return nil
	}
	return n.file.Close()
}

// Open opens the input if it is a file not opened yet (a named pipe waits
// for a writer), so that a file that went away since the check is told
// apart from a read error: the error names the file. Reading opens it too.
func (n Input) Open() error {
	if n.file == nil {
		return nil
	}
	return n.file.Open()
}

// Size is the number of bytes left to read in the input when it is a
// regular file (stdin too when it is one): for a file not opened yet, its
// size when it was checked. It is -1 when unknown (a pipe, a terminal, a
// device).
func (n Input) Size() int64 {
	if n.file != nil {
		return n.file.remaining()
	}
	if f, ok := n.R.(*os.File); ok {
		return fileRemaining(f)
	}
	return -1
}

// Open checks every input before anything is produced, and opens none:
// the files in order, "-" (or no file at all) being stdin. A file that
// does not exist, is a directory or may not be read is an error naming it
// (the first such file). Each file is opened when it is first read and
// closed at its end (see lazyFile), so that a run holds one file open at a
// time, however many it names; a file that goes away after the check
// fails on its own then. Many files are checked by several goroutines.
func Open(files []string, stdin io.Reader) ([]Input, error) {
	names := files
	if len(names) == 0 {
		names = []string{"-"}
	}
	inputs := make([]Input, len(names))
	for i, name := range names {
		inputs[i].Name = name
	}
	lazy := make([]lazyFile, len(names)) // one allocation for all of them
	if err := checkAll(inputs, lazy); err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	for i := range inputs {
		if inputs[i].Name == "-" {
			inputs[i].R = stdin
			continue
		}
		inputs[i].R, inputs[i].file = &lazy[i], &lazy[i]
	}
	return inputs, nil
}

// checkShare is the fewest files a goroutine of checkAll checks.
const checkShare = 512

// checkAll checks the files among inputs (stdin is "-"), making lazy[i]
// the unopened file of inputs[i], on up to GOMAXPROCS goroutines, each a
// contiguous share of them. It returns the error of the first file that
// failed.
func checkAll(inputs []Input, lazy []lazyFile) error {
	workers := min(runtime.GOMAXPROCS(0), len(inputs)/checkShare)
	if workers <= 1 {
		return checkRange(inputs, lazy)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		from, to := w*len(inputs)/workers, (w+1)*len(inputs)/workers
		wg.Go(func() { errs[w] = checkRange(inputs[from:to], lazy[from:to]) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkRange checks the files among inputs in order, up to the first that
// fails.
func checkRange(inputs []Input, lazy []lazyFile) error {
	for i := range inputs {
		if inputs[i].Name == "-" {
			continue
		}
		if err := checkInput(&lazy[i], &inputs[i].Name); err != nil {
			return err
		}
	}
	return nil
}

// fileKind is what a FILE argument names.
type fileKind uint8

const (
	kindRegular fileKind = iota
	kindDir
	kindPipe
	kindOther // a device, a socket: read as a stream of unknown size
)

// checkInput checks that the file *name can be read as a stream and makes
// l its unopened input.
func checkInput(l *lazyFile, name *string) error {
	kind, size, err := statFile(*name)
	if err != nil {
		return &fs.PathError{Op: "open", Path: *name, Err: err} // what fails is opening it
	}
	if kind == kindDir {
		return fmt.Errorf("%s is a directory", *name)
	}
	if err := checkReadable(*name); err != nil {
		return &fs.PathError{Op: "open", Path: *name, Err: err}
	}
	*l = lazyFile{name: name, pipe: kind == kindPipe, size: -1}
	if kind == kindRegular {
		l.size = size
	}
	return nil
}

// Close closes every input.
func Close(inputs []Input) {
	for _, in := range inputs {
		_ = in.Close()
	}
}

// fileRemaining is the number of bytes left to read in f when it is a
// regular file, -1 otherwise.
func fileRemaining(f *os.File) int64 {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return -1
	}
	return max(st.Size()-pos, 0)
}
