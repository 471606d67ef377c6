package protocol

// Fixtures of the read-side messages (ListOffsets, Fetch); see msgCase in
// messages_fixtures_test.go. The at functions follow Kafka's schemas
// (ListOffsetsRequest.json, FetchRequest.json and their responses).

func listOffsetsRequestCase() msgCase {
	full := func() *ListOffsetsRequest {
		return &ListOffsetsRequest{
			ReplicaID: ConsumerReplicaID, IsolationLevel: IsolationReadCommitted, TimeoutMs: 1234,
			Topics: []ListOffsetsRequestTopic{
				{Name: "orders", Partitions: []ListOffsetsRequestPartition{
					{PartitionIndex: 0, CurrentLeaderEpoch: 7, Timestamp: ListOffsetsLatest},
					{PartitionIndex: 4, CurrentLeaderEpoch: -1, Timestamp: 1_700_000_000_000},
				}},
				{Name: "events", Partitions: []ListOffsetsRequestPartition{
					{PartitionIndex: 2, CurrentLeaderEpoch: 3, Timestamp: ListOffsetsEarliest},
				}},
			},
		}
	}
	return msgCase{
		name: "ListOffsetsRequest", key: KeyListOffsets,
		full:  func() Message { return full() },
		empty: func() Message { return new(ListOffsetsRequest) },
		at: func(v int16) Message {
			m := full()
			if v < 2 {
				m.IsolationLevel = 0
			}
			if v < 4 {
				for i := range m.Topics {
					for j := range m.Topics[i].Partitions {
						m.Topics[i].Partitions[j].CurrentLeaderEpoch = -1
					}
				}
			}
			if v < 10 {
				m.TimeoutMs = listOffsetsDefaultTimeoutMs
			}
			return m
		},
	}
}

func listOffsetsResponseCase() msgCase {
	full := func() *ListOffsetsResponse {
		return &ListOffsetsResponse{
			ThrottleTimeMs: 21,
			Topics: []ListOffsetsResponseTopic{
				{Name: "orders", Partitions: []ListOffsetsResponsePartition{
					{PartitionIndex: 0, ErrorCode: 0, Timestamp: -1, Offset: 1 << 40, LeaderEpoch: 7},
					{PartitionIndex: 4, ErrorCode: 6, Timestamp: 1_700_000_000_000, Offset: -1, LeaderEpoch: 2},
				}},
				{Name: "events", Partitions: []ListOffsetsResponsePartition{
					{PartitionIndex: 2, ErrorCode: 0, Timestamp: -1, Offset: 0, LeaderEpoch: 3},
				}},
			},
		}
	}
	return msgCase{
		name: "ListOffsetsResponse", key: KeyListOffsets,
		full:  func() Message { return full() },
		empty: func() Message { return new(ListOffsetsResponse) },
		at: func(v int16) Message {
			m := full()
			if v < 2 {
				m.ThrottleTimeMs = 0
			}
			if v < 4 {
				for i := range m.Topics {
					for j := range m.Topics[i].Partitions {
						m.Topics[i].Partitions[j].LeaderEpoch = -1
					}
				}
			}
			return m
		},
	}
}

func fetchRequestFull() *FetchRequest {
	return &FetchRequest{
		ReplicaID: 3, MaxWaitMs: 500, MinBytes: 1, MaxBytes: 52_428_800, IsolationLevel: IsolationReadCommitted,
		SessionID: 77, SessionEpoch: 5,
		Topics: []FetchRequestTopic{
			{Name: "orders", TopicID: msgUUIDA(), Partitions: []FetchRequestPartition{
				{Partition: 0, CurrentLeaderEpoch: 9, FetchOffset: 1 << 33, LastFetchedEpoch: 8, LogStartOffset: 12, PartitionMaxBytes: 1 << 20},
				{Partition: 5, CurrentLeaderEpoch: -1, FetchOffset: 0, LastFetchedEpoch: -1, LogStartOffset: -1, PartitionMaxBytes: 4096},
			}},
			{Name: "events", TopicID: msgUUIDB(), Partitions: []FetchRequestPartition{
				{Partition: 1, CurrentLeaderEpoch: 2, FetchOffset: 42, LastFetchedEpoch: 1, LogStartOffset: 3, PartitionMaxBytes: 100},
			}},
		},
		ForgottenTopics: []FetchRequestForgottenTopic{
			{Name: "gone", TopicID: msgUUIDB(), Partitions: []int32{3, 4}},
		},
		RackID: "rack-a",
	}
}

