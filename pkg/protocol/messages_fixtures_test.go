package protocol

import (
	"bytes"
	"testing"
)

// msgCase is one message with every field set to a non-default value.
// full builds it; at builds what it must decode to at a version: the same
// value with the fields absent at that version at their defaults. at is
// written from Kafka's message schemas, independently of the codecs.
type msgCase struct {
	name  string
	key   APIKey
	full  func() Message
	at    func(version int16) Message
	empty func() Message
}

// versions is the range of versions the case is exercised at.
func (c msgCase) versions() VersionRange { return messageVersions(c.key) }

func msgPtr[T any](v T) *T { return &v }

func msgUUIDA() [16]byte {
	return [16]byte{0x0a, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xfa}
}

func msgUUIDB() [16]byte {
	return [16]byte{0x0b, 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11}
}

// msgTestBatch builds a real, uncompressed record batch v2 with n records whose
// values are valueSize bytes long.
func msgTestBatch(tb testing.TB, n, valueSize int, producerID int64, epoch int16, baseSeq int32) []byte {
	tb.Helper()
	const baseTimestamp = 1_700_000_000_000
	b := make([]byte, RecordBatchHeaderSize)
	for i := range n {
		key := []byte{'k', byte('0' + i%10)}
		value := bytes.Repeat([]byte{byte('a' + i%26)}, valueSize)
		headers := []Header{{Key: "h", Value: []byte{byte(i)}}, {Key: "null", Value: nil}}
		if i%3 == 2 {
			key = nil // a null key
		}
		b = AppendRecord(b, int32(i), int64(i*10), key, value, headers)
	}
	PutBatchHeader(b, &BatchHeader{
		PartitionLeaderEpoch: -1,
		LastOffsetDelta:      int32(n - 1),
		BaseTimestamp:        baseTimestamp,
		MaxTimestamp:         baseTimestamp + int64((n-1)*10),
		ProducerID:           producerID,
		ProducerEpoch:        epoch,
		BaseSequence:         baseSeq,
		RecordCount:          int32(n),
	})
	return b
}

// messageCases lists every message type, both directions.
func messageCases(tb testing.TB) []msgCase {
	small := msgTestBatch(tb, 3, 10, 4242, 1, 0)
	large := msgTestBatch(tb, 8, 700, -1, -1, -1) // above the Writer.Ref threshold
	return []msgCase{
		apiVersionsRequestCase(),
		apiVersionsResponseCase(),
		metadataRequestCase(),
		metadataRequestAllTopicsCase(),
		metadataRequestNoTopicsCase(),
		metadataResponseCase(),
		produceRequestCase(small, large),
		produceResponseCase(),
		initProducerIDRequestCase(),
		initProducerIDResponseCase(),
		saslHandshakeRequestCase(),
		saslHandshakeResponseCase(),
		saslAuthenticateRequestCase(),
		saslAuthenticateResponseCase(),
		createTopicsRequestCase(),
		createTopicsResponseCase(),
		findCoordinatorRequestCase(),
		findCoordinatorResponseCase(),
		addPartitionsToTxnRequestCase(),
		addPartitionsToTxnResponseCase(),
		endTxnRequestCase(),
		endTxnResponseCase(),
		listOffsetsRequestCase(),
		listOffsetsResponseCase(),
		fetchRequestCase(),
		fetchResponseCase(small, large),
	}
}

func apiVersionsRequestCase() msgCase {
	full := func() *ApiVersionsRequest {
		return &ApiVersionsRequest{ClientSoftwareName: "kproduce", ClientSoftwareVersion: "1.2.3-test"}
	}
	return msgCase{
		name: "ApiVersionsRequest", key: KeyApiVersions,
		full:  func() Message { return full() },
		empty: func() Message { return new(ApiVersionsRequest) },
		at: func(v int16) Message {
			m := full()
			if v < 3 {
				*m = ApiVersionsRequest{}
			}
			return m
		},
	}
}

func apiVersionsResponseCase() msgCase {
	full := func() *ApiVersionsResponse {
		return &ApiVersionsResponse{
			ErrorCode: 35,
			ApiKeys: []ApiVersionsResponseKey{
				{ApiKey: 0, MinVersion: 3, MaxVersion: 11},
				{ApiKey: 3, MinVersion: 4, MaxVersion: 12},
				{ApiKey: 18, MinVersion: 0, MaxVersion: 3},
			},
			ThrottleTimeMs: 77,
		}
	}
	return msgCase{
		name: "ApiVersionsResponse", key: KeyApiVersions,
		full:  func() Message { return full() },
		empty: func() Message { return new(ApiVersionsResponse) },
		at: func(v int16) Message {
			m := full()
			if v < 1 {
				m.ThrottleTimeMs = 0
			}
			return m
		},
	}
}

