package protocol

import "github.com/twmb/franz-go/pkg/kmsg"

// Conversions of the read-side messages (ListOffsets, Fetch) to and from
// kmsg's, for the oracle test in kmsg_oracle_test.go.

// readMessageToKmsg converts a read-side message to kmsg's, or returns nil
// for another message. The caller sets the version.
func readMessageToKmsg(m Message) msgKmsg {
	switch m := m.(type) {
	case *ListOffsetsRequest:
		k := kmsg.NewPtrListOffsetsRequest()
		k.ReplicaID, k.IsolationLevel, k.TimeoutMillis = m.ReplicaID, m.IsolationLevel, m.TimeoutMs
		k.Topics = msgMap(m.Topics, func(t *ListOffsetsRequestTopic) kmsg.ListOffsetsRequestTopic {
			return kmsg.ListOffsetsRequestTopic{Topic: t.Name,
				Partitions: msgMap(t.Partitions, func(p *ListOffsetsRequestPartition) kmsg.ListOffsetsRequestTopicPartition {
					kp := kmsg.NewListOffsetsRequestTopicPartition()
					kp.Partition, kp.CurrentLeaderEpoch, kp.Timestamp = p.PartitionIndex, p.CurrentLeaderEpoch, p.Timestamp
					return kp
				})}
		})
		return k
	case *ListOffsetsResponse:
		k := kmsg.NewPtrListOffsetsResponse()
		k.ThrottleMillis = m.ThrottleTimeMs
		k.Topics = msgMap(m.Topics, func(t *ListOffsetsResponseTopic) kmsg.ListOffsetsResponseTopic {
			return kmsg.ListOffsetsResponseTopic{Topic: t.Name,
				Partitions: msgMap(t.Partitions, func(p *ListOffsetsResponsePartition) kmsg.ListOffsetsResponseTopicPartition {
					return kmsg.ListOffsetsResponseTopicPartition{Partition: p.PartitionIndex, ErrorCode: p.ErrorCode,
						Timestamp: p.Timestamp, Offset: p.Offset, LeaderEpoch: p.LeaderEpoch}
				})}
		})
		return k
	case *FetchRequest:
		return fetchRequestToKmsg(m)
	case *FetchResponse:
		return fetchResponseToKmsg(m)
	}
	return nil
}

// readMessageFromKmsg converts a kmsg read-side message to ours, or returns
// nil for another message.
func readMessageFromKmsg(k msgKmsg) Message {
	switch k := k.(type) {
	case *kmsg.ListOffsetsRequest:
		return &ListOffsetsRequest{ReplicaID: k.ReplicaID, IsolationLevel: k.IsolationLevel, TimeoutMs: k.TimeoutMillis,
			Topics: msgMap(k.Topics, func(t *kmsg.ListOffsetsRequestTopic) ListOffsetsRequestTopic {
				return ListOffsetsRequestTopic{Name: t.Topic,
					Partitions: msgMap(t.Partitions, func(p *kmsg.ListOffsetsRequestTopicPartition) ListOffsetsRequestPartition {
						return ListOffsetsRequestPartition{PartitionIndex: p.Partition, CurrentLeaderEpoch: p.CurrentLeaderEpoch, Timestamp: p.Timestamp}
					})}
			})}
	case *kmsg.ListOffsetsResponse:
		return &ListOffsetsResponse{ThrottleTimeMs: k.ThrottleMillis,
			Topics: msgMap(k.Topics, func(t *kmsg.ListOffsetsResponseTopic) ListOffsetsResponseTopic {
				return ListOffsetsResponseTopic{Name: t.Topic,
					Partitions: msgMap(t.Partitions, func(p *kmsg.ListOffsetsResponseTopicPartition) ListOffsetsResponsePartition {
						return ListOffsetsResponsePartition{PartitionIndex: p.Partition, ErrorCode: p.ErrorCode,
							Timestamp: p.Timestamp, Offset: p.Offset, LeaderEpoch: p.LeaderEpoch}
					})}
			})}
	case *kmsg.FetchRequest:
		return fetchRequestFromKmsg(k)
	case *kmsg.FetchResponse:
		return fetchResponseFromKmsg(k)
	}
	return nil
}

func fetchRequestToKmsg(m *FetchRequest) *kmsg.FetchRequest {
	k := kmsg.NewPtrFetchRequest()
	k.ReplicaID, k.MaxWaitMillis, k.MinBytes, k.MaxBytes = m.ReplicaID, m.MaxWaitMs, m.MinBytes, m.MaxBytes
	k.IsolationLevel, k.SessionID, k.SessionEpoch, k.Rack = m.IsolationLevel, m.SessionID, m.SessionEpoch, m.RackID
	k.Topics = msgMap(m.Topics, func(t *FetchRequestTopic) kmsg.FetchRequestTopic {
		return kmsg.FetchRequestTopic{Topic: t.Name, TopicID: t.TopicID,
			Partitions: msgMap(t.Partitions, func(p *FetchRequestPartition) kmsg.FetchRequestTopicPartition {
				kp := kmsg.NewFetchRequestTopicPartition()
				kp.Partition, kp.CurrentLeaderEpoch, kp.FetchOffset = p.Partition, p.CurrentLeaderEpoch, p.FetchOffset
				kp.LastFetchedEpoch, kp.LogStartOffset, kp.PartitionMaxBytes = p.LastFetchedEpoch, p.LogStartOffset, p.PartitionMaxBytes
				return kp
			})}
	})
	k.ForgottenTopics = msgMap(m.ForgottenTopics, func(t *FetchRequestForgottenTopic) kmsg.FetchRequestForgottenTopic {
		return kmsg.FetchRequestForgottenTopic{Topic: t.Name, TopicID: t.TopicID, Partitions: t.Partitions}
	})
	return k
}

