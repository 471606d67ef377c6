package input

import (
	"bytes"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// recordShaper applies the options every format shares: the topic and
// partition, the default key (-k), --null and the -H headers.
type recordShaper struct {
	topic       string
	forceTopic  bool
	onOverride  func(own, topic string)
	partition   int32
	key         []byte
	nullMarker  []byte
	nullEnabled bool
	emptyAsNull bool
	headers     []protocol.Header
	empty       []byte // a non-nil empty value
}

// newRecordShaper returns the shaper of cfg.
func newRecordShaper(cfg *Config) recordShaper {
	return recordShaper{
		topic:       cfg.Topic,
		forceTopic:  cfg.ForceTopic,
		onOverride:  cfg.OnTopicOverride,
		partition:   cfg.Partition,
		key:         cfg.Key,
		nullMarker:  cfg.NullMarker,
		nullEnabled: cfg.NullEnabled,
		emptyAsNull: cfg.EmptyAsNull,
		headers:     cfg.Headers,
		empty:       make([]byte, 0),
	}
}

// shape sets rec's key and value. hasKey says whether the record has a key
// of its own (else -k applies); --null applies to its own key and to the
// value.
func (s *recordShaper) shape(rec *Record, key []byte, hasKey bool, value []byte) {
	if hasKey {
		rec.Key = s.nullify(key)
	} else {
		rec.Key = s.key
	}
	rec.Value = s.nullify(value)
}

// nullify returns nil for the --null marker and, with EmptyAsNull, for
// an empty slice; otherwise a non-nil slice for an empty value.
func (s *recordShaper) nullify(b []byte) []byte {
	if b == nil {
		return nil
	}
	if s.nullEnabled && bytes.Equal(b, s.nullMarker) {
		return nil
	}
	if len(b) == 0 {
		if s.emptyAsNull {
			return nil
		}
		return s.empty
	}
	return b
}

// topicOf is the topic of a record that names own: own, unless -t forces
// Config.Topic.
func (s *recordShaper) topicOf(own string) string {
	if own == "" || own == s.topic {
		return s.topic
	}
	if !s.forceTopic {
		return own
	}
	if s.onOverride != nil {
		s.onOverride(own, s.topic)
	}
	return s.topic
}
