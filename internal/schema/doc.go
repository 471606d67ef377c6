// Package schema turns records written as JSON into the bytes Confluent's
// Schema Registry serializers write: the magic byte 0, the schema id as 4
// bytes big-endian, for Protobuf the message-index path, then the payload
// (Avro binary, Protobuf binary, or the JSON text itself for JSON Schema).
//
// A Spec says which schema a record's key or value uses: a local file or
// text (Avro, Protobuf or JSON Schema), an id, or the latest version of a
// subject. Load reads and compiles the local schemas (usage errors);
// Resolver.Resolve then registers or looks them up, once per subject and
// schema, and returns an Encoder. After that no record needs the registry.
//
// Invariants:
//   - An Encoder's Encode appends to the caller's buffer and keeps no
//     reference to its input or output; it reuses its own scratch, so one
//     Encoder is used by one goroutine at a time.
//   - A record that does not fit its schema fails with a *FieldError (the
//     path of the field, a message), never a panic; the Encoder stays
//     usable for the next record.
//   - Every registry failure is a *RegistryError naming the URL, the
//     subject or id, the HTTP status and the registry's own error code and
//     message; resolving never registers anything when Spec.DryRun is set.
//
// The package knows nothing of flags or config files, and never prints.
package schema
