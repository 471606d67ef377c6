package protocol

// Fixtures of the InitProducerId, SASL and CreateTopics messages; see
// msgCase in messages_fixtures_test.go.

func initProducerIDRequestCase() msgCase {
	full := func() *InitProducerIdRequest {
		return &InitProducerIdRequest{TransactionalID: msgPtr("txn-1"), TransactionTimeoutMs: 60_000, ProducerID: 4242, ProducerEpoch: 3}
	}
	return msgCase{
		name: "InitProducerIdRequest", key: KeyInitProducerId,
		full:  func() Message { return full() },
		empty: func() Message { return new(InitProducerIdRequest) },
		at: func(v int16) Message {
			m := full()
			if v < 3 {
				m.ProducerID, m.ProducerEpoch = -1, -1
			}
			return m
		},
	}
}

func initProducerIDResponseCase() msgCase {
	full := func() *InitProducerIdResponse {
		return &InitProducerIdResponse{ThrottleTimeMs: 5, ErrorCode: 47, ProducerID: 4242, ProducerEpoch: 4}
	}
	return msgCase{
		name: "InitProducerIdResponse", key: KeyInitProducerId,
		full:  func() Message { return full() },
		empty: func() Message { return new(InitProducerIdResponse) },
		at:    func(int16) Message { return full() },
	}
}

func saslHandshakeRequestCase() msgCase {
	full := func() *SaslHandshakeRequest { return &SaslHandshakeRequest{Mechanism: "SCRAM-SHA-256"} }
	return msgCase{
		name: "SaslHandshakeRequest", key: KeySaslHandshake,
		full:  func() Message { return full() },
		empty: func() Message { return new(SaslHandshakeRequest) },
		at:    func(int16) Message { return full() },
	}
}

func saslHandshakeResponseCase() msgCase {
	full := func() *SaslHandshakeResponse {
		return &SaslHandshakeResponse{ErrorCode: 33, Mechanisms: []string{"PLAIN", "SCRAM-SHA-512"}}
	}
	return msgCase{
		name: "SaslHandshakeResponse", key: KeySaslHandshake,
		full:  func() Message { return full() },
		empty: func() Message { return new(SaslHandshakeResponse) },
		at:    func(int16) Message { return full() },
	}
}

func saslAuthenticateRequestCase() msgCase {
	full := func() *SaslAuthenticateRequest {
		return &SaslAuthenticateRequest{AuthBytes: []byte("\x00user\x00secret")}
	}
	return msgCase{
		name: "SaslAuthenticateRequest", key: KeySaslAuthenticate,
		full:  func() Message { return full() },
		empty: func() Message { return new(SaslAuthenticateRequest) },
		at:    func(int16) Message { return full() },
	}
}

func saslAuthenticateResponseCase() msgCase {
	full := func() *SaslAuthenticateResponse {
		return &SaslAuthenticateResponse{
			ErrorCode: 58, ErrorMessage: msgPtr("authentication failed"),
			AuthBytes: []byte("v=server-signature"), SessionLifetimeMs: 3_600_000,
		}
	}
	return msgCase{
		name: "SaslAuthenticateResponse", key: KeySaslAuthenticate,
		full:  func() Message { return full() },
		empty: func() Message { return new(SaslAuthenticateResponse) },
		at: func(v int16) Message {
			m := full()
			if v < 1 {
				m.SessionLifetimeMs = 0
			}
			return m
		},
	}
}

func createTopicsRequestCase() msgCase {
	full := func() *CreateTopicsRequest {
		return &CreateTopicsRequest{
			Topics: []CreateTopicsRequestTopic{
				{
					Name: "t1", NumPartitions: 6, ReplicationFactor: 3,
					Assignments: []CreateTopicsRequestAssignment{
						{PartitionIndex: 0, BrokerIDs: []int32{1, 2}},
						{PartitionIndex: 1, BrokerIDs: []int32{2, 3}},
					},
					Configs: []CreateTopicsRequestConfig{
						{Name: "cleanup.policy", Value: msgPtr("compact")},
						{Name: "retention.ms", Value: nil},
					},
				},
				{
					Name: "t2", NumPartitions: -1, ReplicationFactor: -1,
					Assignments: []CreateTopicsRequestAssignment{{PartitionIndex: 0, BrokerIDs: []int32{1}}},
					Configs:     []CreateTopicsRequestConfig{{Name: "min.insync.replicas", Value: msgPtr("2")}},
				},
			},
			TimeoutMs:    15_000,
			ValidateOnly: true,
		}
	}
	return msgCase{
		name: "CreateTopicsRequest", key: KeyCreateTopics,
		full:  func() Message { return full() },
		empty: func() Message { return new(CreateTopicsRequest) },
		at:    func(int16) Message { return full() },
	}
}

func createTopicsResponseFull() *CreateTopicsResponse {
	return &CreateTopicsResponse{
		ThrottleTimeMs: 9,
		Topics: []CreateTopicsResponseTopic{
			{
				Name: "t1", TopicID: msgUUIDA(), ErrorCode: 36, ErrorMessage: msgPtr("topic exists"),
				TopicConfigErrorCode: 29, NumPartitions: 6, ReplicationFactor: 3,
				Configs: []CreateTopicsResponseConfig{
					{Name: "cleanup.policy", Value: msgPtr("compact"), ReadOnly: true, ConfigSource: 5, IsSensitive: true},
					{Name: "password", Value: nil, ReadOnly: false, ConfigSource: 1, IsSensitive: true},
				},
			},
			{
				Name: "t2", TopicID: msgUUIDB(), ErrorCode: 37, ErrorMessage: nil,
				TopicConfigErrorCode: 0, NumPartitions: 1, ReplicationFactor: 2,
				Configs: nil,
			},
		},
	}
}

func createTopicsResponseCase() msgCase {
	return msgCase{
		name: "CreateTopicsResponse", key: KeyCreateTopics,
		full:  func() Message { return createTopicsResponseFull() },
		empty: func() Message { return new(CreateTopicsResponse) },
		at: func(v int16) Message {
			m := createTopicsResponseFull()
			for i := range m.Topics {
				t := &m.Topics[i]
				if v < 7 {
					t.TopicID = [16]byte{}
				}
				if v < 5 {
					t.TopicConfigErrorCode = 0
					t.NumPartitions, t.ReplicationFactor = -1, -1
					t.Configs = nil
				}
			}
			return m
		},
	}
}

// msgNewRequestBody returns an empty request body for key, as a broker would
// choose it from the request header.
func msgNewRequestBody(key APIKey) (Request, bool) {
	switch key {
	case KeyProduce:
		return new(ProduceRequest), true
	case KeyMetadata:
		return new(MetadataRequest), true
	case KeySaslHandshake:
		return new(SaslHandshakeRequest), true
	case KeyApiVersions:
		return new(ApiVersionsRequest), true
	case KeyCreateTopics:
		return new(CreateTopicsRequest), true
	case KeyInitProducerId:
		return new(InitProducerIdRequest), true
	case KeySaslAuthenticate:
		return new(SaslAuthenticateRequest), true
	case KeyFindCoordinator:
		return new(FindCoordinatorRequest), true
	case KeyAddPartitionsToTxn:
		return new(AddPartitionsToTxnRequest), true
	case KeyEndTxn:
		return new(EndTxnRequest), true
	case KeyListOffsets:
		return new(ListOffsetsRequest), true
	case KeyFetch:
		return new(FetchRequest), true
	}
	return nil, false
}
