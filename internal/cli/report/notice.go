package report

import (
	"fmt"
	"io"
	"sync"

	"github.com/kproduce/kproduce/pkg/network"
)

// NoticePrefix starts every notice line on stderr.
const NoticePrefix = "kproduce: "

// Notices prints the network client's connection notices on stderr, one
// line each: a bootstrap address's first failure, a broker lost and back.
// They are for a person waiting at a terminal or reading a CI log, so that
// nobody waits in silence. Safe for concurrent use.
type Notices struct {
	mu      sync.Mutex
	printf  func(format string, args ...any)
	waiting func() int64
}

// NewNotices prints with printf (a Reporter's Errorf, so that notices and
// failure reports never interleave). waiting, when not nil, counts the
// records still waiting for an outcome; a lost broker's notice says how
// many.
func NewNotices(printf func(format string, args ...any), waiting func() int64) *Notices {
	return &Notices{printf: printf, waiting: waiting}
}

// NewNoticesTo prints on w.
func NewNoticesTo(w io.Writer) *Notices {
	return NewNotices(func(format string, args ...any) { _, _ = fmt.Fprintf(w, format, args...) }, nil)
}

// Notify prints n; it is a network.Config.Notify.
func (p *Notices) Notify(n network.Notice) {
	line := n.String()
	if n.Kind == network.NoticeBrokerDown && p.waiting != nil {
		line = fmt.Sprintf("%s (%d records waiting)", line, p.waiting())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.printf("%s%s\n", NoticePrefix, line)
}
