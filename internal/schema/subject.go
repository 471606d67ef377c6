package schema

import (
	"fmt"
	"strings"
)

// Strategy names a schema's subject, as Confluent's subject name
// strategies do.
type Strategy int

// The subject name strategies.
const (
	// StrategyTopic is TopicNameStrategy: <topic>-value, <topic>-key.
	StrategyTopic Strategy = iota
	// StrategyRecord is RecordNameStrategy: the record's full name.
	StrategyRecord
	// StrategyTopicRecord is TopicRecordNameStrategy: <topic>-<full name>.
	StrategyTopicRecord
)

// confluentStrategyPackage is where Confluent's strategy classes live.
const confluentStrategyPackage = "io.confluent.kafka.serializers.subject."

// ParseStrategy reads a strategy: topic, record or topic-record, or
// Confluent's class name (io.confluent.kafka.serializers.subject.
// TopicNameStrategy, RecordNameStrategy, TopicRecordNameStrategy, with or
// without the package).
func ParseStrategy(s string) (Strategy, error) {
	name := strings.TrimPrefix(strings.TrimSpace(s), confluentStrategyPackage)
	switch strings.ToLower(name) {
	case "", "topic", "topicnamestrategy":
		return StrategyTopic, nil
	case "record", "recordnamestrategy":
		return StrategyRecord, nil
	case "topic-record", "topicrecord", "topicrecordnamestrategy":
		return StrategyTopicRecord, nil
	}
	return 0, schemaErrorf("unknown subject name strategy %q: want topic, record or topic-record (or Confluent's %sTopicNameStrategy, RecordNameStrategy, TopicRecordNameStrategy)",
		s, confluentStrategyPackage)
}

// String names the strategy as ParseStrategy reads it.
func (s Strategy) String() string {
	switch s {
	case StrategyRecord:
		return "record"
	case StrategyTopicRecord:
		return "topic-record"
	}
	return "topic"
}

// NeedsTopic reports whether the subject names the topic.
func (s Strategy) NeedsTopic() bool { return s != StrategyRecord }

// Subject returns the subject of a schema of role whose record (Avro
// record, Protobuf message, JSON Schema title) is named record, for
// records produced to topic.
func (s Strategy) Subject(topic string, role Role, record string) (string, error) {
	if s.NeedsTopic() && topic == "" {
		return "", schemaErrorf("subject name strategy %s needs a topic (-t)", s)
	}
	if s != StrategyTopic && record == "" {
		return "", schemaErrorf("subject name strategy %s needs a named record (an Avro record, a Protobuf message, a JSON Schema with a title)", s)
	}
	switch s {
	case StrategyRecord:
		return record, nil
	case StrategyTopicRecord:
		return fmt.Sprintf("%s-%s", topic, record), nil
	}
	return fmt.Sprintf("%s-%s", topic, role), nil
}
