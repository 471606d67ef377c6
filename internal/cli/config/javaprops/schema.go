package javaprops

import (
	"fmt"
	"strings"
)

// schemaProperties are the Schema Registry properties of Confluent's
// schema console producers (kafka-avro-console-producer,
// kafka-protobuf-console-producer, kafka-json-schema-console-producer:
// --property, also as line reader properties) and rpk's -X registry.*
// names.
func schemaProperties() []Setting {
	sr := func(java, option, meaning, example string, parse func(string) (string, error)) Setting {
		return Setting{Java: []string{java}, Kind: Mapped, Schema: true, Option: option, Meaning: meaning, Example: example, Parse: parse}
	}
	rpk := func(name, option, meaning, example string, parse func(string) (string, error)) Setting {
		return Setting{Rpk: []string{name}, Kind: Mapped, Schema: true, Option: option, Meaning: meaning, Example: example, Parse: parse}
	}
	return []Setting{
		sr("schema.registry.url", "schema-registry", "Schema Registry URLs, comma-separated", "http://localhost:8081", nil),
		{Java: []string{"basic.auth.credentials.source"}, Kind: Accepted, Schema: true, Parse: parseCredentialsSource,
			Meaning: "USER_INFO (basic.auth.user.info) or URL (the URL's user information); SASL_INHERIT is refused"},
		{Java: []string{"basic.auth.user.info"}, Kind: Mapped, Schema: true, Secret: Secret, Option: "schema-registry-user",
			Meaning: "USER:PASSWORD for the Schema Registry's basic auth", Example: "alice:s3cret"},
		{Java: []string{"bearer.auth.credentials.source"}, Kind: Accepted, Schema: true, Parse: parseBearerSource,
			Meaning: "STATIC_TOKEN (bearer.auth.token); other sources are refused"},
		{Java: []string{"bearer.auth.token"}, Kind: Mapped, Schema: true, Secret: Secret, Option: "schema-registry-token",
			Meaning: "bearer token for the Schema Registry", Example: "eyJhbGciOi"},
		sr("auto.register.schemas", "auto-register", "false: the schema must be registered already", "false", parseBool),
		sr("use.latest.version", "use-latest-version", "true: encode with the subject's latest schema", "true", parseBool),
		sr("value.schema", "value-schema-text", "the value schema, inline", `{"type":"string"}`, nil),
		sr("value.schema.file", "value-schema", "the value schema's file", "order.avsc", nil),
		sr("value.schema.id", "value-schema-id", "an existing value schema's id", "7", nil),
		sr("key.schema", "key-schema-text", "the key schema, inline", `"string"`, nil),
		sr("key.schema.file", "key-schema", "the key schema's file", "key.avsc", nil),
		sr("key.schema.id", "key-schema-id", "an existing key schema's id", "3", nil),
		sr("value.schema.full.name", "value-type", "the value's Protobuf message", "shop.Order", nil),
		sr("value.subject.name.strategy", "subject-strategy",
			"io.confluent.kafka.serializers.subject.TopicNameStrategy, RecordNameStrategy or TopicRecordNameStrategy (also the key's, unless key.subject.name.strategy is given)",
			"io.confluent.kafka.serializers.subject.RecordNameStrategy", parseStrategyClass),
		sr("key.subject.name.strategy", "key-subject-strategy", "the key's subject name strategy class", "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy",
			parseStrategyClass),
		rpk("registry.hosts", "schema-registry", "Schema Registry host:port list (no scheme: http, https with registry.tls.enabled)", "sr1:8081,sr2:8081", nil),
		rpk("registry.tls.enabled", "schema-registry-tls", "true: https", "true", parseBool),
		rpk("registry.tls.ca", "schema-registry-ca", "PEM file of the CAs to trust for the Schema Registry", "ca.pem", nil),
		rpk("registry.tls.cert", "schema-registry-cert", "PEM file of a client certificate for the Schema Registry", "client.pem", nil),
		rpk("registry.tls.key", "schema-registry-key", "PEM file of that certificate's key", "client.key", nil),
		rpk("registry.tls.insecure_skip_verify", "schema-registry-insecure-skip-verify", "true: accept any Schema Registry certificate", "true", parseBool),
	}
}

// parseCredentialsSource checks basic.auth.credentials.source.
func parseCredentialsSource(s string) (string, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "USER_INFO", "URL":
		return s, nil
	}
	return "", fmt.Errorf("%w: want USER_INFO (with basic.auth.user.info) or URL (credentials in schema.registry.url)", ErrBadValue)
}

// parseBearerSource checks bearer.auth.credentials.source.
func parseBearerSource(s string) (string, error) {
	if strings.EqualFold(strings.TrimSpace(s), "STATIC_TOKEN") {
		return s, nil
	}
	return "", fmt.Errorf("%w: want STATIC_TOKEN (with bearer.auth.token)", ErrBadValue)
}

// parseStrategyClass reads a subject name strategy class as kproduce's
// --subject-strategy word.
func parseStrategyClass(s string) (string, error) {
	name := strings.TrimPrefix(strings.TrimSpace(s), "io.confluent.kafka.serializers.subject.")
	switch name {
	case "TopicNameStrategy":
		return "topic", nil
	case "RecordNameStrategy":
		return "record", nil
	case "TopicRecordNameStrategy":
		return "topic-record", nil
	}
	return "", fmt.Errorf("%w: want io.confluent.kafka.serializers.subject.TopicNameStrategy, RecordNameStrategy or TopicRecordNameStrategy", ErrBadValue)
}

// ConfluentReaderFormat returns the schema format one of Confluent's
// console line readers stands for (avro, protobuf, json-schema), "" for
// another class.
func ConfluentReaderFormat(class string) string {
	switch strings.TrimPrefix(strings.TrimSpace(class), "io.confluent.kafka.formatter.") {
	case "AvroMessageReader":
		return "avro"
	case "ProtobufMessageReader", "protobuf.ProtobufMessageReader":
		return "protobuf"
	case "JsonSchemaMessageReader", "json.JsonSchemaMessageReader":
		return "json-schema"
	}
	return ""
}
