// Package javaprops reads what users of other Kafka tools bring with
// them: .properties files (parsed as java.util.Properties.load does, with
// line numbers), and one table of property names (the Java client's,
// librdkafka's as kcat takes them, rpk's, and kafka-console-producer's
// line reader's) with what each means to kproduce. The table drives the
// mapping (Map), the help (WriteHelp, kproduce -X help) and the tests. It
// also resolves the properties read together: the security properties
// (security.protocol, sasl.*, ssl.*, JAAS) and the line reader's; and it
// redacts secrets for every output: whether a property's value is secret
// is a column of the table (Setting.Secret), so a row added for a secret
// is redacted everywhere, and a name the table does not hold is redacted
// when it looks like a secret's.
//
// Invariants: an error never quotes a secret (a password, or a value of a
// JAAS option); redaction works on the bytes of the text (ASCII letters
// folded, every other byte kept), so no byte before a secret can move it
// out of what is redacted; a JAAS text that does not parse is redacted
// whole; a property is mapped onto a kproduce option, resolved with
// the others of its kind, accepted silently because it has no meaning for
// a command line (serializers, interceptors), or reported (a warning when
// unknown or a performance knob without an equivalent, an error when its
// value cannot be honoured); a property that changes where records go,
// how the connection is secured or whether records are delivered is never
// ignored.
package javaprops