func metadataRequestAt(m *MetadataRequest, v int16) *MetadataRequest {
	for i := range m.Topics {
		t := &m.Topics[i]
		if v < 10 {
			t.TopicID = [16]byte{}
			if t.Name == nil {
				t.Name = msgPtr("")
			}
		}
	}
	if v < 8 || v > 10 {
		m.IncludeClusterAuthorizedOperations = false
	}
	if v < 8 {
		m.IncludeTopicAuthorizedOperations = false
	}
	return m
}

func metadataRequestCase() msgCase {
	full := func() *MetadataRequest {
		return &MetadataRequest{
			Topics: []MetadataRequestTopic{
				{TopicID: msgUUIDA(), Name: msgPtr("orders")},
				{TopicID: msgUUIDB(), Name: nil},
			},
			AllowAutoTopicCreation:             true,
			IncludeClusterAuthorizedOperations: true,
			IncludeTopicAuthorizedOperations:   true,
		}
	}
	return msgCase{
		name: "MetadataRequest", key: KeyMetadata,
		full:  func() Message { return full() },
		empty: func() Message { return new(MetadataRequest) },
		at:    func(v int16) Message { return metadataRequestAt(full(), v) },
	}
}

func metadataRequestAllTopicsCase() msgCase {
	full := func() *MetadataRequest {
		return &MetadataRequest{Topics: nil, AllowAutoTopicCreation: true, IncludeTopicAuthorizedOperations: true}
	}
	return msgCase{
		name: "MetadataRequest/all-topics", key: KeyMetadata,
		full:  func() Message { return full() },
		empty: func() Message { return new(MetadataRequest) },
		at:    func(v int16) Message { return metadataRequestAt(full(), v) },
	}
}

func metadataRequestNoTopicsCase() msgCase {
	full := func() *MetadataRequest { return &MetadataRequest{Topics: []MetadataRequestTopic{}} }
	return msgCase{
		name: "MetadataRequest/no-topics", key: KeyMetadata,
		full:  func() Message { return full() },
		empty: func() Message { return new(MetadataRequest) },
		at:    func(v int16) Message { return metadataRequestAt(full(), v) },
	}
}

func metadataResponseFull() *MetadataResponse {
	return &MetadataResponse{
		ThrottleTimeMs: 12,
		Brokers: []MetadataResponseBroker{
			{NodeID: 1, Host: "broker-1.example", Port: 9092, Rack: msgPtr("rack-a")},
			{NodeID: 2, Host: "broker-2.example", Port: 9093, Rack: nil},
		},
		ClusterID:    msgPtr("cluster-x"),
		ControllerID: 2,
		Topics: []MetadataResponseTopic{
			{
				ErrorCode: 5, Name: msgPtr("orders"), TopicID: msgUUIDA(), IsInternal: true,
				Partitions: []MetadataResponsePartition{
					{ErrorCode: 6, PartitionIndex: 0, LeaderID: 1, LeaderEpoch: 7,
						ReplicaNodes: []int32{1, 2}, IsrNodes: []int32{1}, OfflineReplicas: []int32{2}},
					{ErrorCode: 9, PartitionIndex: 1, LeaderID: 2, LeaderEpoch: 8,
						ReplicaNodes: []int32{2, 1}, IsrNodes: []int32{2, 1}, OfflineReplicas: []int32{3}},
				},
				TopicAuthorizedOperations: 0x0f8,
			},
			{
				ErrorCode: 100, Name: nil, TopicID: msgUUIDB(),
				Partitions: []MetadataResponsePartition{
					{ErrorCode: 5, PartitionIndex: 4, LeaderID: -1, LeaderEpoch: 2,
						ReplicaNodes: []int32{3}, IsrNodes: []int32{3}, OfflineReplicas: []int32{3}},
				},
				TopicAuthorizedOperations: 0x1,
			},
		},
		ClusterAuthorizedOperations: 0x1fe,
	}
}

