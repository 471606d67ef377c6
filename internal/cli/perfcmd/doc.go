// Package perfcmd is kproduce perf: a load test of a cluster as Apache
// Kafka's kafka-producer-perf-test runs it (its flags with their meaning,
// its output line for line), driving the real producer pipeline with
// records it makes itself, and measuring the latency of every record.
//
// Invariants:
//   - Records are made a batch at a time into memory the generator reuses
//     and handed to the producer with ProduceBatch (which copies them): no
//     allocation per record.
//   - A record's latency runs from the moment its batch is handed to the
//     producer to its acknowledgement, read once per turn of the producer's
//     Sender (every record of a turn was acknowledged when its first one
//     was handled), in nanoseconds, into a histogram of three significant
//     digits: no sampling.
//   - Every record handed over gets exactly one outcome: acknowledged
//     (counted in the totals, the windows, its partition) or failed
//     (counted by reason). What the collector keeps is guarded by one
//     mutex; the generator takes it once per batch.
//   - With --throughput, batches are paced against the clock (a token
//     bucket that catches up after a stall of up to 250 ms), never by a
//     sleep per record.
//   - Exit status: 0 only when every record handed over was acknowledged
//     (and every transaction committed); 1 when one failed or the cluster
//     could not be used; 2 for usage errors, before anything is sent; 130
//     when interrupted.
package perfcmd
