package network

import (
	"fmt"
	"slices"
	"sort"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// Cluster is an immutable snapshot of the cluster metadata: brokers,
// controller and the topics the client asked about. It is safe to share
// between goroutines; nothing in it changes after it is built.
type Cluster struct {
	// ClusterID is the broker-reported cluster id, or "" when unknown.
	ClusterID string
	// ControllerID is the controller broker's id, or -1 when unknown.
	ControllerID int32

	nodes     []Node // sorted by id
	topics    map[string]*TopicMetadata
	names     []string // sorted topic names
	bootstrap bool
}

// TopicMetadata is what the brokers reported about one topic.
type TopicMetadata struct {
	Name string
	// ID is the topic id (Metadata v10+), zero when unknown.
	ID [16]byte
	// Err is the topic-level error (for example UNKNOWN_TOPIC_OR_PARTITION
	// or TOPIC_AUTHORIZATION_FAILED), nil when none.
	Err        error
	IsInternal bool
	// Partitions is sorted by partition id.
	Partitions []PartitionMetadata
}

// PartitionMetadata is what the brokers reported about one partition.
type PartitionMetadata struct {
	ID int32
	// Leader is the leader's node id, -1 when the partition has no leader.
	Leader      int32
	LeaderEpoch int32
	Replicas    []int32
	ISR         []int32
	Offline     []int32
	// Err is the partition-level error (for example LEADER_NOT_AVAILABLE),
	// nil when none.
	Err error
}

// newBootstrapCluster is the snapshot before the first metadata response:
// only the bootstrap brokers, no topics.
func newBootstrapCluster(bootstrap []Node) *Cluster {
	nodes := slices.Clone(bootstrap)
	sortNodes(nodes)
	return &Cluster{ControllerID: -1, nodes: nodes, topics: map[string]*TopicMetadata{}, bootstrap: true}
}

// newClusterFromResponse builds a snapshot from a Metadata response. prev,
// when not nil, is the snapshot it replaces: a partition whose reported
// leader epoch is older than the one already known keeps its known state,
// as Kafka does, so a lagging broker cannot move a leader backwards.
func newClusterFromResponse(resp *protocol.MetadataResponse, prev *Cluster) *Cluster {
	c := &Cluster{ControllerID: resp.ControllerID, topics: make(map[string]*TopicMetadata, len(resp.Topics))}
	if resp.ClusterID != nil {
		c.ClusterID = *resp.ClusterID
	}
	c.nodes = make([]Node, 0, len(resp.Brokers))
	for _, b := range resp.Brokers {
		c.nodes = append(c.nodes, Node{ID: b.NodeID, Host: b.Host, Port: b.Port, Rack: cloneString(b.Rack)})
	}
	sortNodes(c.nodes)
	c.nodes = slices.CompactFunc(c.nodes, func(a, b Node) bool { return a.ID == b.ID })
	for i := range resp.Topics {
		t := newTopicMetadata(&resp.Topics[i])
		if t.Name == "" {
			continue // a topic known only by id is of no use to a producer
		}
		if prev != nil {
			if old, ok := prev.topics[t.Name]; ok {
				keepNewerEpochs(t, old)
			}
		}
		c.topics[t.Name] = t
		c.names = append(c.names, t.Name)
	}
	sort.Strings(c.names)
	c.names = slices.Compact(c.names)
	return c
}

func newTopicMetadata(rt *protocol.MetadataResponseTopic) *TopicMetadata {
	t := &TopicMetadata{ID: rt.TopicID, Err: protocol.ErrorForCode(rt.ErrorCode), IsInternal: rt.IsInternal}
	if rt.Name != nil {
		t.Name = *rt.Name
	}
	t.Partitions = make([]PartitionMetadata, 0, len(rt.Partitions))
	for _, rp := range rt.Partitions {
		t.Partitions = append(t.Partitions, PartitionMetadata{
			ID:          rp.PartitionIndex,
			Leader:      rp.LeaderID,
			LeaderEpoch: rp.LeaderEpoch,
			Replicas:    slices.Clone(rp.ReplicaNodes),
			ISR:         slices.Clone(rp.IsrNodes),
			Offline:     slices.Clone(rp.OfflineReplicas),
			Err:         protocol.ErrorForCode(rp.ErrorCode),
		})
	}
	slices.SortFunc(t.Partitions, func(a, b PartitionMetadata) int { return int(a.ID) - int(b.ID) })
	t.Partitions = slices.CompactFunc(t.Partitions, func(a, b PartitionMetadata) bool { return a.ID == b.ID })
	return t
}

// keepNewerEpochs replaces each partition of t whose leader epoch is older
// than old's with old's state.
func keepNewerEpochs(t, old *TopicMetadata) {
	for i := range t.Partitions {
		p := &t.Partitions[i]
		if p.LeaderEpoch < 0 {
			continue
		}
		if op, ok := old.partition(p.ID); ok && op.LeaderEpoch > p.LeaderEpoch {
			*p = *op
		}
	}
}

func sortNodes(nodes []Node) {
	slices.SortFunc(nodes, func(a, b Node) int { return int(a.ID) - int(b.ID) })
}

func cloneString(s *string) *string {
	if s == nil {
		return nil
	}
	v := *s
	return &v
}

// Nodes returns the brokers sorted by id. The slice is shared: do not
// modify it.
func (c *Cluster) Nodes() []Node { return c.nodes }

// Node returns the broker with the given id.
func (c *Cluster) Node(id int32) (Node, bool) {
	i, ok := slices.BinarySearchFunc(c.nodes, id, func(n Node, id int32) int { return int(n.ID) - int(id) })
	if !ok {
		return Node{}, false
	}
	return c.nodes[i], true
}

// Topic returns what is known about a topic. The result is shared: do not
// modify it.
func (c *Cluster) Topic(name string) (*TopicMetadata, bool) {
	t, ok := c.topics[name]
	return t, ok
}

// Topics returns the names of the known topics, sorted. The slice is
// shared: do not modify it.
func (c *Cluster) Topics() []string { return c.names }

// PartitionCount is the number of partitions of topic, 0 when the topic is
// unknown or reported with an error and no partitions.
func (c *Cluster) PartitionCount(topic string) int {
	if t, ok := c.topics[topic]; ok {
		return len(t.Partitions)
	}
	return 0
}

// LeaderFor returns the leader of a partition. ok is false when the
// partition is unknown, has no leader (-1), or names a leader missing from
// the broker list.
func (c *Cluster) LeaderFor(topic string, partition int32) (int32, bool) {
	t, ok := c.topics[topic]
	if !ok {
		return -1, false
	}
	p, ok := t.partition(partition)
	if !ok || p.Leader < 0 {
		return -1, false
	}
	if _, known := c.Node(p.Leader); !known {
		// A leader missing from the broker list cannot be reached: Kafka's
		// metadata parsing treats it as no leader too.
		return -1, false
	}
	return p.Leader, true
}

// Partition returns the metadata of one partition.
func (c *Cluster) Partition(topic string, partition int32) (*PartitionMetadata, bool) {
	t, ok := c.topics[topic]
	if !ok {
		return nil, false
	}
	return t.partition(partition)
}

// IsBootstrap reports whether the snapshot holds only the bootstrap
// brokers, that is no Metadata response has been received yet.
func (c *Cluster) IsBootstrap() bool { return c.bootstrap }

// String summarises the snapshot for logs.
func (c *Cluster) String() string {
	return fmt.Sprintf("cluster %q: %d brokers, %d topics, controller %d", c.ClusterID, len(c.nodes), len(c.names), c.ControllerID)
}

// partition finds a partition by id; partitions are sorted and usually
// dense, so the id is tried as an index first.
func (t *TopicMetadata) partition(id int32) (*PartitionMetadata, bool) {
	if id >= 0 && int(id) < len(t.Partitions) && t.Partitions[id].ID == id {
		return &t.Partitions[id], true
	}
	i, ok := slices.BinarySearchFunc(t.Partitions, id, func(p PartitionMetadata, id int32) int { return int(p.ID) - int(id) })
	if !ok {
		return nil, false
	}
	return &t.Partitions[i], true
}