func metadataResponseCase() msgCase {
	return msgCase{
		name: "MetadataResponse", key: KeyMetadata,
		full:  func() Message { return metadataResponseFull() },
		empty: func() Message { return new(MetadataResponse) },
		at: func(v int16) Message {
			m := metadataResponseFull()
			for i := range m.Topics {
				t := &m.Topics[i]
				if v < 12 && t.Name == nil {
					t.Name = msgPtr("")
				}
				if v < 10 {
					t.TopicID = [16]byte{}
				}
				if v < 8 {
					t.TopicAuthorizedOperations = AuthorizedOperationsOmitted
				}
				for j := range t.Partitions {
					p := &t.Partitions[j]
					if v < 7 {
						p.LeaderEpoch = -1
					}
					if v < 5 {
						p.OfflineReplicas = nil
					}
				}
			}
			if v < 8 || v > 10 {
				m.ClusterAuthorizedOperations = AuthorizedOperationsOmitted
			}
			return m
		},
	}
}

func produceRequestCase(small, large []byte) msgCase {
	full := func() *ProduceRequest {
		return &ProduceRequest{
			TransactionalID: msgPtr("txn-1"),
			Acks:            -1,
			TimeoutMs:       30_000,
			Topics: []ProduceRequestTopic{
				{Name: "orders", Partitions: []ProduceRequestPartition{
					{Index: 0, Records: small},
					{Index: 3, Records: nil},
				}},
				{Name: "events", Partitions: []ProduceRequestPartition{
					{Index: 1, Records: large},
				}},
			},
		}
	}
	return msgCase{
		name: "ProduceRequest", key: KeyProduce,
		full:  func() Message { return full() },
		empty: func() Message { return new(ProduceRequest) },
		at:    func(int16) Message { return full() },
	}
}

func produceResponseFull() *ProduceResponse {
	return &ProduceResponse{
		Topics: []ProduceResponseTopic{
			{Name: "orders", Partitions: []ProduceResponsePartition{
				{
					Index: 0, ErrorCode: 6, BaseOffset: 100, LogAppendTimeMs: 1_700_000_000_123, LogStartOffset: 5,
					RecordErrors: []ProduceResponseRecordError{
						{BatchIndex: 2, BatchIndexErrorMessage: msgPtr("bad record")},
						{BatchIndex: 3, BatchIndexErrorMessage: nil},
					},
					ErrorMessage:  msgPtr("batch dropped"),
					CurrentLeader: LeaderIDAndEpoch{LeaderID: 2, LeaderEpoch: 9},
				},
				{
					Index: 1, ErrorCode: 87, BaseOffset: -1, LogAppendTimeMs: 42, LogStartOffset: 17,
					RecordErrors:  []ProduceResponseRecordError{{BatchIndex: 0, BatchIndexErrorMessage: msgPtr("x")}},
					ErrorMessage:  msgPtr("invalid record"),
					CurrentLeader: LeaderIDAndEpoch{LeaderID: 3, LeaderEpoch: -1},
				},
			}},
			{Name: "events", Partitions: []ProduceResponsePartition{
				{
					Index: 7, ErrorCode: 0, BaseOffset: 1 << 40, LogAppendTimeMs: 1, LogStartOffset: 2,
					RecordErrors:  []ProduceResponseRecordError{{BatchIndex: 9, BatchIndexErrorMessage: msgPtr("y")}},
					ErrorMessage:  msgPtr("z"),
					CurrentLeader: LeaderIDAndEpoch{LeaderID: -1, LeaderEpoch: 4},
				},
			}},
		},
		ThrottleTimeMs: 50,
		NodeEndpoints: []ProduceResponseNodeEndpoint{
			{NodeID: 2, Host: "broker-2.example", Port: 9093, Rack: msgPtr("rack-b")},
			{NodeID: 3, Host: "broker-3.example", Port: 9094, Rack: nil},
		},
	}
}

func produceResponseCase() msgCase {
	return msgCase{
		name: "ProduceResponse", key: KeyProduce,
		full:  func() Message { return produceResponseFull() },
		empty: func() Message { return new(ProduceResponse) },
		at: func(v int16) Message {
			m := produceResponseFull()
			for i := range m.Topics {
				for j := range m.Topics[i].Partitions {
					p := &m.Topics[i].Partitions[j]
					if v < 5 {
						p.LogStartOffset = -1
					}
					if v < 8 {
						p.RecordErrors, p.ErrorMessage = nil, nil
					}
					if v < 10 {
						p.CurrentLeader = LeaderIDAndEpoch{LeaderID: -1, LeaderEpoch: -1}
					}
				}
			}
			if v < 10 {
				m.NodeEndpoints = nil
			}
			return m
		},
	}
}

// msgEncode returns m encoded at version as one contiguous slice.
func msgEncode(m Message, version int16) []byte {
	var w Writer
	m.Encode(&w, version)
	return w.Encoded()
}