func fetchRequestFromKmsg(k *kmsg.FetchRequest) *FetchRequest {
	return &FetchRequest{
		ReplicaID: k.ReplicaID, MaxWaitMs: k.MaxWaitMillis, MinBytes: k.MinBytes, MaxBytes: k.MaxBytes,
		IsolationLevel: k.IsolationLevel, SessionID: k.SessionID, SessionEpoch: k.SessionEpoch, RackID: k.Rack,
		Topics: msgMap(k.Topics, func(t *kmsg.FetchRequestTopic) FetchRequestTopic {
			return FetchRequestTopic{Name: t.Topic, TopicID: t.TopicID,
				Partitions: msgMap(t.Partitions, func(p *kmsg.FetchRequestTopicPartition) FetchRequestPartition {
					return FetchRequestPartition{Partition: p.Partition, CurrentLeaderEpoch: p.CurrentLeaderEpoch,
						FetchOffset: p.FetchOffset, LastFetchedEpoch: p.LastFetchedEpoch, LogStartOffset: p.LogStartOffset,
						PartitionMaxBytes: p.PartitionMaxBytes}
				})}
		}),
		ForgottenTopics: msgMap(k.ForgottenTopics, func(t *kmsg.FetchRequestForgottenTopic) FetchRequestForgottenTopic {
			return FetchRequestForgottenTopic{Name: t.Topic, TopicID: t.TopicID, Partitions: t.Partitions}
		}),
	}
}

func fetchResponseToKmsg(m *FetchResponse) *kmsg.FetchResponse {
	k := kmsg.NewPtrFetchResponse()
	k.ThrottleMillis, k.ErrorCode, k.SessionID = m.ThrottleTimeMs, m.ErrorCode, m.SessionID
	k.Topics = msgMap(m.Topics, func(t *FetchResponseTopic) kmsg.FetchResponseTopic {
		return kmsg.FetchResponseTopic{Topic: t.Name, TopicID: t.TopicID,
			Partitions: msgMap(t.Partitions, func(p *FetchResponsePartition) kmsg.FetchResponseTopicPartition {
				kp := kmsg.NewFetchResponseTopicPartition()
				kp.Partition, kp.ErrorCode, kp.HighWatermark = p.PartitionIndex, p.ErrorCode, p.HighWatermark
				kp.LastStableOffset, kp.LogStartOffset, kp.PreferredReadReplica = p.LastStableOffset, p.LogStartOffset, p.PreferredReadReplica
				kp.CurrentLeader.LeaderID, kp.CurrentLeader.LeaderEpoch = p.CurrentLeader.LeaderID, p.CurrentLeader.LeaderEpoch
				kp.AbortedTransactions = msgMap(p.AbortedTransactions, func(a *FetchResponseAbortedTransaction) kmsg.FetchResponseTopicPartitionAbortedTransaction {
					return kmsg.FetchResponseTopicPartitionAbortedTransaction{ProducerID: a.ProducerID, FirstOffset: a.FirstOffset}
				})
				kp.RecordBatches = p.Records
				return kp
			})}
	})
	k.Brokers = msgMap(m.NodeEndpoints, func(e *ProduceResponseNodeEndpoint) kmsg.FetchResponseBroker {
		return kmsg.FetchResponseBroker{NodeID: e.NodeID, Host: e.Host, Port: e.Port, Rack: e.Rack}
	})
	return k
}

func fetchResponseFromKmsg(k *kmsg.FetchResponse) *FetchResponse {
	return &FetchResponse{
		ThrottleTimeMs: k.ThrottleMillis, ErrorCode: k.ErrorCode, SessionID: k.SessionID,
		Topics: msgMap(k.Topics, func(t *kmsg.FetchResponseTopic) FetchResponseTopic {
			return FetchResponseTopic{Name: t.Topic, TopicID: t.TopicID,
				Partitions: msgMap(t.Partitions, func(p *kmsg.FetchResponseTopicPartition) FetchResponsePartition {
					return FetchResponsePartition{PartitionIndex: p.Partition, ErrorCode: p.ErrorCode,
						HighWatermark: p.HighWatermark, LastStableOffset: p.LastStableOffset, LogStartOffset: p.LogStartOffset,
						CurrentLeader: LeaderIDAndEpoch{LeaderID: p.CurrentLeader.LeaderID, LeaderEpoch: p.CurrentLeader.LeaderEpoch},
						AbortedTransactions: msgMap(p.AbortedTransactions, func(a *kmsg.FetchResponseTopicPartitionAbortedTransaction) FetchResponseAbortedTransaction {
							return FetchResponseAbortedTransaction{ProducerID: a.ProducerID, FirstOffset: a.FirstOffset}
						}),
						PreferredReadReplica: p.PreferredReadReplica, Records: p.RecordBatches}
				})}
		}),
		NodeEndpoints: msgMap(k.Brokers, func(b *kmsg.FetchResponseBroker) ProduceResponseNodeEndpoint {
			return ProduceResponseNodeEndpoint{NodeID: b.NodeID, Host: b.Host, Port: b.Port, Rack: b.Rack}
		}),
	}
}
