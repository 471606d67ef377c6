package protocol

import "github.com/twmb/franz-go/pkg/kmsg"

// Conversions of the transaction messages to and from kmsg's, for the
// oracle test in kmsg_oracle_test.go.

// txnMessageToKmsg converts a transaction message to kmsg's, or returns nil
// for another message. The caller sets the version.
func txnMessageToKmsg(m Message) msgKmsg {
	switch m := m.(type) {
	case *FindCoordinatorRequest:
		return &kmsg.FindCoordinatorRequest{CoordinatorKey: m.CoordinatorKey, CoordinatorType: m.KeyType, CoordinatorKeys: m.CoordinatorKeys}
	case *FindCoordinatorResponse:
		return &kmsg.FindCoordinatorResponse{ThrottleMillis: m.ThrottleTimeMs, ErrorCode: m.ErrorCode, ErrorMessage: m.ErrorMessage,
			NodeID: m.NodeID, Host: m.Host, Port: m.Port,
			Coordinators: msgMap(m.Coordinators, func(c *FindCoordinatorResponseCoordinator) kmsg.FindCoordinatorResponseCoordinator {
				return kmsg.FindCoordinatorResponseCoordinator{Key: c.Key, NodeID: c.NodeID, Host: c.Host, Port: c.Port,
					ErrorCode: c.ErrorCode, ErrorMessage: c.ErrorMessage}
			})}
	case *AddPartitionsToTxnRequest:
		return &kmsg.AddPartitionsToTxnRequest{TransactionalID: m.TransactionalID, ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch,
			Topics: msgMap(m.Topics, func(t *AddPartitionsToTxnTopic) kmsg.AddPartitionsToTxnRequestTopic {
				return kmsg.AddPartitionsToTxnRequestTopic{Topic: t.Name, Partitions: t.Partitions}
			})}
	case *AddPartitionsToTxnResponse:
		return &kmsg.AddPartitionsToTxnResponse{ThrottleMillis: m.ThrottleTimeMs,
			Topics: msgMap(m.Results, func(t *AddPartitionsToTxnTopicResult) kmsg.AddPartitionsToTxnResponseTopic {
				return kmsg.AddPartitionsToTxnResponseTopic{Topic: t.Name,
					Partitions: msgMap(t.Results, func(p *AddPartitionsToTxnPartitionResult) kmsg.AddPartitionsToTxnResponseTopicPartition {
						return kmsg.AddPartitionsToTxnResponseTopicPartition{Partition: p.PartitionIndex, ErrorCode: p.PartitionErrorCode}
					})}
			})}
	case *EndTxnRequest:
		return &kmsg.EndTxnRequest{TransactionalID: m.TransactionalID, ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch, Commit: m.Committed}
	case *EndTxnResponse:
		return &kmsg.EndTxnResponse{ThrottleMillis: m.ThrottleTimeMs, ErrorCode: m.ErrorCode, ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch}
	}
	return nil
}

// txnMessageFromKmsg converts a kmsg transaction message to ours, or
// returns nil for another message.
func txnMessageFromKmsg(k msgKmsg) Message {
	switch k := k.(type) {
	case *kmsg.FindCoordinatorRequest:
		return &FindCoordinatorRequest{CoordinatorKey: k.CoordinatorKey, KeyType: k.CoordinatorType, CoordinatorKeys: k.CoordinatorKeys}
	case *kmsg.FindCoordinatorResponse:
		return &FindCoordinatorResponse{ThrottleTimeMs: k.ThrottleMillis, ErrorCode: k.ErrorCode, ErrorMessage: k.ErrorMessage,
			NodeID: k.NodeID, Host: k.Host, Port: k.Port,
			Coordinators: msgMap(k.Coordinators, func(c *kmsg.FindCoordinatorResponseCoordinator) FindCoordinatorResponseCoordinator {
				return FindCoordinatorResponseCoordinator{Key: c.Key, NodeID: c.NodeID, Host: c.Host, Port: c.Port,
					ErrorCode: c.ErrorCode, ErrorMessage: c.ErrorMessage}
			})}
	case *kmsg.AddPartitionsToTxnRequest:
		return &AddPartitionsToTxnRequest{TransactionalID: k.TransactionalID, ProducerID: k.ProducerID, ProducerEpoch: k.ProducerEpoch,
			Topics: msgMap(k.Topics, func(t *kmsg.AddPartitionsToTxnRequestTopic) AddPartitionsToTxnTopic {
				return AddPartitionsToTxnTopic{Name: t.Topic, Partitions: t.Partitions}
			})}
	case *kmsg.AddPartitionsToTxnResponse:
		return &AddPartitionsToTxnResponse{ThrottleTimeMs: k.ThrottleMillis,
			Results: msgMap(k.Topics, func(t *kmsg.AddPartitionsToTxnResponseTopic) AddPartitionsToTxnTopicResult {
				return AddPartitionsToTxnTopicResult{Name: t.Topic,
					Results: msgMap(t.Partitions, func(p *kmsg.AddPartitionsToTxnResponseTopicPartition) AddPartitionsToTxnPartitionResult {
						return AddPartitionsToTxnPartitionResult{PartitionIndex: p.Partition, PartitionErrorCode: p.ErrorCode}
					})}
			})}
	case *kmsg.EndTxnRequest:
		return &EndTxnRequest{TransactionalID: k.TransactionalID, ProducerID: k.ProducerID, ProducerEpoch: k.ProducerEpoch, Committed: k.Commit}
	case *kmsg.EndTxnResponse:
		return &EndTxnResponse{ThrottleTimeMs: k.ThrottleMillis, ErrorCode: k.ErrorCode, ProducerID: k.ProducerID, ProducerEpoch: k.ProducerEpoch}
	}
	return nil
}
