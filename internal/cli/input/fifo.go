package input

import (
	"errors"
	"io/fs"
	"os"
	"sync"
)

// errInputClosed is the read error of an input closed while it was being
// opened or read.
var errInputClosed = errors.New("input closed")

// fifoInput is a named pipe given as a FILE. Opening a named pipe for
// reading blocks until a writer opens it, and nothing can interrupt that
// open; so the pipe is opened on its first Read, on the reading
// goroutine, where an interrupted run can leave it behind, rather than
// with the other inputs before the run starts, where a pipe without a
// writer would keep the run from ever starting or ending. That it may be
// read is checked at once (access(2)), so an unreadable pipe is still a
// usage error before anything is produced. Opening it at once without
// blocking (O_NONBLOCK) is no alternative: reading such a descriptor
// before a writer came reports the end of the input.
type fifoInput struct {
	name string

	mu     sync.Mutex // guards f and closed
	f      *os.File   // nil until opened
	closed bool
}

// openFIFO checks that the named pipe name may be read and returns it,
// unopened.
func openFIFO(name string) (*fifoInput, error) {
	if err := checkReadable(name); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &fifoInput{name: name}, nil
}

// Read opens the pipe on the first call (waiting for a writer), then
// reads from it.
func (p *fifoInput) Read(b []byte) (int, error) {
	f, err := p.file()
	if err != nil {
		return 0, err
	}
	return f.Read(b)
}

// file returns the open pipe, opening it first if need be. The lock is not
// held while the open blocks, so Close never waits for a writer.
func (p *fifoInput) file() (*os.File, error) {
	p.mu.Lock()
	f, closed := p.f, p.closed
	p.mu.Unlock()
	switch {
	case closed:
		return nil, errInputClosed
	case f != nil:
		return f, nil
	}
	f, err := os.Open(p.name)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		f.Close()
		return nil, errInputClosed
	}
	p.f = f
	return f, nil
}

// Close closes the pipe if it was opened; a later or pending first Read
// fails.
func (p *fifoInput) Close() error {
	p.mu.Lock()
	f := p.f
	p.closed = true
	p.mu.Unlock()
	if f == nil {
		return nil
	}
	return f.Close()
}
