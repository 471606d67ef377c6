package metadatacmd

import (
	"cmp"
	"errors"
	"net"
	"slices"
	"strconv"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// metadataReport is what kproduce metadata prints; its JSON form is fixed
// (the names and shapes of cluster_id, controller, brokers, topics and
// their listed fields); the other fields are additions.
type metadataReport struct {
	ClusterID  *string        `json:"cluster_id"`
	Controller int32          `json:"controller"`
	Brokers    []brokerReport `json:"brokers"`
	Topics     []topicReport  `json:"topics"`
	apis       []protocol.APIKey
}

// brokerReport is one broker and the API versions it announced.
type brokerReport struct {
	ID         int32   `json:"id"`
	Host       string  `json:"host"`
	Port       int32   `json:"port"`
	Rack       *string `json:"rack"`
	Controller bool    `json:"controller"`
	// APIVersions holds, per API kproduce speaks, the ranges and the
	// version kproduce would use; null when the broker could not be asked.
	APIVersions map[string]apiVersionReport `json:"api_versions"`
	// Error says why APIVersions is null; absent otherwise.
	Error *string `json:"error,omitempty"`
}

// apiVersionReport is one API as kproduce and one broker speak it.
type apiVersionReport struct {
	Kproduce versionRange  `json:"kproduce"`
	Broker   *versionRange `json:"broker"`  // null: the broker does not serve the API
	Version  *int16        `json:"version"` // null: no common version ("unsupported")
}

// versionRange is an inclusive range of versions.
type versionRange struct {
	Min int16 `json:"min"`
	Max int16 `json:"max"`
}

// topicReport is one topic; Error is the topic's error code name.
type topicReport struct {
	Name       string            `json:"name"`
	Internal   bool              `json:"internal"`
	Error      *string           `json:"error"`
	Partitions []partitionReport `json:"partitions"`
}

// partitionReport is one partition; Error is its error code name.
type partitionReport struct {
	Partition int32   `json:"partition"`
	Leader    int32   `json:"leader"`
	Replicas  []int32 `json:"replicas"`
	ISR       []int32 `json:"isr"`
	Offline   []int32 `json:"offline_replicas"`
	Error     *string `json:"error"`
}

// clientAPIs are the APIs kproduce speaks, by key.
func clientAPIs() []protocol.APIKey {
	var keys []protocol.APIKey
	for k := range protocol.APIKey(128) {
		if _, ok := protocol.ClientVersions(k); ok {
			keys = append(keys, k)
		}
	}
	return keys
}

// newMetadataReport builds the report of a Metadata response, sorted by
// broker id, topic name and partition; the brokers' API versions are
// added later.
func newMetadataReport(md *protocol.MetadataResponse) *metadataReport {
	r := &metadataReport{ClusterID: md.ClusterID, Controller: md.ControllerID, apis: clientAPIs(),
		Brokers: []brokerReport{}, Topics: []topicReport{}}
	for _, b := range md.Brokers {
		r.Brokers = append(r.Brokers, brokerReport{ID: b.NodeID, Host: b.Host, Port: b.Port, Rack: b.Rack,
			Controller: b.NodeID == md.ControllerID})
	}
	slices.SortFunc(r.Brokers, func(a, b brokerReport) int { return cmp.Compare(a.ID, b.ID) })
	for _, t := range md.Topics {
		tr := topicReport{Internal: t.IsInternal, Error: errorName(t.ErrorCode), Partitions: []partitionReport{}}
		if t.Name != nil {
			tr.Name = *t.Name
		}
		for _, p := range t.Partitions {
			tr.Partitions = append(tr.Partitions, partitionReport{
				Partition: p.PartitionIndex, Leader: p.LeaderID, Error: errorName(p.ErrorCode),
				Replicas: nonNil(p.ReplicaNodes), ISR: nonNil(p.IsrNodes), Offline: nonNil(p.OfflineReplicas),
			})
		}
		slices.SortFunc(tr.Partitions, func(a, b partitionReport) int { return cmp.Compare(a.Partition, b.Partition) })
		r.Topics = append(r.Topics, tr)
	}
	slices.SortFunc(r.Topics, func(a, b topicReport) int { return cmp.Compare(a.Name, b.Name) })
	return r
}

// setVersions records the versions broker b announced.
func (r *metadataReport) setVersions(b *brokerReport, broker map[protocol.APIKey]protocol.VersionRange) {
	b.APIVersions = make(map[string]apiVersionReport, len(r.apis))
	for _, k := range r.apis {
		cv, _ := protocol.ClientVersions(k)
		a := apiVersionReport{Kproduce: versionRange{cv.Min, cv.Max}}
		if bv, ok := broker[k]; ok {
			a.Broker = &versionRange{bv.Min, bv.Max}
			if v := min(cv.Max, bv.Max); v >= max(cv.Min, bv.Min) {
				a.Version = &v
			}
		}
		b.APIVersions[k.String()] = a
	}
}

// failed reports whether a topic has an error or a broker could not be
// asked for its versions: the command then exits 1.
func (r *metadataReport) failed() bool {
	for _, t := range r.Topics {
		if t.Error != nil {
			return true
		}
	}
	for _, b := range r.Brokers {
		if b.Error != nil {
			return true
		}
	}
	return false
}

// addr is the broker's host:port.
func (b *brokerReport) addr() string {
	return net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
}

// errorName is the Kafka name of an error code, nil for none.
func errorName(code int16) *string {
	err := protocol.ErrorForCode(code)
	if err == nil {
		return nil
	}
	var kerr *protocol.Error
	name := err.Error()
	if errors.As(err, &kerr) {
		name = kerr.Name
	}
	return &name
}

// nonNil returns s, or an empty slice for nil (JSON [] rather than null).
func nonNil(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}
