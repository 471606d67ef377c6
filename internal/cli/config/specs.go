package config

import (
	"github.com/spf13/pflag"

	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/internal/cli/report"
	"github.com/kproduce/kproduce/pkg/protocol"
	"github.com/kproduce/kproduce/pkg/sender"
)

// optionKind says how an option is given on the command line and how a
// value from the environment or a config file is read.
type optionKind int

const (
	kindString optionKind = iota // one value
	kindBool                     // true or false
	kindList                     // a list; a string is split at commas
	kindArray                    // repeatable; a string is one element
)

// optionSpec describes one option: its flag and the config key and
// environment variable of the same name.
type optionSpec struct {
	Name, Short, Default, Usage string
	Kind                        optionKind
	// NoConfig options cannot be set in a config file.
	NoConfig bool
	// Choices are the values an enumerated option takes (shell completion
	// offers them); nil for the others.
	Choices []string
	// NoOptDefault is the value of the flag given without one
	// (--progress alone is --progress=always); "" when it needs one.
	NoOptDefault string
	// Secret options hold a password, a token or a client secret: kproduce
	// config and the logs show them redacted, errors never quote them.
	Secret bool
	// URLs options hold URLs whose user information may hold a password:
	// kproduce config and the logs show it redacted.
	URLs bool
}

