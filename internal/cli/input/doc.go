// Package input splits kproduce's inputs into records: lines (a delimiter
// of any bytes; headers, then a key, optionally split off each, as
// kafka-console-producer's LineMessageReader does), JSON objects (kcat
// -J's output read as is, keys and values the raw bytes of their
// strings), whole files, or what an rpk-style format string says
// (ParseLayout), with the -k key, --null marker, -Z and -H headers
// applied. With Config.KeyEncoder and Config.ValueEncoder (a Schema
// Registry's framing, see internal/schema), each key and value is a JSON
// text encoded as it is read, a batch at a time. It also checks and opens
// the inputs, named pipes included.
//
// Invariants:
//   - Every input file is checked before the first record is produced (it
//     exists, is no directory, may be read: stat(2) and access(2)), and
//     opened only when it is first read, then closed at its end: a run
//     holds one input file open at a time (a resumed run also those whose
//     committed part it checked and reads on from), however many it names
//     and whatever the descriptor limit. A named pipe is opened so too,
//     because opening a pipe waits for a writer.
//   - Readers never hold more than one record, and never more than
//     Config.MaxRecordBytes of it plus the read buffer: a larger record is
//     reported failed as soon as the bytes read show it (once it crossed
//     the limit and left the read buffer, or filled it; a json record at
//     its first invalid byte when it outgrows the buffer), and the next
//     call skips the rest of it up to its delimiter, holding no more than
//     the buffer. A record cut short so is the only one after which the
//     bytes consumed (the checkpoint tap) stop inside the record; it fails,
//     so no checkpoint is committed after it. A record
//     returned by a reader, its key, value and headers are valid only until
//     the next call to Next. Record numbers count every record of a
//     source, including skipped empty ones and failed ones.
//   - The lines reader returns a record as soon as its delimiter has been
//     read; it never waits for more input first.
//   - An encoded key or value lives in the reader's buffers (Next) or the
//     batch's chunks (ReadBatch), as valid as the record itself; a key or
//     value that does not encode fails its record (rec.Err) alone, and a
//     null one (JSON's null among them) stays null.
//   - A format string's record that does not match fails on its own and
//     reading resumes after the text that ends the format string; every
//     record consumes input, so a reader always ends.
//
// The package knows nothing of flags or config files: it is given a
// Config.
package input
