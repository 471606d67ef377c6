package input

import (
	"fmt"
	"io"
	"os"
)

// Input is an opened input.
type Input struct {
	Name string    // the file name, "-" for stdin
	R    io.Reader // the data
	c    io.Closer // nil for stdin
}

// Close closes the input (stdin is left open).
func (n Input) Close() error {
	if n.c == nil {
		return nil
	}
	return n.c.Close()
}

// Open opens every input before anything is produced: the files in
// order, "-" (or no file at all) being stdin. If one cannot be opened, the
// ones already opened are closed and the error names it.
func Open(files []string, stdin io.Reader) ([]Input, error) {
	names := files
	if len(names) == 0 {
		names = []string{"-"}
	}
	inputs := make([]Input, 0, len(names))
	for _, name := range names {
		in, err := openInput(name, stdin)
		if err != nil {
			Close(inputs)
			return nil, fmt.Errorf("input: %w", err)
		}
		inputs = append(inputs, in)
	}
	return inputs, nil
}

// openInput opens one input and checks that it can be read as a stream. A
// named pipe is only checked: it is opened when first read (see
// fifoInput).
func openInput(name string, stdin io.Reader) (Input, error) {
	if name == "-" {
		return Input{Name: name, R: stdin}, nil
	}
	if st, err := os.Stat(name); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
		p, err := openFIFO(name)
		if err != nil {
			return Input{}, err
		}
		return Input{Name: name, R: p, c: p}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return Input{}, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return Input{}, err
	}
	if st.IsDir() {
		f.Close()
		return Input{}, fmt.Errorf("%s is a directory", name)
	}
	return Input{Name: name, R: f, c: f}, nil
}

// Close closes every input.
func Close(inputs []Input) {
	for _, in := range inputs {
		_ = in.Close()
	}
}
