package input

import (
	"os"
	"sync"
)

// aheadMax is the size of the largest file ReadAhead reads: for a larger
// one, opening it costs little beside reading it.
const aheadMax = 64 << 10

// aheadFiles is how many files ReadAhead reads ahead of the reader at
// most (the file being read among them).
const aheadFiles = 16

// aheadGroup is how many files ReadAhead reads before it hands them over
// together: the reader, faster than the opens and reads, would otherwise
// wait for each file in turn, and each wait costs a goroutine switch and
// a wakeup, dearer than the file's own reading.
const aheadGroup = 8

// ReadAhead reads the small input files (up to aheadMax bytes when they
// were checked) whole before their turn comes, on a goroutine of its own,
// at most aheadFiles of them ahead of the reader, a few at a time, so that
// opening and reading each one overlaps with producing the records of
// those before it: a run of many small files then waits for neither. A
// file read ahead holds its bytes, not its descriptor (unless it grew
// since the check), until its reader takes them; one that can no longer be
// opened fails when its turn comes, as it would have then.
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
	for k := 0; k < len(inputs); {
		l := inputs[k].file
		switch {
		case l == nil:
			return // stdin
		case l.smallRegular():
			n, ok := readGroup(inputs[k:], slots, quit)
			if !ok {
				return
			}
			k += n
		default:
			if !waitFor(l, slots, quit) {
				return
			}
			k++
		}
	}
}

// readGroup reads up to aheadGroup small files from the start of inputs,
// each holding a slot, and hands them over together; the first waits for a
// slot, the others take one only if one is free (the reader, done with
// the files before them, may be waiting for the group). It returns how
// many inputs it went past, and false when quit ended it before it took
// any.
func readGroup(inputs []Input, slots chan struct{}, quit <-chan struct{}) (int, bool) {
	select {
	case slots <- struct{}{}:
	case <-quit:
		return 0, false
	}
	done := make(chan struct{})
	var group []*lazyFile
	k := 0
	for ; k < len(inputs) && len(group) < aheadGroup; k++ {
		l := inputs[k].file
		if l == nil || !l.smallRegular() {
			break
		}
		if k > 0 {
			select {
			case slots <- struct{}{}:
			default:
				return k + readClaimed(group, done), true
			}
		}
		if l.claim(slots, done) {
			group = append(group, l)
		} else {
			<-slots // its reader got there first
		}
	}
	return k + readClaimed(group, done), true
}

// readClaimed reads the files claimed for a group, then hands them over
// (closes done). It returns 0, for readGroup's count.
func readClaimed(group []*lazyFile, done chan struct{}) int {
	for _, l := range group {
		data, f, err := readWhole(*l.name, l.size)
		l.aheadRead(data, f, err)
	}
	close(done)
	return 0
}

// waitFor makes l, a named pipe or a larger file, hold a slot until its
// reader is done with it, and waits until then, and until the reader is
// done with every file before it (every slot is free again). It returns
// false when quit ended the wait.
func waitFor(l *lazyFile, slots chan struct{}, quit <-chan struct{}) bool {
	select {
	case slots <- struct{}{}:
	case <-quit:
		return false
	}
	if !l.hold(slots) {
		<-slots
	}
	for range cap(slots) {
		select {
		case slots <- struct{}{}:
		case <-quit:
			return false
		}
	}
	for range cap(slots) {
		<-slots
	}
	return true
}

// smallRegular reports whether the file was a regular file of at most
// aheadMax bytes when it was checked.
func (l *lazyFile) smallRegular() bool { return !l.pipe && l.size >= 0 && l.size <= aheadMax }

// claim makes the file one of a group read ahead, holding slot until it is
// read to its end or closed, and handed over when done is closed. It
// returns false when the file's reader got to it first.
func (l *lazyFile) claim(slot, done chan struct{}) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state != fileChecked {
		return false
	}
	rd := l.reading()
	l.state, rd.done, rd.slot = fileAhead, done, slot
	return true
}

// aheadRead records what the read ahead of the claimed file got: its bytes,
// the file if it is left open, or the error of its open.
func (l *lazyFile) aheadRead(data []byte, f *os.File, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rd := l.rd
	l.opened(f, err)
	if l.state == fileOpen {
		rd.ahead = data
	}
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
