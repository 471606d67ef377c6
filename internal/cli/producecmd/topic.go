package producecmd

import (
	"fmt"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/kproduce/kproduce/internal/cli/config"
)

// topicChooser picks the topic of each record: the -t of the command line
// when one was given (so that copying a topic, kcat -J | kproduce -t dst,
// never writes into the source), else the record's own (JSON "topic",
// %t), else the default topic of the environment or config file.
type topicChooser struct {
	topic  string
	force  bool
	log    zerolog.Logger
	warned atomic.Bool // one warning per run
}

// newTopicChooser returns the chooser of opts.
func newTopicChooser(opts *config.Options) *topicChooser {
	return &topicChooser{topic: opts.Topic, force: opts.ForceTopic, log: opts.Logger}
}

// choose returns the topic of a record that names own ("" for none).
func (c *topicChooser) choose(own string) string {
	if own == "" || own == c.topic {
		return c.topic
	}
	if !c.force {
		return own
	}
	if c.warned.CompareAndSwap(false, true) {
		c.log.Warn().Msg(fmt.Sprintf("records name their own topic (%s first); -t %s was given, so every record goes to %s", own, c.topic, c.topic))
	}
	return c.topic
}