// optionSpecs lists every option in help order. In Usage, the back-quoted
// word names the flag's argument in the help text.
func optionSpecs() []optionSpec {
	return []optionSpec{
		{Name: "brokers", Short: "b", Default: "127.0.0.1:9092", Kind: kindList, Usage: "bootstrap brokers, comma-separated `host:port,...`"},
		{Name: "topic", Short: "t", Usage: "`topic` to produce to: every record goes there, whatever topic it names (required unless records name their own: -f json, %t)"},
		{Name: "partition", Short: "p", Default: "-1", Usage: "fixed `partition`; -1 lets the partitioner choose"},
		{Name: "partitioner", Default: "murmur2", Choices: sender.Partitioners(), Usage: "partitioner `name`: murmur2 (Java's default: keyed murmur2, unkeyed sticky) | round-robin | random | crc32 (keyed crc32, unkeyed random: librdkafka's consistent_random) | consistent (crc32 of every non-null key, empty ones too) | fnv1a (Sarama's and librdkafka's fnv1a; unkeyed sticky)"},
		{Name: "dry-run", Default: "false", Kind: kindBool, NoConfig: true, Usage: "read and route every record, print where each would go, send nothing"},
		{Name: "partitions", Default: "0", NoConfig: true, Usage: "with --dry-run: every topic has `N` partitions, no cluster needed (0: ask the cluster)"},
		{Name: "format", Short: "f", Default: "lines", Choices: input.Formats(), Usage: "input `format`: lines | json | file | an rpk-style format string with % verbs, e.g. '%k %v\\n' (see docs/formats.md)"},
		{Name: "delimiter", Short: "D", Default: `\n`, Usage: "record `delimiter` for lines and json (escapes \\n \\r \\t \\0 \\\\ \\xNN; several bytes allowed)"},
		{Name: "key-delimiter", Short: "K", Usage: "split each line at the first `delimiter` into key and value (same escapes)"},
		{Name: "header-delimiter", Usage: "each line starts with its own headers, up to the first `delimiter` (same escapes); then -K splits the key off the rest"},
		{Name: "header-separator", Default: ",", Usage: "with --header-delimiter, `separator` between two headers"},
		{Name: "header-key-separator", Default: ":", Usage: "with --header-delimiter, `separator` between a header's key and value"},
		{Name: "require-delimiters", Default: "false", Kind: kindBool, Usage: "a line without the -K or --header-delimiter delimiter fails (by default it has no key or headers)"},
		{Name: "key", Short: "k", Usage: "`key` for every record that has no key of its own"},
		{Name: "header", Short: "H", Kind: kindArray, Usage: "`KEY=VALUE` (or KEY:VALUE) header on every record (repeatable)"},
		{Name: "null", Usage: "a key, value or header value equal to `string` is sent as null (a tombstone when it is the value)"},
		{Name: "tombstone", Short: "Z", Default: "false", Kind: kindBool, Usage: "an empty value is sent as null (a tombstone), an empty key as a null key"},
		{Name: "skip-empty", Default: "false", Kind: kindBool, Usage: "skip empty records (by default an empty line is an empty value)"},
		{Name: "max-record-bytes", Default: "1MiB", Usage: "an input record larger than `bytes` fails on its own, as soon as it crosses the limit (at most --max-request-size and --buffer-memory)"},
		{Name: "schema-registry", Kind: kindList, URLs: true, Usage: "Schema Registry `URL,...` (http://user:pass@host:8081; host:port is http): frame keys and values as Confluent's serializers do (see docs/schema-registry.md)"},
		{Name: "schema-registry-user", Secret: true, Usage: "Schema Registry basic auth `USER:PASSWORD` (better: KPRODUCE_SCHEMA_REGISTRY_USER)"},
		{Name: "schema-registry-token", Secret: true, Usage: "Schema Registry bearer `token` (better: KPRODUCE_SCHEMA_REGISTRY_TOKEN)"},
		{Name: "schema-registry-tls", Default: "false", Kind: kindBool, Usage: "https for Schema Registry hosts given without a scheme (implied by the other --schema-registry-* TLS options)"},
		{Name: "schema-registry-ca", Usage: "PEM `file` of the CAs that sign the Schema Registry's certificate (default: the system's)"},
		{Name: "schema-registry-cert", Usage: "PEM `file` of a client certificate for the Schema Registry"},
		{Name: "schema-registry-key", Usage: "PEM `file` of the Schema Registry client certificate's key"},
		{Name: "schema-registry-insecure-skip-verify", Default: "false", Kind: kindBool, Usage: "do not verify the Schema Registry's certificate (insecure: for tests only)"},
		{Name: "value-schema", Usage: "each value is JSON, sent encoded with this schema `file`: Avro (.avsc), Protobuf (.proto) or JSON Schema (.json), registered under its subject"},
		{Name: "value-schema-text", Usage: "the value `schema` itself, inline (kafka-avro-console-producer's value.schema)"},
		{Name: "value-schema-id", Usage: "encode each JSON value with the registered schema `id`, or topic: the latest of <topic>-value"},
		{Name: "key-schema", Usage: "each key is JSON, sent encoded with this schema `file` (as --value-schema)"},
		{Name: "key-schema-text", Usage: "the key `schema` itself, inline (key.schema)"},
		{Name: "key-schema-id", Usage: "encode each JSON key with the registered schema `id`, or topic: the latest of <topic>-key"},
		{Name: "schema-format", Default: "auto", Choices: []string{"auto", "avro", "protobuf", "json-schema"}, Usage: "what the schemas are, `format`: auto (the content decides) | avro | protobuf | json-schema"},
		{Name: "value-type", Usage: "the value's Protobuf message, full `name` (default: the file's first message)"},
		{Name: "key-type", Usage: "the key's Protobuf message, full `name` (default: the file's first message)"},
		{Name: "proto-path", Kind: kindArray, Usage: "`dir`ectory Protobuf imports are found in (repeatable; the well-known types need none)"},
		{Name: "subject-strategy", Default: "topic", Choices: []string{"topic", "record", "topic-record"}, Usage: "subject of a schema, `strategy`: topic (<topic>-value, <topic>-key) | record (the record's full name) | topic-record (<topic>-<full name>)"},
		{Name: "key-subject-strategy", Choices: []string{"topic", "record", "topic-record"}, Usage: "the key schema's subject `strategy` (default: --subject-strategy)"},
		{Name: "auto-register", Default: "true", Kind: kindBool, Usage: "register a schema file under its subject (false: it must be registered already)"},
		{Name: "use-latest-version", Default: "false", Kind: kindBool, Usage: "encode with the subject's latest registered schema instead of the file's"},
		{Name: "count", Short: "c", Default: "0", Usage: "stop after `N` records (0: no limit)"},
		{Name: "acks", Short: "a", Default: "all", Choices: []string{"all", "-1", "1", "0"}, Usage: "acknowledgements to wait for, `acks`: all | 1 | 0"},
		{Name: "idempotence", Default: "true", Kind: kindBool, Usage: "idempotent producer (needs acks=all; off by default with acks 0 or 1)"},
		{Name: "linger", Default: "5ms", Usage: "wait up to `duration` for more records before sending a batch"},
		{Name: "batch-size", Default: "1MiB", Usage: "largest record batch in `bytes`"},
		{Name: "buffer-memory", Default: "8MiB", Usage: "`bytes` of records waiting to be sent before input is paused"},
		{Name: "max-request-size", Default: "1MiB", Usage: "largest produce request in `bytes`"},
		{Name: "compression", Short: "z", Default: "none", Choices: protocol.CodecNames(), Usage: "compression `codec`: none | gzip | snappy | lz4 | zstd"},
		{Name: "compression-level", Usage: "the codec's `level`: gzip 1-9 (default 7), lz4 1-17 (3 and up: high compression; default: fast), zstd -131072-22 (default: its fastest, about 1); 0 or -1: the default; CODEC:LEVEL applies to that codec only (comma-separated)"},
		{Name: "compression-workers", Usage: "compress up to `N` batches at once, each on a thread (default: one per core; 0: one at a time, as requests are built)"},
		{Name: "max-in-flight", Default: "5", Usage: "unacknowledged requests per broker, at most `N` (at most 5 with idempotence)"},
		{Name: "sync", Default: "false", Kind: kindBool, Usage: "wait for each record's acknowledgement before reading the next (slow: one record per request)"},
		{Name: "retries", Default: "-1", Usage: "retry a failed request at most `N` times (-1: until --delivery-timeout; 0: never, which turns idempotence off)"},
		{Name: "request-timeout", Default: "30s", Usage: "wait up to `duration` for a broker's answer"},
		{Name: "delivery-timeout", Default: "2m", Usage: "give up on a record `duration` after it was read"},
		{Name: "bootstrap-timeout", Default: "10s", Usage: "give up when no bootstrap broker answers within `duration`, naming each one's failure (0: wait up to the delivery timeout, or a subcommand's --timeout)"},
		{Name: "close-timeout", Default: "5s", Usage: "bound the flush after SIGINT, SIGTERM or SIGHUP to `duration`"},
		{Name: "retry-backoff", Default: "100ms", Usage: "wait `duration` before retrying a failed request"},
		{Name: "metadata-max-age", Default: "5m", Usage: "refresh metadata at least every `duration`"},
		{Name: "allow-auto-topic-creation", Default: "true", Kind: kindBool, Usage: "ask the brokers to create a missing topic (their auto.create.topics.enable decides); false: a missing topic is not created"},
		{Name: "client-id", Default: "kproduce", Usage: "client `id` sent to the brokers"},
		{Name: "transactional-id", Usage: "produce the input as one transaction with this transactional `id` (committed at the end, aborted on any failure)"},
		{Name: "transaction-records", Default: "0", Usage: "with --transactional-id, commit every `N` records, each chunk its own transaction (0: the whole input)"},
		{Name: "transaction-timeout", Default: "60s", Usage: "the coordinator aborts a transaction left open longer than `duration`"},
		{Name: "resume", Default: "false", Kind: kindBool, Usage: "with --transactional-id, commit a checkpoint in every transaction and, run again, go on after what the earlier runs committed (exactly once)"},
		{Name: "resume-topic", Default: "kproduce-checkpoints", Usage: "compacted `topic` holding the --resume checkpoints (created when missing)"},
		{Name: "tls", Default: "false", Kind: kindBool, Usage: "connect to the brokers with TLS (implied by the other --tls-* options)"},
		{Name: "tls-ca", Usage: "PEM `file` of the CAs that sign the brokers' certificates (default: the system's)"},
		{Name: "tls-cert", Usage: "PEM `file` of the client certificate, for brokers that require one (mutual TLS)"},
		{Name: "tls-key", Usage: "PEM `file` of the client certificate's private key (PKCS #1, #8 or SEC 1; may be encrypted)"},
		{Name: "tls-key-password", Secret: true, Usage: "`password` of an encrypted --tls-key, or of the key in --tls-keystore when it differs from the store's (better: KPRODUCE_TLS_KEY_PASSWORD)"},
		{Name: "tls-keystore", Usage: "key store `file` with the client certificate and its key: PKCS #12, JKS or PEM (the content decides), for mutual TLS"},
		{Name: "tls-keystore-password", Secret: true, Usage: "`password` of --tls-keystore (better: KPRODUCE_TLS_KEYSTORE_PASSWORD); its key's, unless --tls-key-password is given"},
		{Name: "tls-keystore-alias", Usage: "`alias` of the key to use in a --tls-keystore that holds several (default: the only or first one)"},
		{Name: "tls-truststore", Usage: "trust store `file` with the CAs that sign the brokers' certificates: PKCS #12, JKS, PEM or DER (the content decides)"},
		{Name: "tls-truststore-password", Secret: true, Usage: "`password` of --tls-truststore (better: KPRODUCE_TLS_TRUSTSTORE_PASSWORD)"},
		{Name: "tls-server-name", Usage: "`name` to verify the brokers' certificates against instead of the host connected to"},
		{Name: "tls-insecure-skip-verify", Default: "false", Kind: kindBool, Usage: "do not verify the brokers' certificates (insecure: for tests only)"},
		{Name: "sasl-mechanism", Choices: javaprops.SASLMechanisms(), Usage: "SASL `mechanism`: PLAIN | SCRAM-SHA-256 | SCRAM-SHA-512 | GSSAPI (Kerberos) | OAUTHBEARER | AWS_MSK_IAM"},
		{Name: "sasl-username", Usage: "SASL `user` name"},
		{Name: "sasl-password", Secret: true, Usage: "SASL `password` (better: KPRODUCE_SASL_PASSWORD or the config file)"},
		{Name: "sasl-token", Secret: true, Usage: "OAUTHBEARER: a static bearer `token` (better: KPRODUCE_SASL_TOKEN, or --sasl-token-file)"},
		{Name: "sasl-token-file", Usage: "OAUTHBEARER: `file` holding the token, read again at every authentication (a rotated Kubernetes service-account token)"},
		{Name: "oauth-token-endpoint", URLs: true, Usage: "OAUTHBEARER: token endpoint `URL` of the OAuth client credentials grant (OIDC, Confluent Cloud, Keycloak, Okta, Azure AD)"},
		{Name: "oauth-client-id", Usage: "OAUTHBEARER: client `id` for --oauth-token-endpoint"},
		{Name: "oauth-client-secret", Secret: true, Usage: "OAUTHBEARER: client `secret` for --oauth-token-endpoint (better: KPRODUCE_OAUTH_CLIENT_SECRET or the config file)"},
		{Name: "oauth-scope", Usage: "OAUTHBEARER: `scope` to ask the token endpoint for (space-separated)"},
		{Name: "oauth-extension", Kind: kindList, Usage: "OAUTHBEARER: SASL extension `KEY=VALUE`, repeatable or comma-separated (Confluent Cloud: logicalCluster=lkc-..., identityPoolId=pool-...)"},
		{Name: "oauth-ca", Usage: "PEM `file` of the CAs of the token endpoint's certificate (default: the system's)"},
		{Name: "oauth-connect-timeout", Default: "10s", Usage: "OAUTHBEARER: connect to the token endpoint within `duration`"},
		{Name: "oauth-read-timeout", Default: "10s", Usage: "OAUTHBEARER: wait up to `duration` for the token endpoint's answer"},
		{Name: "oauth-retry-backoff", Default: "100ms", Usage: "OAUTHBEARER: first wait before retrying a failed token request, `duration`; it doubles up to --oauth-retry-backoff-max"},
		{Name: "oauth-retry-backoff-max", Default: "10s", Usage: "OAUTHBEARER: longest wait between token requests, `duration`"},
		{Name: "sasl-unsecured-jwt", Usage: "OAUTHBEARER, development only: an unsigned JWT made from `config` 'principal=NAME [lifeSeconds=N] [scope=a,b] [extension_NAME=value]' (librdkafka's sasl.oauthbearer.config)"},
		{Name: "aws-region", Usage: "AWS_MSK_IAM: sign for `region` (default: AWS_REGION, the profile's, else the one in the broker's host name)"},
		{Name: "aws-profile", Usage: "AWS_MSK_IAM: `profile` of the shared AWS config and credentials files (default: AWS_PROFILE, else default)"},
		{Name: "aws-role-arn", Usage: "AWS_MSK_IAM: assume the role `arn` with the default chain's credentials"},
		{Name: "aws-role-session-name", Default: "kproduce", Usage: "AWS_MSK_IAM: session `name` of the assumed role"},
		{Name: "kerberos-service-name", Default: "kafka", Usage: "with GSSAPI, the brokers' service `name`: their principal is NAME/BROKER-HOST@REALM"},
		{Name: "kerberos-principal", Usage: "with GSSAPI, the client `principal` (name@REALM; default: the keytab's first, or the ticket cache's)"},
		{Name: "kerberos-keytab", Usage: "with GSSAPI, log in with the keys of this keytab `file` (default: the ticket cache of a kinit)"},
		{Name: "kerberos-ccache", Usage: "with GSSAPI and no keytab, the ticket cache `file` (default: KRB5CCNAME, else /tmp/krb5cc_UID)"},
		{Name: "kerberos-config", Usage: "with GSSAPI, the krb5.conf `file` naming the realms and their KDCs (default: KRB5_CONFIG, else /etc/krb5.conf)"},
		{Name: "kerberos-min-time-before-relogin", Default: "1m", Usage: "with GSSAPI, log in again at most every `duration` while the ticket is valid (a ticket that would end sooner is refreshed all the same)"},
		{Name: "property", Short: "X", Kind: kindArray, Usage: "Java or librdkafka property `KEY=VALUE` (bootstrap.servers, linger.ms, parse.key, ...), repeatable; -X help lists them"},
		{Name: "config", Short: "F", NoConfig: true, Usage: "config `file`: kproduce YAML, or properties (Java's producer.properties, kcat's librdkafka file); default KPRODUCE_CONFIG, else ~/.config/kproduce/config.yaml"},
		{Name: "profile", Usage: "use the `name`d profile of the YAML config file (its profiles key)"},
		{Name: "output", Short: "o", Default: "text", Choices: report.FormatNames(), Usage: "delivery reports on stdout: text | json | none | a `template` (%t %p %o %d %k %v %s %n %e %%)"},
		{Name: "log-level", Default: "warn", Choices: LogLevels(), Usage: "`level` of the logs on stderr: trace | debug | info | warn | error | disabled"},
		{Name: "rate", Default: "0", Usage: "send at most `N` records per second, evenly spaced (decimals allowed: 0.5 is one every 2s; 0: no limit)"},
		{Name: "progress", Default: "auto", Choices: progressChoices(), NoOptDefault: ProgressAlways,
			Usage: "progress bar on stderr, `when`: auto (stderr is a terminal and the inputs are files) | always (also --progress alone) | never"},
		{Name: "stats", Default: "false", Kind: kindBool, Usage: "print a summary on stderr at exit: records, bytes, throughput, requests, batches, retries, latency"},
		{Name: "stats-json", Usage: "write the summary of --stats as one JSON object to `file` (- for stdout)"},
	}
}