func fetchRequestCase() msgCase {
	return msgCase{
		name: "FetchRequest", key: KeyFetch,
		full:  func() Message { return fetchRequestFull() },
		empty: func() Message { return new(FetchRequest) },
		at: func(v int16) Message {
			m := fetchRequestFull()
			if v < 7 {
				m.SessionID, m.SessionEpoch, m.ForgottenTopics = 0, -1, nil
			}
			if v < 11 {
				m.RackID = ""
			}
			if v >= 15 {
				m.ReplicaID = ConsumerReplicaID
			}
			for i := range m.Topics {
				t := &m.Topics[i]
				fetchTopicRefAt(&t.Name, &t.TopicID, v)
				for j := range t.Partitions {
					p := &t.Partitions[j]
					if v < 5 {
						p.LogStartOffset = -1
					}
					if v < 9 {
						p.CurrentLeaderEpoch = -1
					}
					if v < 12 {
						p.LastFetchedEpoch = -1
					}
				}
			}
			for i := range m.ForgottenTopics {
				fetchTopicRefAt(&m.ForgottenTopics[i].Name, &m.ForgottenTopics[i].TopicID, v)
			}
			return m
		},
	}
}

// fetchTopicRefAt keeps the topic's name up to v12 and its id from v13.
func fetchTopicRefAt(name *string, id *[16]byte, v int16) {
	if v >= 13 {
		*name = ""
	} else {
		*id = [16]byte{}
	}
}

func fetchResponseFull(small, large []byte) *FetchResponse {
	return &FetchResponse{
		ThrottleTimeMs: 31, ErrorCode: 0, SessionID: 77,
		Topics: []FetchResponseTopic{
			{Name: "orders", TopicID: msgUUIDA(), Partitions: []FetchResponsePartition{
				{PartitionIndex: 0, ErrorCode: 0, HighWatermark: 100, LastStableOffset: 90, LogStartOffset: 4,
					CurrentLeader: LeaderIDAndEpoch{LeaderID: 2, LeaderEpoch: 9},
					AbortedTransactions: []FetchResponseAbortedTransaction{
						{ProducerID: 4242, FirstOffset: 10}, {ProducerID: 17, FirstOffset: 55},
					},
					PreferredReadReplica: 3, Records: small},
				{PartitionIndex: 5, ErrorCode: 6, HighWatermark: -1, LastStableOffset: -1, LogStartOffset: -1,
					CurrentLeader: LeaderIDAndEpoch{LeaderID: -1, LeaderEpoch: -1}, AbortedTransactions: nil,
					PreferredReadReplica: -1, Records: nil},
			}},
			{Name: "events", TopicID: msgUUIDB(), Partitions: []FetchResponsePartition{
				{PartitionIndex: 1, ErrorCode: 0, HighWatermark: 1 << 40, LastStableOffset: 1 << 39, LogStartOffset: 0,
					CurrentLeader:        LeaderIDAndEpoch{LeaderID: 1, LeaderEpoch: -1},
					AbortedTransactions:  []FetchResponseAbortedTransaction{},
					PreferredReadReplica: 2, Records: large},
			}},
		},
		NodeEndpoints: []ProduceResponseNodeEndpoint{
			{NodeID: 2, Host: "broker-2.example", Port: 9093, Rack: msgPtr("rack-b")},
			{NodeID: 1, Host: "broker-1.example", Port: 9092, Rack: nil},
		},
	}
}

func fetchResponseCase(small, large []byte) msgCase {
	return msgCase{
		name: "FetchResponse", key: KeyFetch,
		full:  func() Message { return fetchResponseFull(small, large) },
		empty: func() Message { return new(FetchResponse) },
		at: func(v int16) Message {
			m := fetchResponseFull(small, large)
			if v < 7 {
				m.ErrorCode, m.SessionID = 0, 0
			}
			if v < 16 {
				m.NodeEndpoints = nil
			}
			for i := range m.Topics {
				t := &m.Topics[i]
				fetchTopicRefAt(&t.Name, &t.TopicID, v)
				for j := range t.Partitions {
					p := &t.Partitions[j]
					if v < 5 {
						p.LogStartOffset = -1
					}
					if v < 11 {
						p.PreferredReadReplica = -1
					}
					if v < 12 {
						p.CurrentLeader = unknownLeader()
					}
				}
			}
			return m
		},
	}
}
