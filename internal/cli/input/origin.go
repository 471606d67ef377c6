package input

import "time"

// Origin is where a record was read: the Opaque of every record the
// command line hands to the producer, which its promise and report get
// back. The records of one read share a Chunk.
type Origin struct {
	*Chunk
	Number int64 // 1-based record number in its source
}

// Chunk is what the records of one read (see ReadBatch) share.
type Chunk struct {
	Input  int    // the input's index among the run's inputs
	Source string // its name: a file name or "-"
	// ReadAt is when the chunk's bytes were read from the source.
	ReadAt time.Time
}

// Origins hands out the Origins of the records of one read, on chunk,
// from one allocation: the records keep pointers into it until their
// reports are printed, so each read gets a new one.
func Origins(chunk *Chunk, recs []Record) []Origin {
	out := make([]Origin, len(recs))
	for i := range out {
		out[i] = Origin{Chunk: chunk, Number: recs[i].Number}
	}
	return out
}
