package producecmd

import (
	"errors"
	"fmt"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// errCheckpointTooLarge is wrapped when a checkpoint of the load could
// exceed the size a record may have.
var errCheckpointTooLarge = errors.New("the checkpoint of this load may be too large")

// checkSize checks, before anything is produced, that no checkpoint of the
// run can exceed --max-request-size in its batch: its largest
// (checkpoint.Tracker.Largest) must fit, so that a load never fails late,
// a transaction short of its end, for its checkpoint's size.
func (res *resumeRun) checkSize() error {
	value := res.tracker.Largest().Marshal()
	size := batchSize([]byte(res.r.opts.TransactionalID), value)
	if limit := res.r.opts.MaxRequestSize; size > limit {
		return fmt.Errorf("%w: up to %d bytes in its batch (options, transactional id and input names included), more than --max-request-size %d:"+
			" raise --max-request-size (and the checkpoint topic's max.message.bytes with it), or shorten the options or the input names",
			errCheckpointTooLarge, size, limit)
	}
	return nil
}

// batchSize is the size of a record batch holding one record of key and
// value, without headers.
func batchSize(key, value []byte) int {
	body := protocol.RecordBodySizeOf(0, 0, protocol.RecordTailSize(key, value, nil))
	return protocol.RecordBatchHeaderSize + protocol.VarintLen(int32(body)) + body
}
