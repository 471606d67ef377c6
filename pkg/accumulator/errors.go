package accumulator

import "errors"

// ErrClosed is returned by Append once the accumulator is closed, including
// to appenders that were blocked waiting for buffer memory.
var ErrClosed = errors.New("accumulator closed")

// ErrRecordTooLarge is wrapped by Append's error for a record that could
// never fit in the buffer memory, with the sizes involved.
var ErrRecordTooLarge = errors.New("record too large")

// ErrInvalidPartition is wrapped by Append's error for a negative partition
// or an empty topic name.
var ErrInvalidPartition = errors.New("invalid topic partition")

// ErrCorruptBatch is wrapped by the per-record error reported when a
// batch's own buffer cannot be parsed back, which would be a defect in the
// accumulator rather than in the input.
var ErrCorruptBatch = errors.New("corrupt batch buffer")

// ErrUnknownPartitioner is wrapped by ParsePartitioner's error.
var ErrUnknownPartitioner = errors.New("unknown partitioner")
