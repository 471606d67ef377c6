package protocol

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// msgKmsg is what kmsg's requests and responses have in common.
type msgKmsg interface {
	Key() int16
	SetVersion(int16)
	AppendTo([]byte) []byte
	ReadFrom([]byte) error
}

// msgNewKmsg returns an empty kmsg message of the type of m, at version.
func msgNewKmsg(m Message, version int16) msgKmsg {
	var k msgKmsg
	if _, isReq := m.(Request); isReq {
		k = kmsg.RequestForKey(int16(m.Key()))
	} else {
		k = kmsg.ResponseForKey(int16(m.Key()))
	}
	k.SetVersion(version)
	return k
}

func msgMap[T, U any](in []T, f func(*T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i := range in {
		out[i] = f(&in[i])
	}
	return out
}

func TestKmsgOracle(t *testing.T) {
	for _, c := range messageCases(t) {
		vr := c.versions()
		for v := vr.Min; v <= vr.Max; v++ {
			t.Run(fmt.Sprintf("%s/v%d", c.name, v), func(t *testing.T) {
				want := c.at(v)
				ours := msgEncode(c.full(), v)

				// Ours encodes, kmsg decodes.
				k := msgNewKmsg(c.full(), v)
				require.NoError(t, k.ReadFrom(ours))
				assert.Equal(t, want, msgFromKmsg(t, k), "kmsg decoded our encoding differently")

				// kmsg encodes, ours decodes.
				theirs := msgToKmsg(t, want, v).AppendTo(nil)
				assert.Equal(t, want, msgDecodeAll(t, c, theirs, v), "we decoded kmsg's encoding differently")

				assert.Equal(t, theirs, ours, "encodings differ")
			})
		}
	}
}

func TestKmsgOracleUnknownTaggedFieldsAreSkipped(t *testing.T) {
	// kmsg writes CurrentLeader and NodeEndpoints (tag 0) at v9 too, where
	// Kafka's schema does not define them: they are unknown there.
	for _, v := range []int16{9, 10, 11} {
		t.Run(fmt.Sprintf("ProduceResponse/v%d", v), func(t *testing.T) {
			want := produceResponseCase().at(v).(*ProduceResponse)
			k := msgToKmsg(t, produceResponseFull(), v).(*kmsg.ProduceResponse)
			k.UnknownTags.Set(7, []byte{1, 2, 3})
			k.Topics[0].UnknownTags.Set(1, []byte{4})
			k.Topics[0].Partitions[0].UnknownTags.Set(5, []byte{5, 6})
			k.Topics[0].Partitions[0].ErrorRecords[0].UnknownTags.Set(2, nil)
			var got ProduceResponse
			r := NewReader(k.AppendTo(nil))
			require.NoError(t, got.Decode(r, v))
			assert.Zero(t, r.Remaining())
			assert.Equal(t, want, &got)
		})
	}
	t.Run("ApiVersionsResponse/v3 features", func(t *testing.T) {
		k := msgToKmsg(t, apiVersionsResponseCase().full(), 3).(*kmsg.ApiVersionsResponse)
		k.SupportedFeatures = []kmsg.ApiVersionsResponseSupportedFeature{{Name: "metadata.version", MinVersion: 1, MaxVersion: 20}}
		k.FinalizedFeaturesEpoch = 42
		k.FinalizedFeatures = []kmsg.ApiVersionsResponseFinalizedFeature{{Name: "metadata.version", MinVersionLevel: 1, MaxVersionLevel: 20}}
		k.ZkMigrationReady = true
		got, err := DecodeApiVersionsResponse(k.AppendTo(nil), 3)
		require.NoError(t, err)
		assert.Equal(t, apiVersionsResponseCase().full(), got)
	})
	t.Run("CreateTopicsResponse/v5 unknown tags", func(t *testing.T) {
		k := msgToKmsg(t, createTopicsResponseFull(), 5).(*kmsg.CreateTopicsResponse)
		k.Topics[0].UnknownTags.Set(3, []byte{9, 9})
		k.Topics[0].Configs[0].UnknownTags.Set(0, []byte{1})
		var got CreateTopicsResponse
		require.NoError(t, got.Decode(NewReader(k.AppendTo(nil)), 5))
		assert.Equal(t, createTopicsResponseCase().at(5), &got)
	})
}

// msgToKmsg converts one of our messages to kmsg's, at version.
func msgToKmsg(t *testing.T, m Message, version int16) msgKmsg {
	t.Helper()
	var k msgKmsg
	switch m := m.(type) {
	case *ApiVersionsRequest:
		k = &kmsg.ApiVersionsRequest{ClientSoftwareName: m.ClientSoftwareName, ClientSoftwareVersion: m.ClientSoftwareVersion, NodeID: -1}
	case *ApiVersionsResponse:
		r := kmsg.NewPtrApiVersionsResponse()
		r.ErrorCode, r.ThrottleMillis = m.ErrorCode, m.ThrottleTimeMs
		r.ApiKeys = msgMap(m.ApiKeys, func(a *ApiVersionsResponseKey) kmsg.ApiVersionsResponseApiKey {
			return kmsg.ApiVersionsResponseApiKey{ApiKey: a.ApiKey, MinVersion: a.MinVersion, MaxVersion: a.MaxVersion}
		})
		k = r
	case *MetadataRequest:
		k = metadataRequestToKmsg(m)
	case *MetadataResponse:
		k = metadataResponseToKmsg(m)
	case *ProduceRequest:
		k = produceRequestToKmsg(m)
	case *ProduceResponse:
		k = produceResponseToKmsg(m)
	case *InitProducerIdRequest:
		k = &kmsg.InitProducerIDRequest{TransactionalID: m.TransactionalID, TransactionTimeoutMillis: m.TransactionTimeoutMs,
			ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch}
	case *InitProducerIdResponse:
		k = &kmsg.InitProducerIDResponse{ThrottleMillis: m.ThrottleTimeMs, ErrorCode: m.ErrorCode,
			ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch}
	case *SaslHandshakeRequest:
		k = &kmsg.SASLHandshakeRequest{Mechanism: m.Mechanism}
	case *SaslHandshakeResponse:
		k = &kmsg.SASLHandshakeResponse{ErrorCode: m.ErrorCode, SupportedMechanisms: m.Mechanisms}
	case *SaslAuthenticateRequest:
		k = &kmsg.SASLAuthenticateRequest{SASLAuthBytes: m.AuthBytes}
	case *SaslAuthenticateResponse:
		k = &kmsg.SASLAuthenticateResponse{ErrorCode: m.ErrorCode, ErrorMessage: m.ErrorMessage,
			SASLAuthBytes: m.AuthBytes, SessionLifetimeMillis: m.SessionLifetimeMs}
	case *CreateTopicsRequest:
		k = createTopicsRequestToKmsg(m)
	case *CreateTopicsResponse:
		k = createTopicsResponseToKmsg(m)
	default:
		if k = txnMessageToKmsg(m); k == nil {
			k = readMessageToKmsg(m)
		}
		if k == nil {
			t.Fatalf("no kmsg conversion for %T", m)
		}
	}
	k.SetVersion(version)
	return k
}

// msgFromKmsg converts a kmsg message to ours.
func msgFromKmsg(t *testing.T, k msgKmsg) Message {
	t.Helper()
	switch k := k.(type) {
	case *kmsg.ApiVersionsRequest:
		return &ApiVersionsRequest{ClientSoftwareName: k.ClientSoftwareName, ClientSoftwareVersion: k.ClientSoftwareVersion}
	case *kmsg.ApiVersionsResponse:
		return &ApiVersionsResponse{ErrorCode: k.ErrorCode, ThrottleTimeMs: k.ThrottleMillis,
			ApiKeys: msgMap(k.ApiKeys, func(a *kmsg.ApiVersionsResponseApiKey) ApiVersionsResponseKey {
				return ApiVersionsResponseKey{ApiKey: a.ApiKey, MinVersion: a.MinVersion, MaxVersion: a.MaxVersion}
			})}
	case *kmsg.MetadataRequest:
		return metadataRequestFromKmsg(k)
	case *kmsg.MetadataResponse:
		return metadataResponseFromKmsg(k)
	case *kmsg.ProduceRequest:
		return produceRequestFromKmsg(k)
	case *kmsg.ProduceResponse:
		return produceResponseFromKmsg(k)
	case *kmsg.InitProducerIDRequest:
		return &InitProducerIdRequest{TransactionalID: k.TransactionalID, TransactionTimeoutMs: k.TransactionTimeoutMillis,
			ProducerID: k.ProducerID, ProducerEpoch: k.ProducerEpoch}
	case *kmsg.InitProducerIDResponse:
		return &InitProducerIdResponse{ThrottleTimeMs: k.ThrottleMillis, ErrorCode: k.ErrorCode,
			ProducerID: k.ProducerID, ProducerEpoch: k.ProducerEpoch}
	case *kmsg.SASLHandshakeRequest:
		return &SaslHandshakeRequest{Mechanism: k.Mechanism}
	case *kmsg.SASLHandshakeResponse:
		return &SaslHandshakeResponse{ErrorCode: k.ErrorCode, Mechanisms: k.SupportedMechanisms}
	case *kmsg.SASLAuthenticateRequest:
		return &SaslAuthenticateRequest{AuthBytes: k.SASLAuthBytes}
	case *kmsg.SASLAuthenticateResponse:
		return &SaslAuthenticateResponse{ErrorCode: k.ErrorCode, ErrorMessage: k.ErrorMessage,
			AuthBytes: k.SASLAuthBytes, SessionLifetimeMs: k.SessionLifetimeMillis}
	case *kmsg.CreateTopicsRequest:
		return createTopicsRequestFromKmsg(k)
	case *kmsg.CreateTopicsResponse:
		return createTopicsResponseFromKmsg(k)
	}
	if m := txnMessageFromKmsg(k); m != nil {
		return m
	}
	if m := readMessageFromKmsg(k); m != nil {
		return m
	}
	t.Fatalf("no conversion from %T", k)
	return nil
}

func metadataRequestToKmsg(m *MetadataRequest) *kmsg.MetadataRequest {
	k := kmsg.NewPtrMetadataRequest()
	k.Topics = msgMap(m.Topics, func(t *MetadataRequestTopic) kmsg.MetadataRequestTopic {
		return kmsg.MetadataRequestTopic{TopicID: t.TopicID, Topic: t.Name}
	})
	k.AllowAutoTopicCreation = m.AllowAutoTopicCreation
	k.IncludeClusterAuthorizedOperations = m.IncludeClusterAuthorizedOperations
	k.IncludeTopicAuthorizedOperations = m.IncludeTopicAuthorizedOperations
	return k
}

func metadataRequestFromKmsg(k *kmsg.MetadataRequest) *MetadataRequest {
	return &MetadataRequest{
		Topics: msgMap(k.Topics, func(t *kmsg.MetadataRequestTopic) MetadataRequestTopic {
			return MetadataRequestTopic{TopicID: t.TopicID, Name: t.Topic}
		}),
		AllowAutoTopicCreation:             k.AllowAutoTopicCreation,
		IncludeClusterAuthorizedOperations: k.IncludeClusterAuthorizedOperations,
		IncludeTopicAuthorizedOperations:   k.IncludeTopicAuthorizedOperations,
	}
}

func metadataResponseToKmsg(m *MetadataResponse) *kmsg.MetadataResponse {
	k := kmsg.NewPtrMetadataResponse()
	k.ThrottleMillis, k.ClusterID, k.ControllerID = m.ThrottleTimeMs, m.ClusterID, m.ControllerID
	k.AuthorizedOperations = m.ClusterAuthorizedOperations
	k.Brokers = msgMap(m.Brokers, func(b *MetadataResponseBroker) kmsg.MetadataResponseBroker {
		return kmsg.MetadataResponseBroker{NodeID: b.NodeID, Host: b.Host, Port: b.Port, Rack: b.Rack}
	})
	k.Topics = msgMap(m.Topics, func(t *MetadataResponseTopic) kmsg.MetadataResponseTopic {
		kt := kmsg.NewMetadataResponseTopic()
		kt.ErrorCode, kt.Topic, kt.TopicID, kt.IsInternal = t.ErrorCode, t.Name, t.TopicID, t.IsInternal
		kt.AuthorizedOperations = t.TopicAuthorizedOperations
		kt.Partitions = msgMap(t.Partitions, func(p *MetadataResponsePartition) kmsg.MetadataResponseTopicPartition {
			return kmsg.MetadataResponseTopicPartition{ErrorCode: p.ErrorCode, Partition: p.PartitionIndex,
				Leader: p.LeaderID, LeaderEpoch: p.LeaderEpoch, Replicas: p.ReplicaNodes, ISR: p.IsrNodes,
				OfflineReplicas: p.OfflineReplicas}
		})
		return kt
	})
	return k
}

func metadataResponseFromKmsg(k *kmsg.MetadataResponse) *MetadataResponse {
	return &MetadataResponse{
		ThrottleTimeMs: k.ThrottleMillis, ClusterID: k.ClusterID, ControllerID: k.ControllerID,
		ClusterAuthorizedOperations: k.AuthorizedOperations,
		Brokers: msgMap(k.Brokers, func(b *kmsg.MetadataResponseBroker) MetadataResponseBroker {
			return MetadataResponseBroker{NodeID: b.NodeID, Host: b.Host, Port: b.Port, Rack: b.Rack}
		}),
		Topics: msgMap(k.Topics, func(t *kmsg.MetadataResponseTopic) MetadataResponseTopic {
			return MetadataResponseTopic{ErrorCode: t.ErrorCode, Name: t.Topic, TopicID: t.TopicID,
				IsInternal: t.IsInternal, TopicAuthorizedOperations: t.AuthorizedOperations,
				Partitions: msgMap(t.Partitions, func(p *kmsg.MetadataResponseTopicPartition) MetadataResponsePartition {
					return MetadataResponsePartition{ErrorCode: p.ErrorCode, PartitionIndex: p.Partition,
						LeaderID: p.Leader, LeaderEpoch: p.LeaderEpoch, ReplicaNodes: p.Replicas, IsrNodes: p.ISR,
						OfflineReplicas: p.OfflineReplicas}
				})}
		}),
	}
}

func produceRequestToKmsg(m *ProduceRequest) *kmsg.ProduceRequest {
	k := kmsg.NewPtrProduceRequest()
	k.TransactionID, k.Acks, k.TimeoutMillis = m.TransactionalID, m.Acks, m.TimeoutMs
	k.Topics = msgMap(m.Topics, func(t *ProduceRequestTopic) kmsg.ProduceRequestTopic {
		return kmsg.ProduceRequestTopic{Topic: t.Name,
			Partitions: msgMap(t.Partitions, func(p *ProduceRequestPartition) kmsg.ProduceRequestTopicPartition {
				return kmsg.ProduceRequestTopicPartition{Partition: p.Index, Records: p.Records}
			})}
	})
	return k
}

func produceRequestFromKmsg(k *kmsg.ProduceRequest) *ProduceRequest {
	return &ProduceRequest{
		TransactionalID: k.TransactionID, Acks: k.Acks, TimeoutMs: k.TimeoutMillis,
		Topics: msgMap(k.Topics, func(t *kmsg.ProduceRequestTopic) ProduceRequestTopic {
			return ProduceRequestTopic{Name: t.Topic,
				Partitions: msgMap(t.Partitions, func(p *kmsg.ProduceRequestTopicPartition) ProduceRequestPartition {
					return ProduceRequestPartition{Index: p.Partition, Records: p.Records}
				})}
		}),
	}
}

func produceResponseToKmsg(m *ProduceResponse) *kmsg.ProduceResponse {
	k := kmsg.NewPtrProduceResponse()
	k.ThrottleMillis = m.ThrottleTimeMs
	k.Topics = msgMap(m.Topics, func(t *ProduceResponseTopic) kmsg.ProduceResponseTopic {
		return kmsg.ProduceResponseTopic{Topic: t.Name,
			Partitions: msgMap(t.Partitions, func(p *ProduceResponsePartition) kmsg.ProduceResponseTopicPartition {
				kp := kmsg.NewProduceResponseTopicPartition()
				kp.Partition, kp.ErrorCode, kp.BaseOffset = p.Index, p.ErrorCode, p.BaseOffset
				kp.LogAppendTime, kp.LogStartOffset, kp.ErrorMessage = p.LogAppendTimeMs, p.LogStartOffset, p.ErrorMessage
				kp.ErrorRecords = msgMap(p.RecordErrors, func(e *ProduceResponseRecordError) kmsg.ProduceResponseTopicPartitionErrorRecord {
					return kmsg.ProduceResponseTopicPartitionErrorRecord{RelativeOffset: e.BatchIndex, ErrorMessage: e.BatchIndexErrorMessage}
				})
				kp.CurrentLeader.LeaderID, kp.CurrentLeader.LeaderEpoch = p.CurrentLeader.LeaderID, p.CurrentLeader.LeaderEpoch
				return kp
			})}
	})
	k.Brokers = msgMap(m.NodeEndpoints, func(e *ProduceResponseNodeEndpoint) kmsg.ProduceResponseBroker {
		return kmsg.ProduceResponseBroker{NodeID: e.NodeID, Host: e.Host, Port: e.Port, Rack: e.Rack}
	})
	return k
}

func produceResponseFromKmsg(k *kmsg.ProduceResponse) *ProduceResponse {
	m := &ProduceResponse{
		ThrottleTimeMs: k.ThrottleMillis,
		Topics: msgMap(k.Topics, func(t *kmsg.ProduceResponseTopic) ProduceResponseTopic {
			return ProduceResponseTopic{Name: t.Topic,
				Partitions: msgMap(t.Partitions, func(p *kmsg.ProduceResponseTopicPartition) ProduceResponsePartition {
					return ProduceResponsePartition{Index: p.Partition, ErrorCode: p.ErrorCode, BaseOffset: p.BaseOffset,
						LogAppendTimeMs: p.LogAppendTime, LogStartOffset: p.LogStartOffset, ErrorMessage: p.ErrorMessage,
						RecordErrors: msgMap(p.ErrorRecords, func(e *kmsg.ProduceResponseTopicPartitionErrorRecord) ProduceResponseRecordError {
							return ProduceResponseRecordError{BatchIndex: e.RelativeOffset, BatchIndexErrorMessage: e.ErrorMessage}
						}),
						CurrentLeader: LeaderIDAndEpoch{LeaderID: p.CurrentLeader.LeaderID, LeaderEpoch: p.CurrentLeader.LeaderEpoch}}
				})}
		}),
		NodeEndpoints: msgMap(k.Brokers, func(b *kmsg.ProduceResponseBroker) ProduceResponseNodeEndpoint {
			return ProduceResponseNodeEndpoint{NodeID: b.NodeID, Host: b.Host, Port: b.Port, Rack: b.Rack}
		}),
	}
	return m
}

func createTopicsRequestToKmsg(m *CreateTopicsRequest) *kmsg.CreateTopicsRequest {
	k := kmsg.NewPtrCreateTopicsRequest()
	k.TimeoutMillis, k.ValidateOnly = m.TimeoutMs, m.ValidateOnly
	k.Topics = msgMap(m.Topics, func(t *CreateTopicsRequestTopic) kmsg.CreateTopicsRequestTopic {
		return kmsg.CreateTopicsRequestTopic{Topic: t.Name, NumPartitions: t.NumPartitions, ReplicationFactor: t.ReplicationFactor,
			ReplicaAssignment: msgMap(t.Assignments, func(a *CreateTopicsRequestAssignment) kmsg.CreateTopicsRequestTopicReplicaAssignment {
				return kmsg.CreateTopicsRequestTopicReplicaAssignment{Partition: a.PartitionIndex, Replicas: a.BrokerIDs}
			}),
			Configs: msgMap(t.Configs, func(c *CreateTopicsRequestConfig) kmsg.CreateTopicsRequestTopicConfig {
				return kmsg.CreateTopicsRequestTopicConfig{Name: c.Name, Value: c.Value}
			})}
	})
	return k
}

func createTopicsRequestFromKmsg(k *kmsg.CreateTopicsRequest) *CreateTopicsRequest {
	return &CreateTopicsRequest{
		TimeoutMs: k.TimeoutMillis, ValidateOnly: k.ValidateOnly,
		Topics: msgMap(k.Topics, func(t *kmsg.CreateTopicsRequestTopic) CreateTopicsRequestTopic {
			return CreateTopicsRequestTopic{Name: t.Topic, NumPartitions: t.NumPartitions, ReplicationFactor: t.ReplicationFactor,
				Assignments: msgMap(t.ReplicaAssignment, func(a *kmsg.CreateTopicsRequestTopicReplicaAssignment) CreateTopicsRequestAssignment {
					return CreateTopicsRequestAssignment{PartitionIndex: a.Partition, BrokerIDs: a.Replicas}
				}),
				Configs: msgMap(t.Configs, func(c *kmsg.CreateTopicsRequestTopicConfig) CreateTopicsRequestConfig {
					return CreateTopicsRequestConfig{Name: c.Name, Value: c.Value}
				})}
		}),
	}
}

func createTopicsResponseToKmsg(m *CreateTopicsResponse) *kmsg.CreateTopicsResponse {
	k := kmsg.NewPtrCreateTopicsResponse()
	k.ThrottleMillis = m.ThrottleTimeMs
	k.Topics = msgMap(m.Topics, func(t *CreateTopicsResponseTopic) kmsg.CreateTopicsResponseTopic {
		return kmsg.CreateTopicsResponseTopic{Topic: t.Name, TopicID: t.TopicID, ErrorCode: t.ErrorCode,
			ErrorMessage: t.ErrorMessage, ConfigErrorCode: t.TopicConfigErrorCode, NumPartitions: t.NumPartitions,
			ReplicationFactor: t.ReplicationFactor,
			Configs: msgMap(t.Configs, func(c *CreateTopicsResponseConfig) kmsg.CreateTopicsResponseTopicConfig {
				return kmsg.CreateTopicsResponseTopicConfig{Name: c.Name, Value: c.Value, ReadOnly: c.ReadOnly,
					Source: c.ConfigSource, IsSensitive: c.IsSensitive}
			})}
	})
	return k
}

func createTopicsResponseFromKmsg(k *kmsg.CreateTopicsResponse) *CreateTopicsResponse {
	return &CreateTopicsResponse{
		ThrottleTimeMs: k.ThrottleMillis,
		Topics: msgMap(k.Topics, func(t *kmsg.CreateTopicsResponseTopic) CreateTopicsResponseTopic {
			return CreateTopicsResponseTopic{Name: t.Topic, TopicID: t.TopicID, ErrorCode: t.ErrorCode,
				ErrorMessage: t.ErrorMessage, TopicConfigErrorCode: t.ConfigErrorCode, NumPartitions: t.NumPartitions,
				ReplicationFactor: t.ReplicationFactor,
				Configs: msgMap(t.Configs, func(c *kmsg.CreateTopicsResponseTopicConfig) CreateTopicsResponseConfig {
					return CreateTopicsResponseConfig{Name: c.Name, Value: c.Value, ReadOnly: c.ReadOnly,
						ConfigSource: c.Source, IsSensitive: c.IsSensitive}
				})}
		}),
	}
}
