package javaprops

import (
	"fmt"
	"strings"
)

// Kind says what kproduce does with a Java producer property.
type Kind int

const (
	Unknown  Kind = iota // not known: a warning
	Mapped               // the same as a kproduce option
	Security             // kept verbatim in Options.JavaSecurity
	Ignored              // known, has no meaning here: a warning
)

// Map says what a Java producer property means to kproduce. For
// a mapped property it returns the option key and the value in the
// option's syntax (Java's *.ms milliseconds become Go durations).
func Map(name, value string) (kind Kind, key, val string, err error) {
	value = strings.TrimSpace(value)
	switch name {
	case "bootstrap.servers":
		return Mapped, "brokers", value, nil
	case "acks":
		return Mapped, "acks", value, nil
	case "batch.size":
		return Mapped, "batch-size", value, nil
	case "buffer.memory":
		return Mapped, "buffer-memory", value, nil
	case "max.request.size":
		return Mapped, "max-request-size", value, nil
	case "compression.type":
		return Mapped, "compression", value, nil
	case "enable.idempotence":
		return Mapped, "idempotence", value, nil
	case "max.in.flight.requests.per.connection":
		return Mapped, "max-in-flight", value, nil
	case "client.id":
		return Mapped, "client-id", value, nil
	case "transactional.id":
		return Mapped, "transactional-id", value, nil
	case "linger.ms", "delivery.timeout.ms", "request.timeout.ms", "retry.backoff.ms", "metadata.max.age.ms", "transaction.timeout.ms",
		"max.block.ms":
		d, err := millis(value)
		if err != nil {
			return Mapped, "", "", fmt.Errorf("%s=%q: %w", name, value, err)
		}
		return Mapped, javaMillisOption(name), d, nil
	case "security.protocol", "sasl.mechanism", "sasl.jaas.config":
		return Security, name, value, nil
	case "partitioner.class", "key.serializer", "value.serializer":
		return Ignored, "", "", nil
	}
	if strings.HasPrefix(name, "ssl.") {
		return Security, name, value, nil
	}
	return Unknown, "", "", nil
}

// javaMillisOption is the option of a Java *.ms property.
func javaMillisOption(name string) string {
	switch name {
	case "linger.ms":
		return "linger"
	case "delivery.timeout.ms":
		return "delivery-timeout"
	case "request.timeout.ms":
		return "request-timeout"
	case "retry.backoff.ms":
		return "retry-backoff"
	case "transaction.timeout.ms":
		return "transaction-timeout"
	case "max.block.ms":
		// The Java producer's bound on a send waiting for the cluster's
		// metadata: with an unreachable cluster, what the bootstrap
		// timeout bounds.
		return "bootstrap-timeout"
	}
	return "metadata-max-age"
}

// Warning is the warning for a property that is not mapped.
func Warning(kind Kind, where, name string) string {
	if kind == Ignored {
		return fmt.Sprintf("%s: Java property %s has no effect in kproduce; ignored", where, name)
	}
	return fmt.Sprintf("%s: unknown Java property %s; ignored", where, name)
}
