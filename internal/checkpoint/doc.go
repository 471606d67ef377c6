// Package checkpoint lets a transactional batch load resume exactly where
// its committed transactions end (kproduce --resume).
//
// # What is written where
//
// Every transaction of a resumable load ends with one more record: its
// checkpoint, a JSON document (Checkpoint) saying how far the input is
// done once the transaction's records are in: per source (file or stdin,
// in input order) its name, the number of its last record read, the bytes
// consumed up to the end of that record (delimiter included) and the
// SHA-256 of those bytes, and whether the source was read to its end; for
// the load, the records read, the transactions committed and whether all
// of the input was read, and the options that decide how bytes become
// numbered records (format, delimiter ...) and where a record goes and
// what it holds (topic, key, headers ...): a resumed run that changes one
// is refused (CheckInputs), so a load never ends half one way, half the
// other. An option a checkpoint does not record (written by a kproduce
// that recorded fewer) is not compared.
//
// The sources read to their end at the start of the input, all but the
// last source begun, are folded into one entry (Folded) rather than one
// each, so that a checkpoint does not grow with the number of sources (a
// record may be no larger than a request): their count and their bytes,
// one SHA-256 over the sequence of their entries (each its name, its
// length and the SHA-256 of its bytes, so a source is folded once read,
// without keeping its bytes), and the same SHA-256 for each of at most 64
// groups of consecutive sources, so that a difference can be placed
// within a group. The sources after them keep their own entries: the last
// source begun and, when an input failed to be read, the sources from it
// on. A checkpoint of any number of sources then takes a few kilobytes
// beside its options and the names of those sources. Before it produces
// anything, a run checks that its largest possible checkpoint
// (Tracker.Largest) fits in a request, so that it never fails late for
// its checkpoint's size. This is version 2 of the document; version 1,
// written by an earlier kproduce, has every source begun in its own entry,
// and is still read (a run that takes it up folds those sources).
//
// The record goes to a compacted topic (DefaultTopic unless told
// otherwise; created with one partition when missing), keyed by the
// transactional id, to the partition Partition(id, n) chooses: murmur2 of
// the key, as Kafka's default partitioner would, but fixed by kproduce so
// that reading finds it whatever partitioner the load uses. Compaction
// keeps the latest checkpoint of every transactional id.
//
// # Why a checkpoint is visible if and only if its records are
//
// The checkpoint record is sent in the transaction whose records it
// accounts for, after them, and the transaction is committed only when
// every one of its records, the checkpoint included, was written. Kafka
// commits or aborts the partitions of a transaction together: the
// coordinator decides (PrepareCommit or PrepareAbort in its log) and then
// writes the same marker to every partition the transaction wrote to, the
// checkpoint partition among them. A read_committed reader sees a record
// only once its commit marker is written, never the records of an aborted
// transaction, and nothing at or past an open transaction's first offset
// (the last stable offset). So the checkpoint of a transaction is visible
// exactly when the transaction's records are, and the newest visible
// checkpoint of a transactional id describes precisely the input that its
// committed transactions hold.
//
// # Reading it back
//
// A resumed run first initializes its transactional producer
// (sender.Producer.InitTransactions). The coordinator answers only after
// it has fenced the earlier producer of the same transactional id (a
// zombie can no longer write or commit) and completed that producer's
// last transaction: committed when the commit had been decided (a commit
// whose answer was lost), aborted otherwise (a run killed mid-chunk), its
// markers written. Only then does Load read, so no transaction of this id
// is open or undecided while it reads.
//
// Load takes the high watermark H of the checkpoint partition, waits until
// the partition's last stable offset reaches H (another transactional id
// may have a transaction open there; it ends within its transaction
// timeout), then reads read_committed backwards from H, in growing
// windows, for the newest record keyed by the transactional id. Every
// committed checkpoint of the id is below H, so the one found is the last
// committed. The memory used is one fetch at a time.
//
// # Resuming
//
// The inputs are checked, not trusted: Skip reads each committed source's
// first Bytes bytes through SHA-256 and compares them with the checkpoint
// before anything is produced, and a source the earlier run read to its
// end must end there still. The folded sources are read to their end, in
// order, and their entries summed up as the earlier run did: each group
// is compared as soon as it is read, then the count, the bytes and the
// whole sequence, so a renamed, reordered, changed, shorter or longer
// source among them is found (reading stops once they hold more bytes
// than the earlier run read). A difference is a *MismatchError naming the
// source and the range, or for the folded sources the range of inputs of
// the first group that differs (a single input when the load has at most
// 64). Skipping streams the bytes, so memory stays bounded whatever the
// size of the skipped prefix and the number of sources. The record
// numbers and the hashes go on from there, so every later checkpoint
// again covers the whole prefix of each source, and of the folded ones.
package checkpoint
