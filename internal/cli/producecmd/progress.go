package producecmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/config"
	"github.com/kproduce/kproduce/internal/cli/input"
)

// progressRefresh is how often the progress bar is redrawn.
const progressRefresh = 100 * time.Millisecond

// rateSamples is how many redraws back records/s is measured over (one
// second).
const rateSamples = 10

// progress draws a progress bar on stderr: bytes read of the inputs' total
// size (or, when the size is unknown, a spinner and the bytes read),
// records/s, and the delivered and failed counts. It is redrawn by its own
// goroutine every progressRefresh. Everything else written to stderr
// during the run goes through Write, which erases the bar first, so report
// and log lines never mix with it; the next redraw draws it again below
// them. At the end the bar is drawn once more in its final state and left
// on its own line above the closing lines.
type progress struct {
	out  io.Writer    // stderr
	read atomic.Int64 // bytes read from the inputs, added once per read of the source

	mu      sync.Mutex               // guards everything below
	bar     *progressbar.ProgressBar // draws into frame
	frame   bytes.Buffer             // one redraw, written to out at once
	total   int64                    // the inputs' size, -1 when unknown
	counts  func() (delivered, failed int64)
	started time.Time
	samples []rateSample // the last redraws' counts, for records/s
	drawn   bool         // the bar is on the screen
	done    bool         // finish ran: Write passes through
	stop    chan struct{}
	stopped chan struct{}
}

// rateSample is the number of completed records at one redraw.
type rateSample struct {
	at time.Time
	n  int64
}

// progressWanted decides whether a bar is drawn: always, or under auto
// when stderr is a terminal and the inputs' size is known.
func progressWanted(mode string, terminal bool, total int64) bool {
	switch mode {
	case config.ProgressAlways:
		return true
	case config.ProgressAuto:
		return terminal && total >= 0
	}
	return false
}

// newProgress returns the progress bar of a run on stderr, or nil when
// none is drawn. It makes the inputs count the bytes read from them.
func newProgress(mode string, stderr io.Writer, inputs []input.Input) *progress {
	total := inputsSize(inputs)
	if !progressWanted(mode, cmdutil.IsTerminal(stderr), total) {
		return nil
	}
	p := &progress{out: stderr, total: total, stop: make(chan struct{}), stopped: make(chan struct{})}
	for i := range inputs {
		inputs[i].R = &countingReader{r: inputs[i].R, n: &p.read}
	}
	size := total
	if total <= 0 {
		size = -1 // a spinner; an empty input has no bar to fill
	}
	p.bar = progressbar.NewOptions64(size,
		progressbar.OptionSetWriter(&p.frame),
		progressbar.OptionSetWidth(barWidth(terminalWidth(stderr))),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionShowDescriptionAtLineEnd(),
		// Drawn only by redraw: no goroutine of the library's own.
		progressbar.OptionSetSpinnerChangeInterval(0),
	)
	return p
}

// barWidth leaves room in a terminal of cols columns (80 when unknown)
// for the numbers next to the bar (about 80 columns with large counts):
// between 5 and 40 cells.
func barWidth(cols int) int {
	if cols <= 0 {
		cols = 80
	}
	return min(max(cols-85, 5), 40)
}

// terminalWidth is the width of the terminal w writes to, or 0 when w is
// not a terminal (or its width is unknown).
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return cols
}

// start begins redrawing; counts gives the delivered and failed records.
func (p *progress) start(counts func() (delivered, failed int64)) {
	if p == nil {
		return
	}
	p.counts = counts
	p.started = time.Now()
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(progressRefresh)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.redraw(time.Now(), false)
			case <-p.stop:
				return
			}
		}
	}()
}

// finish stops redrawing, draws the final state and ends its line. Later
// writes pass through.
func (p *progress) finish() {
	if p == nil || p.counts == nil {
		return
	}
	close(p.stop)
	<-p.stopped
	p.redraw(time.Now(), true)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = true
	_, _ = io.WriteString(p.out, "\n")
}

// redraw draws the bar with the current counts; final measures records/s
// over the whole run instead of the last second.
func (p *progress) redraw(now time.Time, final bool) {
	delivered, failed := p.counts()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	rate := p.recordRate(now, delivered+failed, final)
	read := p.read.Load()
	if p.total > 0 {
		read = min(read, p.total) // a file that grew while read
	}
	p.draw(read, terminalWidth(p.out), []string{
		fmt.Sprintf("%d delivered, %d failed, %.0f rec/s", delivered, failed, rate),
		fmt.Sprintf("%d ok, %d failed", delivered, failed),
		"",
	})
	p.drawn = true
	p.flushFrame()
}

// draw draws the bar into the frame with the longest of descs (the counts,
// longest form first) that fits in a terminal of cols columns: a line
// wider than the terminal would wrap, and could then no longer be drawn
// over. cols 0 means no limit. p.mu must be held.
func (p *progress) draw(read int64, cols int, descs []string) {
	if cols <= 0 {
		p.bar.Describe(descs[0])
		_ = p.bar.Set64(read)
		return
	}
	// Draw without counts first, to measure the rest of the line: the
	// counts come at its end.
	p.bar.Describe("")
	_ = p.bar.Set64(read)
	room := cols - 1 - utf8.RuneCountInString(strings.TrimPrefix(p.bar.String(), "\r"))
	for _, d := range descs {
		if len(d) <= room {
			p.bar.Describe(d)
			return
		}
	}
}

// recordRate returns records completed per second: over the last second,
// or over the whole run when final. p.mu must be held.
func (p *progress) recordRate(now time.Time, n int64, final bool) float64 {
	from := rateSample{at: p.started}
	if !final {
		if len(p.samples) == rateSamples {
			copy(p.samples, p.samples[1:])
			p.samples = p.samples[:rateSamples-1]
		}
		p.samples = append(p.samples, rateSample{at: now, n: n})
		from = p.samples[0]
	}
	if secs := now.Sub(from.at).Seconds(); secs > 0 {
		return float64(n-from.n) / secs
	}
	return 0
}

// Write writes a line of the run's stderr, erasing the bar first while it
// is drawn.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.drawn || p.done {
		return p.out.Write(b)
	}
	_ = p.bar.Clear()
	p.drawn = false
	p.frame.Write(b)
	if err := p.flushFrame(); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Fd is stderr's file descriptor, so that a logger writing through the
// progress bar still knows whether stderr is a terminal.
func (p *progress) Fd() uintptr {
	if f, ok := p.out.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// flushFrame writes what the bar drew to stderr in one write. p.mu must be
// held.
func (p *progress) flushFrame() error {
	defer p.frame.Reset()
	_, err := p.out.Write(p.frame.Bytes())
	return err
}

// countingReader counts the bytes read from an input: one atomic add per
// read of the source (a buffer fill), not per record.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

// Read reads from the input and counts the bytes.
func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// inputsSize is the bytes left to read in the inputs, or -1 when one of
// them is not a regular file (stdin from a pipe or a terminal, a FIFO).
func inputsSize(inputs []input.Input) int64 {
	var total int64
	for _, in := range inputs {
		n := in.Size()
		if n < 0 {
			return -1
		}
		total += n
	}
	return total
}
