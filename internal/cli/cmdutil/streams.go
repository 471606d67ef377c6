package cmdutil

import "io"

// Streams are the standard streams of one run. Commands read and write
// only these, so that tests run them in-process with buffers.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}
