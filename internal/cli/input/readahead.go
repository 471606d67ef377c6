package input

import "sync"

// aheadMax is the size of the largest file ReadAhead reads: for a larger
// one, opening it costs little beside reading it.
const aheadMax = 64 << 10

// aheadFiles is how many files ReadAhead reads ahead of the reader at
// most (the file being read among them).
const aheadFiles = 8

// ReadAhead reads the small input files (up to aheadMax bytes when they
// were checked) whole before their turn comes, on a goroutine of its own,
// at most aheadFiles of them ahead of the reader, so that opening and
// reading each one overlaps with producing the records of those before
// it: a run of many small files then waits for neither. A file read ahead
// holds its bytes, not its descriptor (unless it grew since the check),
// until its reader takes them; one that can no longer be opened fails when
// its turn comes, as it would have then.
//
// Named pipes and larger files are opened by their reader, and no file
// after one is read before the reader is done with it; nothing after stdin
// is read ahead. So a file is read at most a few small files before its
// turn, never while the run waits for a pipe. stop ends the read ahead and
// waits for it (it may be called again); what it read stays readable.
func ReadAhead(inputs []Input) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		readAhead(inputs, make(chan struct{}, aheadFiles), quit)
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		<-done
	}
}

// readAhead is ReadAhead's goroutine: a file read ahead, or one it waits
// for, holds one of the slots until its reader is done with it.
func readAhead(inputs []Input, slots chan struct{}, quit <-chan struct{}) {
	for _, in := range inputs {
		if in.file == nil {
			return // stdin
		}
		select {
		case slots <- struct{}{}:
		case <-quit:
			return
		}
		if in.file.smallRegular() {
			if !in.file.readAhead(slots) {
				<-slots // its reader got there first
			}
			continue
		}
		if !in.file.hold(slots) {
			<-slots
		}
		// Wait until the reader is done with it, and with every file
		// before it: every slot is free again.
		for range cap(slots) {
			select {
			case slots <- struct{}{}:
			case <-quit:
				return
			}
		}
		for range cap(slots) {
			<-slots
		}
	}
}

// smallRegular reports whether the file was a regular file of at most
// aheadMax bytes when it was checked.
func (l *lazyFile) smallRegular() bool { return !l.pipe && l.size >= 0 && l.size <= aheadMax }

// readAhead reads the file whole, holding slot (one of the read-ahead's)
// until it is read to its end or closed. It returns false, reading
// nothing, when the file's reader got to it first.
func (l *lazyFile) readAhead(slot chan struct{}) bool {
	l.mu.Lock()
	if l.state != fileChecked {
		l.mu.Unlock()
		return false
	}
	rd := l.reading()
	l.state, rd.done, rd.slot = fileAhead, make(chan struct{}), slot
	l.mu.Unlock()
	data, f, err := readWhole(*l.name, l.size)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.opened(f, err)
	if l.state == fileOpen {
		rd.ahead = data
	}
	close(rd.done)
	rd.done = nil // the waiters have their copy
	return true
}

// hold makes the file hold slot until its reader is done with it. It
// returns false when the reader is done with it already.
func (l *lazyFile) hold(slot chan struct{}) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state >= fileEnded {
		return false
	}
	l.reading().slot = slot
	return true
}
