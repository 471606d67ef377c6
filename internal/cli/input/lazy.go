package input

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
)

// errInputClosed is the read error of an input closed while it was being
// opened or read.
var errInputClosed = errors.New("input closed")

// fileState is where a lazyFile is in its life.
type fileState uint8

const (
	fileChecked fileState = iota // not opened yet
	fileOpening                  // being opened by its reader
	fileAhead                    // being read ahead of its turn (see ReadAhead)
	fileOpen                     // opened: what was read ahead, then the descriptor, if any
	fileEnded                    // read to its end and closed: Read returns io.EOF
	fileFailed                   // could not be opened: Read returns err
	fileClosed                   // closed by Close: Read fails
)

// lazyFile is a FILE input: checked when the run starts (it exists, is no
// directory, may be read), opened on its first Read (or Open) and closed
// as soon as a Read reports its end, so that a run holds one input file
// open at a time however many it names, whatever the descriptor limit. A
// small file may be read ahead of its turn, whole, by ReadAhead.
//
// A named pipe is opened so too, on the reading goroutine: opening one for
// reading blocks until a writer opens it, and nothing can interrupt that
// open, so an interrupted run can leave it behind there, where a pipe
// without a writer opened with the other inputs before the run starts
// would keep the run from ever starting or ending. Opening it at once
// without blocking (O_NONBLOCK) is no alternative: reading such a
// descriptor before a writer came reports the end of the input.
type lazyFile struct {
	name string
	pipe bool  // a named pipe: opened through the runtime's poller, so that Close ends a blocked Read
	size int64 // a regular file's size when it was checked; -1 for other files

	mu    sync.Mutex // guards the fields below: Close may come from another goroutine
	state fileState
	f     *os.File // the open file; nil once read to its end
	ahead []byte   // bytes read ahead, not yet returned by Read
	read  int64    // bytes returned by Read
	err   error    // why it could not be opened (fileFailed)
	// done is closed when the read ahead ends (fileAhead).
	done chan struct{}
	// slot is the read-ahead's slot this file holds until it is read to its
	// end or closed; nil: none.
	slot chan struct{}
}

// openFIFO checks that the named pipe name may be read and returns it,
// unopened.
func openFIFO(name string) (*lazyFile, error) {
	if err := checkReadable(name); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &lazyFile{name: name, pipe: true, size: -1}, nil
}

// Read opens the file on the first call (a pipe waits for a writer), then
// reads from it: what was read ahead first, then the descriptor. At its
// end the file is closed and every later Read returns io.EOF.
func (l *lazyFile) Read(b []byte) (int, error) {
	l.mu.Lock()
	if err := l.settleLocked(); err != nil {
		l.mu.Unlock()
		return 0, err
	}
	if len(l.ahead) > 0 {
		n := copy(b, l.ahead)
		l.ahead = l.ahead[n:]
		l.read += int64(n)
		l.mu.Unlock()
		return n, nil
	}
	f := l.f
	l.mu.Unlock()
	if f == nil {
		l.end()
		return 0, io.EOF
	}
	n, err := f.Read(b)
	l.mu.Lock()
	l.read += int64(n)
	l.mu.Unlock()
	if errors.Is(err, io.EOF) {
		l.end()
	}
	return n, err
}

// Open opens the file if it is not yet (or waits for its read ahead), so
// that a failure to open it is told apart from a read error.
func (l *lazyFile) Open() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.settleLocked(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// settleLocked brings the file to fileOpen, opening it or waiting for its
// read ahead, and returns nil then; in another final state it returns
// that state's read error. l.mu is held, and released while the file is
// opened (a pipe's open blocks: Close must not wait for it) or read ahead.
func (l *lazyFile) settleLocked() error {
	for {
		switch l.state {
		case fileOpen:
			return nil
		case fileEnded:
			return io.EOF
		case fileFailed:
			return l.err
		case fileClosed:
			return errInputClosed
		case fileAhead:
			done := l.done
			l.mu.Unlock()
			<-done
			l.mu.Lock()
		case fileChecked:
			l.state = fileOpening // the read ahead leaves it alone
			l.mu.Unlock()
			f, err := l.open()
			l.mu.Lock()
			l.opened(f, err)
		case fileOpening:
			panic("input: a file read by two goroutines")
		}
	}
}

// open opens the file for reading.
func (l *lazyFile) open() (*os.File, error) {
	if l.pipe {
		return os.Open(l.name)
	}
	return openRegular(l.name)
}

// opened records the outcome of the open of a file that was fileOpening or
// fileAhead: f open (nil when a read ahead read it to its end) or the
// error. A file closed meanwhile closes f. l.mu is held.
func (l *lazyFile) opened(f *os.File, err error) {
	switch {
	case l.state == fileClosed:
		if f != nil {
			_ = f.Close()
		}
		l.releaseLocked()
	case err != nil:
		l.state, l.err = fileFailed, fmt.Errorf("%w (it could be read when the run started)", err)
		l.releaseLocked()
	default:
		l.state, l.f = fileOpen, f
	}
}

// end closes the file read to its end.
func (l *lazyFile) end() {
	l.mu.Lock()
	f := l.f
	if l.state == fileOpen {
		l.state, l.f = fileEnded, nil
		l.releaseLocked()
	}
	l.mu.Unlock()
	if f != nil {
		_ = f.Close()
	}
}

// releaseLocked gives back the read-ahead slot the file holds, if any.
// l.mu is held.
func (l *lazyFile) releaseLocked() {
	if l.slot != nil {
		<-l.slot
		l.slot = nil
	}
}

// Close closes the file if it is open and drops what was read ahead; a
// later or pending first Read fails. A read ahead under way closes the
// file it opened when it ends.
func (l *lazyFile) Close() error {
	l.mu.Lock()
	f := l.f
	if l.state != fileAhead {
		l.releaseLocked()
	}
	l.f, l.ahead, l.state = nil, nil, fileClosed
	l.mu.Unlock()
	if f == nil {
		return nil
	}
	return f.Close()
}

// remaining is the number of bytes left to read, as far as is known
// without a system call: the size checked less what was read; -1 when
// unknown (a pipe, a device).
func (l *lazyFile) remaining() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.state >= fileEnded:
		return 0
	case l.size < 0:
		return -1
	}
	return max(l.size-l.read, 0)
}
