package config

import "fmt"

// checkRecordLimit refuses a --max-record-bytes given above what a record
// can ever be sent in: a record larger than the largest request
// (--max-request-size) or than the memory for the records waiting to be
// sent (--buffer-memory) fails whatever happens, and reading it would
// cost its size in memory for nothing. A dry run, which sends nothing and
// shows which records would not fit a request, is not refused. given says
// --max-record-bytes was set (its default is never refused: a record over
// the request size then fails on its own, with its position).
func (o *Options) checkRecordLimit(given bool) error {
	limit := o.Input.MaxRecordBytes
	if !given || o.DryRun {
		return nil
	}
	if limit > int64(o.MaxRequestSize) {
		return fmt.Errorf("--max-record-bytes %d is more than --max-request-size %d, the largest request a record can be sent in: "+
			"no record above %d bytes can be sent; lower --max-record-bytes, or raise --max-request-size (the brokers' message.max.bytes bounds it too)",
			limit, o.MaxRequestSize, o.MaxRequestSize)
	}
	if limit > o.BufferMemory {
		return fmt.Errorf("--max-record-bytes %d is more than --buffer-memory %d, the memory for the records waiting to be sent: "+
			"no record above %d bytes can be sent; lower --max-record-bytes, or raise --buffer-memory", limit, o.BufferMemory, o.BufferMemory)
	}
	return nil
}
