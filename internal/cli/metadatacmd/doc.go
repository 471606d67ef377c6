// Package metadatacmd is kproduce metadata: the cluster's brokers, its
// topics (or the -t one) with their partitions' leaders, replicas, in-sync
// replicas and errors, and for each broker the API versions kproduce would
// use with it, as text tables or one JSON object (kcat -L's view).
//
// Every broker is asked for its API versions within what is left of
// --timeout; a broker that cannot be asked, or a topic with an error, is
// reported and makes the exit status 1, the rest is still printed.
package metadatacmd
