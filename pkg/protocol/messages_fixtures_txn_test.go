package protocol

// Fixtures of the transaction messages (FindCoordinator, AddPartitionsToTxn,
// EndTxn); see msgCase in messages_fixtures_test.go.

func findCoordinatorRequestCase() msgCase {
	return msgCase{
		name: "FindCoordinatorRequest", key: KeyFindCoordinator,
		full:  func() Message { return NewFindCoordinatorRequest(CoordinatorKeyTypeTransaction, "txn-1") },
		empty: func() Message { return new(FindCoordinatorRequest) },
		at: func(v int16) Message {
			m := NewFindCoordinatorRequest(CoordinatorKeyTypeTransaction, "txn-1")
			if v < 1 {
				m.KeyType = 0
			}
			if v >= 4 {
				m.CoordinatorKey = ""
			} else {
				m.CoordinatorKeys = nil
			}
			return m
		},
	}
}

func findCoordinatorResponseFull() *FindCoordinatorResponse {
	return &FindCoordinatorResponse{
		ThrottleTimeMs: 7, ErrorCode: 15, ErrorMessage: msgPtr("loading"),
		NodeID: 3, Host: "broker-3", Port: 9093,
		Coordinators: []FindCoordinatorResponseCoordinator{
			{Key: "txn-1", NodeID: 2, Host: "broker-2", Port: 9092, ErrorCode: 0, ErrorMessage: nil},
			{Key: "txn-2", NodeID: -1, Host: "", Port: -1, ErrorCode: 16, ErrorMessage: msgPtr("not coordinator")},
		},
	}
}

func findCoordinatorResponseCase() msgCase {
	return msgCase{
		name: "FindCoordinatorResponse", key: KeyFindCoordinator,
		full:  func() Message { return findCoordinatorResponseFull() },
		empty: func() Message { return new(FindCoordinatorResponse) },
		at: func(v int16) Message {
			m := findCoordinatorResponseFull()
			if v < 1 {
				m.ThrottleTimeMs, m.ErrorMessage = 0, nil
			}
			if v >= 4 {
				m.ErrorCode, m.ErrorMessage, m.NodeID, m.Host, m.Port = 0, nil, 0, "", 0
			} else {
				m.Coordinators = nil
			}
			return m
		},
	}
}

func addPartitionsToTxnRequestCase() msgCase {
	full := func() *AddPartitionsToTxnRequest {
		return &AddPartitionsToTxnRequest{
			TransactionalID: "txn-1", ProducerID: 4242, ProducerEpoch: 3,
			Topics: []AddPartitionsToTxnTopic{
				{Name: "t1", Partitions: []int32{0, 2, 5}},
				{Name: "t2", Partitions: []int32{1}},
			},
		}
	}
	return msgCase{
		name: "AddPartitionsToTxnRequest", key: KeyAddPartitionsToTxn,
		full:  func() Message { return full() },
		empty: func() Message { return new(AddPartitionsToTxnRequest) },
		at:    func(int16) Message { return full() },
	}
}

func addPartitionsToTxnResponseCase() msgCase {
	full := func() *AddPartitionsToTxnResponse {
		return &AddPartitionsToTxnResponse{
			ThrottleTimeMs: 11,
			Results: []AddPartitionsToTxnTopicResult{
				{Name: "t1", Results: []AddPartitionsToTxnPartitionResult{{PartitionIndex: 0}, {PartitionIndex: 2, PartitionErrorCode: 48}}},
				{Name: "t2", Results: []AddPartitionsToTxnPartitionResult{{PartitionIndex: 1, PartitionErrorCode: 55}}},
			},
		}
	}
	return msgCase{
		name: "AddPartitionsToTxnResponse", key: KeyAddPartitionsToTxn,
		full:  func() Message { return full() },
		empty: func() Message { return new(AddPartitionsToTxnResponse) },
		at:    func(int16) Message { return full() },
	}
}

func endTxnRequestCase() msgCase {
	full := func() *EndTxnRequest {
		return &EndTxnRequest{TransactionalID: "txn-1", ProducerID: 4242, ProducerEpoch: 3, Committed: true}
	}
	return msgCase{
		name: "EndTxnRequest", key: KeyEndTxn,
		full:  func() Message { return full() },
		empty: func() Message { return new(EndTxnRequest) },
		at:    func(int16) Message { return full() },
	}
}

func endTxnResponseCase() msgCase {
	full := func() *EndTxnResponse {
		return &EndTxnResponse{ThrottleTimeMs: 13, ErrorCode: 51, ProducerID: 4242, ProducerEpoch: 4}
	}
	return msgCase{
		name: "EndTxnResponse", key: KeyEndTxn,
		full:  func() Message { return full() },
		empty: func() Message { return new(EndTxnResponse) },
		at: func(v int16) Message {
			m := full()
			if v < 5 {
				m.ProducerID, m.ProducerEpoch = -1, -1
			}
			return m
		},
	}
}
