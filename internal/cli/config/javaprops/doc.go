// Package javaprops reads what users of Kafka's Java client bring with
// them: .properties files (parsed as java.util.Properties.load does, with
// line numbers), producer property names and what each means to kproduce,
// the security properties (security.protocol, sasl.*, ssl.*, JAAS), and
// the redaction of their secrets for logs.
//
// Invariants: an error never quotes a secret (a password, or a value of a
// JAAS option); a property is either mapped onto a kproduce option, kept
// as a security property, or reported (unknown or without effect), never
// dropped silently.
package javaprops