// AddFlags defines the flag of every option of the produce command on fs.
func AddFlags(fs *pflag.FlagSet) {
	addSpecFlags(fs, optionSpecs())
	addDialectFlags(fs)
}

// addSpecFlags defines the flags of specs on fs, in order.
func addSpecFlags(fs *pflag.FlagSet, specs []optionSpec) {
	for _, o := range specs {
		switch o.Kind {
		case kindBool:
			fs.BoolP(o.Name, o.Short, o.Default == "true", o.Usage)
		case kindList:
			fs.StringSliceP(o.Name, o.Short, splitList(o.Default), o.Usage)
		case kindArray:
			fs.StringArrayP(o.Name, o.Short, nil, o.Usage)
		default:
			fs.StringP(o.Name, o.Short, o.Default, o.Usage)
		}
		if o.NoOptDefault != "" {
			fs.Lookup(o.Name).NoOptDefVal = o.NoOptDefault
		}
	}
	fs.SortFlags = false
}

// lookupSpec returns the spec of the option with the given long name.
func lookupSpec(name string) (optionSpec, bool) {
	for _, o := range optionSpecs() {
		if o.Name == name {
			return o, true
		}
	}
	return optionSpec{}, false
}

// Choices returns, per enumerated option, the values it takes: what shell
// completion offers.
func Choices() map[string][]string {
	m := map[string][]string{}
	for _, o := range optionSpecs() {
		if o.Choices != nil {
			m[o.Name] = o.Choices
		}
	}
	return m
}
