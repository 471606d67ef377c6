package input

import (
	"errors"
	"fmt"
	"io"
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
	name *string // its Input's Name
	size int64   // a regular file's size when it was checked; -1 for other files

	mu    sync.Mutex // guards state and rd: Close may come from another goroutine
	state fileState
	pipe  bool      // a named pipe: opened through the runtime's poller, so that Close ends a blocked Read
	rd    *fileRead // while the file is being read, or why it failed; nil before and after
}

// fileRead is what a lazyFile holds while it is read: kept apart, so that
// the inputs of a run of many files, checked and not yet read (or done
// with), cost a few words each.
type fileRead struct {
	f     *os.File // the open file; nil once read to its end
	ahead []byte   // bytes read ahead, not yet returned by Read
	read  int64    // bytes returned by Read
	err   error    // why it could not be opened (fileFailed)
	// done is closed when the read ahead ends (fileAhead).
	done chan struct{}
	// slot is the read-ahead's slot the file holds until it is read to its
	// end or closed; nil: none.
	slot chan struct{}
}

// Read opens the file on the first call (a pipe waits for a writer), then
// reads from it: what was read ahead first, then the file. At its end the
// file is closed and every later Read returns io.EOF.
func (l *lazyFile) Read(b []byte) (int, error) {
	l.mu.Lock()
	if err := l.settleLocked(); err != nil {
		l.mu.Unlock()
		return 0, err
	}
	rd := l.rd
	if len(rd.ahead) > 0 {
		n := copy(b, rd.ahead)
		rd.ahead = rd.ahead[n:]
		if len(rd.ahead) == 0 {
			rd.ahead = nil // an empty slice of it would keep it
		}
		rd.read += int64(n)
		l.mu.Unlock()
		return n, nil
	}
	f := rd.f
	l.mu.Unlock()
	if f == nil {
		l.end()
		return 0, io.EOF
	}
	n, err := f.Read(b)
	l.mu.Lock()
	rd.read += int64(n)
	l.mu.Unlock()
	if errors.Is(err, io.EOF) {
		l.end()
	}
	return n, err
}

// takeWhole returns the whole file when it was read ahead whole and is no
// larger than limit: the bytes become the caller's, and the file is read
// to its end. Otherwise it returns false, and Read goes on as it would
// have (the file may have been opened meanwhile).
func (l *lazyFile) takeWhole(limit int64) ([]byte, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.settleLocked() != nil {
		return nil, false
	}
	rd := l.rd
	if rd.f != nil || rd.read > 0 || int64(len(rd.ahead)) > limit {
		return nil, false
	}
	data := rd.ahead
	l.releaseLocked()
	l.state, l.rd = fileEnded, nil
	return data, true
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

// reading returns l.rd, making it first if need be. l.mu is held.
func (l *lazyFile) reading() *fileRead {
	if l.rd == nil {
		l.rd = &fileRead{}
	}
	return l.rd
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
			return l.rd.err
		case fileClosed:
			return errInputClosed
		case fileAhead:
			done := l.rd.done
			l.mu.Unlock()
			<-done
			l.mu.Lock()
		case fileChecked:
			l.state = fileOpening // the read ahead leaves it alone
			l.reading()
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
		return os.Open(*l.name)
	}
	return openRegular(*l.name)
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
		l.rd = nil
	case err != nil:
		l.releaseLocked()
		l.state, l.rd = fileFailed, &fileRead{err: fmt.Errorf("%w (it could be read when the run started)", err)}
	default:
		l.state, l.rd.f = fileOpen, f
	}
}

// end closes the file read to its end.
func (l *lazyFile) end() {
	var f *os.File
	l.mu.Lock()
	if l.state == fileOpen {
		f = l.rd.f
		l.releaseLocked()
		l.state, l.rd = fileEnded, nil
	}
	l.mu.Unlock()
	if f != nil {
		_ = f.Close()
	}
}

// releaseLocked gives back the read-ahead slot the file holds, if any.
// l.mu is held.
func (l *lazyFile) releaseLocked() {
	if l.rd != nil && l.rd.slot != nil {
		<-l.rd.slot
		l.rd.slot = nil
	}
}

// Close closes the file if it is open and drops what was read ahead; a
// later or pending first Read fails. A read ahead under way closes the
// file it opened when it ends.
func (l *lazyFile) Close() error {
	var f *os.File
	l.mu.Lock()
	if l.state != fileAhead && l.rd != nil {
		f = l.rd.f
		l.releaseLocked()
		l.rd = nil
	}
	l.state = fileClosed
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
	case l.rd == nil:
		return l.size
	}
	return max(l.size-l.rd.read, 0)
}
