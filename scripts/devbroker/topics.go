package main

import (
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxTopicNameLength is the longest topic name Kafka accepts.
const maxTopicNameLength = 249

// validateTopicName checks a topic name as Kafka does
// (org.apache.kafka.common.internals.Topic.validate): not empty, not "."
// or "..", at most 249 characters, each an ASCII letter or digit, '.',
// '_' or '-'.
func validateTopicName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("topic name is illegal, it can't be empty")
	case name == "." || name == "..":
		return fmt.Errorf("topic name cannot be %q", name)
	case len(name) > maxTopicNameLength:
		return fmt.Errorf("topic name is illegal, it can't be longer than %d characters, topic name: %s", maxTopicNameLength, name)
	}
	for _, c := range []byte(name) {
		legal := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !legal {
			return fmt.Errorf("topic name %q is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'", name)
		}
	}
	return nil
}

// topicNameGuard makes the cluster answer a topic name Kafka rejects as
// Kafka does: INVALID_TOPIC_EXCEPTION in Metadata (whether or not it may
// auto-create), CreateTopics and Produce, and never create it. kfake
// itself creates any name.
type topicNameGuard struct {
	cluster *kfake.Cluster
	mu      sync.Mutex
	faulted map[string]bool // invalid names already answered with the error
}

// guardTopicNames installs the guard on cluster.
func guardTopicNames(cluster *kfake.Cluster) {
	g := &topicNameGuard{cluster: cluster, faulted: map[string]bool{}}
	for _, key := range []kmsg.Key{kmsg.Metadata, kmsg.CreateTopics, kmsg.Produce} {
		// An observer: it faults the invalid names the request carries,
		// then lets the cluster answer it (faults are checked after
		// controls), and stays installed.
		cluster.ControlKey(int16(key), func(req kmsg.Request) (kmsg.Response, error, bool) {
			g.fault(requestTopics(req))
			return nil, nil, false
		})
	}
}

// fault makes every invalid name among topics fail from now on. An
// empty name is left alone: a fault without a topic would fail every
// topic, and a Produce request that names topics by ID carries "".
func (g *topicNameGuard) fault(topics []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, name := range topics {
		if name == "" || g.faulted[name] || validateTopicName(name) == nil {
			continue
		}
		g.faulted[name] = true
		g.cluster.Fault(kfake.Fault{
			Keys:  []kmsg.Key{kmsg.Metadata, kmsg.CreateTopics, kmsg.Produce},
			Topic: name,
			Err:   kerr.InvalidTopicException,
			Count: -1,
		})
	}
}

// requestTopics returns the topic names a Metadata, CreateTopics or
// Produce request carries.
func requestTopics(req kmsg.Request) []string {
	var names []string
	switch r := req.(type) {
	case *kmsg.MetadataRequest:
		for _, t := range r.Topics {
			if t.Topic != nil {
				names = append(names, *t.Topic)
			}
		}
	case *kmsg.CreateTopicsRequest:
		for _, t := range r.Topics {
			names = append(names, t.Topic)
		}
	case *kmsg.ProduceRequest:
		for _, t := range r.Topics {
			names = append(names, t.Topic)
		}
	}
	return names
}
