package producecmd

import (
	"fmt"
	"sync/atomic"

	"github.com/rs/zerolog"
)

// topicOverrideWarning returns the input's OnTopicOverride: one warning
// per run, the first time -t overrides a topic a record names.
func topicOverrideWarning(log zerolog.Logger) func(own, topic string) {
	var warned atomic.Bool
	return func(own, topic string) {
		if warned.CompareAndSwap(false, true) {
			log.Warn().Msg(fmt.Sprintf("records name their own topic (%s first); -t %s was given, so every record goes to %s", own, topic, topic))
		}
	}
}
