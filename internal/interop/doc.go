// Package interop holds kproduce's whole-binary tests against brokers other
// than the one it was built with: kfake capped at each Kafka release
// (kfake.MaxVersions), and librdkafka's mock cluster as shipped inside
// confluent-kafka-go (those tests need cgo and a C compiler, and are left
// out of CGO_ENABLED=0 builds). Each test runs the kproduce binary, built
// once per run, and reads the records back with a consumer of its own
// (franz-go for kfake, librdkafka for its mock cluster).
package interop
