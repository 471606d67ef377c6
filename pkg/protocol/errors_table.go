package protocol

// This table mirrors Kafka's error codes (org.apache.kafka.common.protocol.Errors):
// Retriable follows Kafka's RetriableException hierarchy and InvalidMetadata its
// InvalidMetadataException hierarchy. errors_test.go checks it against an
// independent table.

// The Kafka error codes, one value per code. Classify with errors.Is.
var (
	ErrUnknownServerError                     = &Error{Code: -1, Name: "UNKNOWN_SERVER_ERROR", Retriable: false, InvalidMetadata: false, Description: "the broker had an unexpected error"}
	ErrOffsetOutOfRange                       = &Error{Code: 1, Name: "OFFSET_OUT_OF_RANGE", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrCorruptMessage                         = &Error{Code: 2, Name: "CORRUPT_MESSAGE", Retriable: true, InvalidMetadata: false, Description: "the broker found the record batch corrupt (CRC, size or a null key on a compacted topic)"}
	ErrUnknownTopicOrPartition                = &Error{Code: 3, Name: "UNKNOWN_TOPIC_OR_PARTITION", Retriable: true, InvalidMetadata: true, Description: "the broker does not host this topic-partition"}
	ErrInvalidFetchSize                       = &Error{Code: 4, Name: "INVALID_FETCH_SIZE", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrLeaderNotAvailable                     = &Error{Code: 5, Name: "LEADER_NOT_AVAILABLE", Retriable: true, InvalidMetadata: true, Description: "the partition has no leader right now"}
	ErrNotLeaderOrFollower                    = &Error{Code: 6, Name: "NOT_LEADER_OR_FOLLOWER", Retriable: true, InvalidMetadata: true, Description: "the broker is not the leader of this partition"}
	ErrRequestTimedOut                        = &Error{Code: 7, Name: "REQUEST_TIMED_OUT", Retriable: true, InvalidMetadata: false, Description: "the broker timed the request out"}
	ErrBrokerNotAvailable                     = &Error{Code: 8, Name: "BROKER_NOT_AVAILABLE", Retriable: true, InvalidMetadata: false, Description: ""}
	ErrReplicaNotAvailable                    = &Error{Code: 9, Name: "REPLICA_NOT_AVAILABLE", Retriable: true, InvalidMetadata: true, Description: ""}
	ErrMessageTooLarge                        = &Error{Code: 10, Name: "MESSAGE_TOO_LARGE", Retriable: false, InvalidMetadata: false, Description: "the record batch is larger than the broker accepts (message.max.bytes)"}
	ErrStaleControllerEpoch                   = &Error{Code: 11, Name: "STALE_CONTROLLER_EPOCH", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrOffsetMetadataTooLarge                 = &Error{Code: 12, Name: "OFFSET_METADATA_TOO_LARGE", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrNetworkException                       = &Error{Code: 13, Name: "NETWORK_EXCEPTION", Retriable: true, InvalidMetadata: true, Description: "the connection to the broker broke"}
	ErrCoordinatorLoadInProgress              = &Error{Code: 14, Name: "COORDINATOR_LOAD_IN_PROGRESS", Retriable: true, InvalidMetadata: false, Description: "the coordinator is loading"}
	ErrCoordinatorNotAvailable                = &Error{Code: 15, Name: "COORDINATOR_NOT_AVAILABLE", Retriable: true, InvalidMetadata: false, Description: "the coordinator is not available"}
	ErrNotCoordinator                         = &Error{Code: 16, Name: "NOT_COORDINATOR", Retriable: true, InvalidMetadata: false, Description: "the broker is not the coordinator"}
	ErrInvalidTopicException                  = &Error{Code: 17, Name: "INVALID_TOPIC_EXCEPTION", Retriable: false, InvalidMetadata: false, Description: "the topic name is invalid"}
	ErrRecordListTooLarge                     = &Error{Code: 18, Name: "RECORD_LIST_TOO_LARGE", Retriable: false, InvalidMetadata: false, Description: "the request is larger than the broker accepts"}
	ErrNotEnoughReplicas                      = &Error{Code: 19, Name: "NOT_ENOUGH_REPLICAS", Retriable: true, InvalidMetadata: false, Description: "fewer in-sync replicas than min.insync.replicas"}
	ErrNotEnoughReplicasAfterAppend           = &Error{Code: 20, Name: "NOT_ENOUGH_REPLICAS_AFTER_APPEND", Retriable: true, InvalidMetadata: false, Description: "written, but fewer in-sync replicas than min.insync.replicas acknowledged it"}
	ErrInvalidRequiredAcks                    = &Error{Code: 21, Name: "INVALID_REQUIRED_ACKS", Retriable: false, InvalidMetadata: false, Description: "the acks value is invalid"}
	ErrIllegalGeneration                      = &Error{Code: 22, Name: "ILLEGAL_GENERATION", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInconsistentGroupProtocol              = &Error{Code: 23, Name: "INCONSISTENT_GROUP_PROTOCOL", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInvalidGroupId                         = &Error{Code: 24, Name: "INVALID_GROUP_ID", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrUnknownMemberId                        = &Error{Code: 25, Name: "UNKNOWN_MEMBER_ID", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInvalidSessionTimeout                  = &Error{Code: 26, Name: "INVALID_SESSION_TIMEOUT", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrRebalanceInProgress                    = &Error{Code: 27, Name: "REBALANCE_IN_PROGRESS", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInvalidCommitOffsetSize                = &Error{Code: 28, Name: "INVALID_COMMIT_OFFSET_SIZE", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrTopicAuthorizationFailed               = &Error{Code: 29, Name: "TOPIC_AUTHORIZATION_FAILED", Retriable: false, InvalidMetadata: false, Description: "not authorized to write to the topic"}
	ErrGroupAuthorizationFailed               = &Error{Code: 30, Name: "GROUP_AUTHORIZATION_FAILED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrClusterAuthorizationFailed             = &Error{Code: 31, Name: "CLUSTER_AUTHORIZATION_FAILED", Retriable: false, InvalidMetadata: false, Description: "not authorized for this cluster operation"}
	ErrInvalidTimestamp                       = &Error{Code: 32, Name: "INVALID_TIMESTAMP", Retriable: false, InvalidMetadata: false, Description: "the record timestamp is outside the broker's accepted range"}
	ErrUnsupportedSaslMechanism               = &Error{Code: 33, Name: "UNSUPPORTED_SASL_MECHANISM", Retriable: false, InvalidMetadata: false, Description: "the broker does not enable this SASL mechanism"}
	ErrIllegalSaslState                       = &Error{Code: 34, Name: "ILLEGAL_SASL_STATE", Retriable: false, InvalidMetadata: false, Description: "the SASL request came at the wrong time"}
	ErrUnsupportedVersion                     = &Error{Code: 35, Name: "UNSUPPORTED_VERSION", Retriable: false, InvalidMetadata: false, Description: "the broker does not support this API version"}
	ErrTopicAlreadyExists                     = &Error{Code: 36, Name: "TOPIC_ALREADY_EXISTS", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInvalidPartitions                      = &Error{Code: 37, Name: "INVALID_PARTITIONS", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInvalidReplicationFactor               = &Error{Code: 38, Name: "INVALID_REPLICATION_FACTOR", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInvalidReplicaAssignment               = &Error{Code: 39, Name: "INVALID_REPLICA_ASSIGNMENT", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInvalidConfig                          = &Error{Code: 40, Name: "INVALID_CONFIG", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrNotController                          = &Error{Code: 41, Name: "NOT_CONTROLLER", Retriable: true, InvalidMetadata: false, Description: ""}
	ErrInvalidRequest                         = &Error{Code: 42, Name: "INVALID_REQUEST", Retriable: false, InvalidMetadata: false, Description: "the broker could not parse the request"}
	ErrUnsupportedForMessageFormat            = &Error{Code: 43, Name: "UNSUPPORTED_FOR_MESSAGE_FORMAT", Retriable: false, InvalidMetadata: false, Description: "the topic's message format does not support this request"}
	ErrPolicyViolation                        = &Error{Code: 44, Name: "POLICY_VIOLATION", Retriable: false, InvalidMetadata: false, Description: "the request violates a broker policy"}
	ErrOutOfOrderSequenceNumber               = &Error{Code: 45, Name: "OUT_OF_ORDER_SEQUENCE_NUMBER", Retriable: false, InvalidMetadata: false, Description: "the broker received an out of order sequence number"}
	ErrDuplicateSequenceNumber                = &Error{Code: 46, Name: "DUPLICATE_SEQUENCE_NUMBER", Retriable: false, InvalidMetadata: false, Description: "the broker already has a batch with this sequence number"}
	ErrInvalidProducerEpoch                   = &Error{Code: 47, Name: "INVALID_PRODUCER_EPOCH", Retriable: false, InvalidMetadata: false, Description: "the producer epoch is older than the broker's"}
	ErrInvalidTxnState                        = &Error{Code: 48, Name: "INVALID_TXN_STATE", Retriable: false, InvalidMetadata: false, Description: "the transaction state does not allow this request"}
	ErrInvalidProducerIdMapping               = &Error{Code: 49, Name: "INVALID_PRODUCER_ID_MAPPING", Retriable: false, InvalidMetadata: false, Description: "the producer id is not mapped to the transactional id"}
	ErrInvalidTransactionTimeout              = &Error{Code: 50, Name: "INVALID_TRANSACTION_TIMEOUT", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrConcurrentTransactions                 = &Error{Code: 51, Name: "CONCURRENT_TRANSACTIONS", Retriable: false, InvalidMetadata: false, Description: "the transaction coordinator is busy with a previous transaction"}
	ErrTransactionCoordinatorFenced           = &Error{Code: 52, Name: "TRANSACTION_COORDINATOR_FENCED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrTransactionalIdAuthorizationFailed     = &Error{Code: 53, Name: "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", Retriable: false, InvalidMetadata: false, Description: "not authorized for the transactional id"}
	ErrSecurityDisabled                       = &Error{Code: 54, Name: "SECURITY_DISABLED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrOperationNotAttempted                  = &Error{Code: 55, Name: "OPERATION_NOT_ATTEMPTED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrKafkaStorageError                      = &Error{Code: 56, Name: "KAFKA_STORAGE_ERROR", Retriable: true, InvalidMetadata: true, Description: "the broker had a disk error on this partition"}
	ErrLogDirNotFound                         = &Error{Code: 57, Name: "LOG_DIR_NOT_FOUND", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrSaslAuthenticationFailed               = &Error{Code: 58, Name: "SASL_AUTHENTICATION_FAILED", Retriable: false, InvalidMetadata: false, Description: "SASL authentication failed"}
	ErrUnknownProducerId                      = &Error{Code: 59, Name: "UNKNOWN_PRODUCER_ID", Retriable: false, InvalidMetadata: false, Description: "the broker has no state for this producer id"}
	ErrReassignmentInProgress                 = &Error{Code: 60, Name: "REASSIGNMENT_IN_PROGRESS", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrDelegationTokenAuthDisabled            = &Error{Code: 61, Name: "DELEGATION_TOKEN_AUTH_DISABLED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrDelegationTokenNotFound                = &Error{Code: 62, Name: "DELEGATION_TOKEN_NOT_FOUND", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrDelegationTokenOwnerMismatch           = &Error{Code: 63, Name: "DELEGATION_TOKEN_OWNER_MISMATCH", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrDelegationTokenRequestNotAllowed       = &Error{Code: 64, Name: "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrDelegationTokenAuthorizationFailed     = &Error{Code: 65, Name: "DELEGATION_TOKEN_AUTHORIZATION_FAILED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrDelegationTokenExpired                 = &Error{Code: 66, Name: "DELEGATION_TOKEN_EXPIRED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInvalidPrincipalType                   = &Error{Code: 67, Name: "INVALID_PRINCIPAL_TYPE", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrNonEmptyGroup                          = &Error{Code: 68, Name: "NON_EMPTY_GROUP", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrGroupIdNotFound                        = &Error{Code: 69, Name: "GROUP_ID_NOT_FOUND", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrFetchSessionIdNotFound                 = &Error{Code: 70, Name: "FETCH_SESSION_ID_NOT_FOUND", Retriable: true, InvalidMetadata: false, Description: ""}
	ErrInvalidFetchSessionEpoch               = &Error{Code: 71, Name: "INVALID_FETCH_SESSION_EPOCH", Retriable: true, InvalidMetadata: false, Description: ""}
	ErrListenerNotFound                       = &Error{Code: 72, Name: "LISTENER_NOT_FOUND", Retriable: true, InvalidMetadata: true, Description: ""}
	ErrTopicDeletionDisabled                  = &Error{Code: 73, Name: "TOPIC_DELETION_DISABLED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrFencedLeaderEpoch                      = &Error{Code: 74, Name: "FENCED_LEADER_EPOCH", Retriable: true, InvalidMetadata: true, Description: ""}
	ErrUnknownLeaderEpoch                     = &Error{Code: 75, Name: "UNKNOWN_LEADER_EPOCH", Retriable: true, InvalidMetadata: false, Description: ""}
	ErrUnsupportedCompressionType             = &Error{Code: 76, Name: "UNSUPPORTED_COMPRESSION_TYPE", Retriable: false, InvalidMetadata: false, Description: "the broker does not support this compression codec"}
	ErrStaleBrokerEpoch                       = &Error{Code: 77, Name: "STALE_BROKER_EPOCH", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrOffsetNotAvailable                     = &Error{Code: 78, Name: "OFFSET_NOT_AVAILABLE", Retriable: true, InvalidMetadata: false, Description: ""}
	ErrMemberIdRequired                       = &Error{Code: 79, Name: "MEMBER_ID_REQUIRED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrPreferredLeaderNotAvailable            = &Error{Code: 80, Name: "PREFERRED_LEADER_NOT_AVAILABLE", Retriable: true, InvalidMetadata: true, Description: ""}
	ErrGroupMaxSizeReached                    = &Error{Code: 81, Name: "GROUP_MAX_SIZE_REACHED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrFencedInstanceId                       = &Error{Code: 82, Name: "FENCED_INSTANCE_ID", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrEligibleLeadersNotAvailable            = &Error{Code: 83, Name: "ELIGIBLE_LEADERS_NOT_AVAILABLE", Retriable: true, InvalidMetadata: true, Description: ""}
	ErrElectionNotNeeded                      = &Error{Code: 84, Name: "ELECTION_NOT_NEEDED", Retriable: true, InvalidMetadata: false, Description: ""}
	ErrNoReassignmentInProgress               = &Error{Code: 85, Name: "NO_REASSIGNMENT_IN_PROGRESS", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrGroupSubscribedToTopic                 = &Error{Code: 86, Name: "GROUP_SUBSCRIBED_TO_TOPIC", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInvalidRecord                          = &Error{Code: 87, Name: "INVALID_RECORD", Retriable: false, InvalidMetadata: false, Description: "the broker rejected a record (for example a compacted topic without a key)"}
	ErrUnstableOffsetCommit                   = &Error{Code: 88, Name: "UNSTABLE_OFFSET_COMMIT", Retriable: true, InvalidMetadata: false, Description: ""}
	ErrThrottlingQuotaExceeded                = &Error{Code: 89, Name: "THROTTLING_QUOTA_EXCEEDED", Retriable: true, InvalidMetadata: false, Description: "the request exceeded a broker quota"}
	ErrProducerFenced                         = &Error{Code: 90, Name: "PRODUCER_FENCED", Retriable: false, InvalidMetadata: false, Description: "a newer producer with the same transactional id fenced this one"}
	ErrResourceNotFound                       = &Error{Code: 91, Name: "RESOURCE_NOT_FOUND", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrDuplicateResource                      = &Error{Code: 92, Name: "DUPLICATE_RESOURCE", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrUnacceptableCredential                 = &Error{Code: 93, Name: "UNACCEPTABLE_CREDENTIAL", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInconsistentVoterSet                   = &Error{Code: 94, Name: "INCONSISTENT_VOTER_SET", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInvalidUpdateVersion                   = &Error{Code: 95, Name: "INVALID_UPDATE_VERSION", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrFeatureUpdateFailed                    = &Error{Code: 96, Name: "FEATURE_UPDATE_FAILED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrPrincipalDeserializationFailure        = &Error{Code: 97, Name: "PRINCIPAL_DESERIALIZATION_FAILURE", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrSnapshotNotFound                       = &Error{Code: 98, Name: "SNAPSHOT_NOT_FOUND", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrPositionOutOfRange                     = &Error{Code: 99, Name: "POSITION_OUT_OF_RANGE", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrUnknownTopicId                         = &Error{Code: 100, Name: "UNKNOWN_TOPIC_ID", Retriable: true, InvalidMetadata: true, Description: ""}
	ErrDuplicateBrokerRegistration            = &Error{Code: 101, Name: "DUPLICATE_BROKER_REGISTRATION", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrBrokerIdNotRegistered                  = &Error{Code: 102, Name: "BROKER_ID_NOT_REGISTERED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInconsistentTopicId                    = &Error{Code: 103, Name: "INCONSISTENT_TOPIC_ID", Retriable: true, InvalidMetadata: true, Description: ""}
	ErrInconsistentClusterId                  = &Error{Code: 104, Name: "INCONSISTENT_CLUSTER_ID", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrTransactionalIdNotFound                = &Error{Code: 105, Name: "TRANSACTIONAL_ID_NOT_FOUND", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrFetchSessionTopicIdError               = &Error{Code: 106, Name: "FETCH_SESSION_TOPIC_ID_ERROR", Retriable: true, InvalidMetadata: false, Description: ""}
	ErrIneligibleReplica                      = &Error{Code: 107, Name: "INELIGIBLE_REPLICA", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrNewLeaderElected                       = &Error{Code: 108, Name: "NEW_LEADER_ELECTED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrOffsetMovedToTieredStorage             = &Error{Code: 109, Name: "OFFSET_MOVED_TO_TIERED_STORAGE", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrFencedMemberEpoch                      = &Error{Code: 110, Name: "FENCED_MEMBER_EPOCH", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrUnreleasedInstanceId                   = &Error{Code: 111, Name: "UNRELEASED_INSTANCE_ID", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrUnsupportedAssignor                    = &Error{Code: 112, Name: "UNSUPPORTED_ASSIGNOR", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrStaleMemberEpoch                       = &Error{Code: 113, Name: "STALE_MEMBER_EPOCH", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrMismatchedEndpointType                 = &Error{Code: 114, Name: "MISMATCHED_ENDPOINT_TYPE", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrUnsupportedEndpointType                = &Error{Code: 115, Name: "UNSUPPORTED_ENDPOINT_TYPE", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrUnknownControllerId                    = &Error{Code: 116, Name: "UNKNOWN_CONTROLLER_ID", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrUnknownSubscriptionId                  = &Error{Code: 117, Name: "UNKNOWN_SUBSCRIPTION_ID", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrTelemetryTooLarge                      = &Error{Code: 118, Name: "TELEMETRY_TOO_LARGE", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInvalidRegistration                    = &Error{Code: 119, Name: "INVALID_REGISTRATION", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrTransactionAbortable                   = &Error{Code: 120, Name: "TRANSACTION_ABORTABLE", Retriable: false, InvalidMetadata: false, Description: "the transaction must be aborted"}
	ErrInvalidRecordState                     = &Error{Code: 121, Name: "INVALID_RECORD_STATE", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrShareSessionNotFound                   = &Error{Code: 122, Name: "SHARE_SESSION_NOT_FOUND", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInvalidShareSessionEpoch               = &Error{Code: 123, Name: "INVALID_SHARE_SESSION_EPOCH", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrFencedStateEpoch                       = &Error{Code: 124, Name: "FENCED_STATE_EPOCH", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInvalidVoterKey                        = &Error{Code: 125, Name: "INVALID_VOTER_KEY", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrDuplicateVoter                         = &Error{Code: 126, Name: "DUPLICATE_VOTER", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrVoterNotFound                          = &Error{Code: 127, Name: "VOTER_NOT_FOUND", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrInvalidRegularExpression               = &Error{Code: 128, Name: "INVALID_REGULAR_EXPRESSION", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrRebootstrapRequired                    = &Error{Code: 129, Name: "REBOOTSTRAP_REQUIRED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrStreamsInvalidTopology                 = &Error{Code: 130, Name: "STREAMS_INVALID_TOPOLOGY", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrStreamsInvalidTopologyEpoch            = &Error{Code: 131, Name: "STREAMS_INVALID_TOPOLOGY_EPOCH", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrStreamsTopologyFenced                  = &Error{Code: 132, Name: "STREAMS_TOPOLOGY_FENCED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrShareSessionLimitReached               = &Error{Code: 133, Name: "SHARE_SESSION_LIMIT_REACHED", Retriable: true, InvalidMetadata: false, Description: ""}
	ErrGroupDeletionFailed                    = &Error{Code: 134, Name: "GROUP_DELETION_FAILED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrStreamsTopologyDescriptionUpdateFailed = &Error{Code: 135, Name: "STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED", Retriable: false, InvalidMetadata: false, Description: ""}
	ErrControllerIdNotRegistered              = &Error{Code: 136, Name: "CONTROLLER_ID_NOT_REGISTERED", Retriable: false, InvalidMetadata: false, Description: ""}
)

// errorTable lists every known code; see ErrorForCode. It is never modified.
var errorTable = [...]*Error{
	ErrUnknownServerError,
	ErrOffsetOutOfRange,
	ErrCorruptMessage,
	ErrUnknownTopicOrPartition,
	ErrInvalidFetchSize,
	ErrLeaderNotAvailable,
	ErrNotLeaderOrFollower,
	ErrRequestTimedOut,
	ErrBrokerNotAvailable,
	ErrReplicaNotAvailable,
	ErrMessageTooLarge,
	ErrStaleControllerEpoch,
	ErrOffsetMetadataTooLarge,
	ErrNetworkException,
	ErrCoordinatorLoadInProgress,
	ErrCoordinatorNotAvailable,
	ErrNotCoordinator,
	ErrInvalidTopicException,
	ErrRecordListTooLarge,
	ErrNotEnoughReplicas,
	ErrNotEnoughReplicasAfterAppend,
	ErrInvalidRequiredAcks,
	ErrIllegalGeneration,
	ErrInconsistentGroupProtocol,
	ErrInvalidGroupId,
	ErrUnknownMemberId,
	ErrInvalidSessionTimeout,
	ErrRebalanceInProgress,
	ErrInvalidCommitOffsetSize,
	ErrTopicAuthorizationFailed,
	ErrGroupAuthorizationFailed,
	ErrClusterAuthorizationFailed,
	ErrInvalidTimestamp,
	ErrUnsupportedSaslMechanism,
	ErrIllegalSaslState,
	ErrUnsupportedVersion,
	ErrTopicAlreadyExists,
	ErrInvalidPartitions,
	ErrInvalidReplicationFactor,
	ErrInvalidReplicaAssignment,
	ErrInvalidConfig,
	ErrNotController,
	ErrInvalidRequest,
	ErrUnsupportedForMessageFormat,
	ErrPolicyViolation,
	ErrOutOfOrderSequenceNumber,
	ErrDuplicateSequenceNumber,
	ErrInvalidProducerEpoch,
	ErrInvalidTxnState,
	ErrInvalidProducerIdMapping,
	ErrInvalidTransactionTimeout,
	ErrConcurrentTransactions,
	ErrTransactionCoordinatorFenced,
	ErrTransactionalIdAuthorizationFailed,
	ErrSecurityDisabled,
	ErrOperationNotAttempted,
	ErrKafkaStorageError,
	ErrLogDirNotFound,
	ErrSaslAuthenticationFailed,
	ErrUnknownProducerId,
	ErrReassignmentInProgress,
	ErrDelegationTokenAuthDisabled,
	ErrDelegationTokenNotFound,
	ErrDelegationTokenOwnerMismatch,
	ErrDelegationTokenRequestNotAllowed,
	ErrDelegationTokenAuthorizationFailed,
	ErrDelegationTokenExpired,
	ErrInvalidPrincipalType,
	ErrNonEmptyGroup,
	ErrGroupIdNotFound,
	ErrFetchSessionIdNotFound,
	ErrInvalidFetchSessionEpoch,
	ErrListenerNotFound,
	ErrTopicDeletionDisabled,
	ErrFencedLeaderEpoch,
	ErrUnknownLeaderEpoch,
	ErrUnsupportedCompressionType,
	ErrStaleBrokerEpoch,
	ErrOffsetNotAvailable,
	ErrMemberIdRequired,
	ErrPreferredLeaderNotAvailable,
	ErrGroupMaxSizeReached,
	ErrFencedInstanceId,
	ErrEligibleLeadersNotAvailable,
	ErrElectionNotNeeded,
	ErrNoReassignmentInProgress,
	ErrGroupSubscribedToTopic,
	ErrInvalidRecord,
	ErrUnstableOffsetCommit,
	ErrThrottlingQuotaExceeded,
	ErrProducerFenced,
	ErrResourceNotFound,
	ErrDuplicateResource,
	ErrUnacceptableCredential,
	ErrInconsistentVoterSet,
	ErrInvalidUpdateVersion,
	ErrFeatureUpdateFailed,
	ErrPrincipalDeserializationFailure,
	ErrSnapshotNotFound,
	ErrPositionOutOfRange,
	ErrUnknownTopicId,
	ErrDuplicateBrokerRegistration,
	ErrBrokerIdNotRegistered,
	ErrInconsistentTopicId,
	ErrInconsistentClusterId,
	ErrTransactionalIdNotFound,
	ErrFetchSessionTopicIdError,
	ErrIneligibleReplica,
	ErrNewLeaderElected,
	ErrOffsetMovedToTieredStorage,
	ErrFencedMemberEpoch,
	ErrUnreleasedInstanceId,
	ErrUnsupportedAssignor,
	ErrStaleMemberEpoch,
	ErrMismatchedEndpointType,
	ErrUnsupportedEndpointType,
	ErrUnknownControllerId,
	ErrUnknownSubscriptionId,
	ErrTelemetryTooLarge,
	ErrInvalidRegistration,
	ErrTransactionAbortable,
	ErrInvalidRecordState,
	ErrShareSessionNotFound,
	ErrInvalidShareSessionEpoch,
	ErrFencedStateEpoch,
	ErrInvalidVoterKey,
	ErrDuplicateVoter,
	ErrVoterNotFound,
	ErrInvalidRegularExpression,
	ErrRebootstrapRequired,
	ErrStreamsInvalidTopology,
	ErrStreamsInvalidTopologyEpoch,
	ErrStreamsTopologyFenced,
	ErrShareSessionLimitReached,
	ErrGroupDeletionFailed,
	ErrStreamsTopologyDescriptionUpdateFailed,
	ErrControllerIdNotRegistered,
}
