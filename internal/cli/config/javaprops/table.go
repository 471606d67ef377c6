package javaprops

import (
	"slices"
	"sync"
)

// Kind says what kproduce does with a property.
type Kind int

const (
	// Unknown: not in the table; a warning (users paste whole files).
	Unknown Kind = iota
	// Mapped: sets the kproduce option Property.Option, the value in the
	// option's syntax (Property.Parse).
	Mapped
	// Security: a TLS or SASL property, read together with the others of
	// its kind (ResolveSecurity), as security.protocol decides.
	Security
	// Reader: a property of kafka-console-producer's line reader
	// (--property parse.key=true), read together with the others of its
	// kind (ResolveReader).
	Reader
	// Accepted: no meaning for a producer command line (serializers,
	// interceptors, metrics): accepted silently.
	Accepted
	// Knob: a performance setting kproduce has no equivalent for: one
	// warning, no other effect.
	Knob
)

// String names a kind as kproduce -X help does.
func (k Kind) String() string {
	switch k {
	case Mapped, Security, Reader:
		return "mapped"
	case Accepted:
		return "accepted (no effect)"
	case Knob:
		return "warning (no equivalent)"
	}
	return "unknown"
}

// Setting is one row of the property table: the names the Java client
// and librdkafka give one setting, and what it means to kproduce.
type Setting struct {
	// Java are the Kafka Java client's names (producer.properties,
	// kafka-console-producer --producer-property).
	Java []string
	// Librdkafka are librdkafka's names (kcat -X, kcat.conf).
	Librdkafka []string
	// Rpk are rpk's -X names.
	Rpk []string
	// Kind says what kproduce does with the property.
	Kind Kind
	// Option is the kproduce option (a long flag name) the property sets;
	// for the Security and Reader kinds, the options it contributes to.
	Option string
	// Meaning is one line for kproduce -X help.
	Meaning string
	// Parse converts a value to the option's syntax (Mapped) or checks it
	// (Accepted); nil takes the value as it is. An error refuses the
	// value (a usage error), unless it wraps ErrNoEquivalent, which makes
	// it a warning.
	Parse func(value string) (string, error)
	// Example is a value that differs from kproduce's default, for the
	// help and the tests.
	Example string
	// Secret says whether the value is a secret (a password, a key, a
	// client secret, a token) or holds secrets (a JAAS configuration, a
	// URL's password): every output redacts it (RedactValue). Mark every
	// row of a secret.
	Secret Secrecy
	// Schema marks the Schema Registry properties: also line reader
	// properties of Confluent's schema console producers.
	Schema bool
}

// Names returns every name of the property, Java's first.
func (p Setting) Names() []string {
	return append(append(slices.Clone(p.Java), p.Librdkafka...), p.Rpk...)
}

// Lookup returns the row of a property name (names are case-sensitive,
// as in both clients), and false for a name not in the table.
func Lookup(name string) (Setting, bool) {
	p, ok := tableIndex()[name]
	return p, ok
}

// Names returns every property name of the table, in the order of
// Table.
func Names() []string {
	var names []string
	for _, p := range Table() {
		names = append(names, p.Names()...)
	}
	return names
}

// tableIndex maps every name of the table to its row (the first row that
// names it). It is built once and never changes: a file of a million
// properties is looked up in linear time.
var tableIndex = sync.OnceValue(func() map[string]Setting {
	index := map[string]Setting{}
	for _, p := range Table() {
		for _, name := range p.Names() {
			if _, seen := index[name]; !seen {
				index[name] = p
			}
		}
	}
	return index
})

// Table returns every property kproduce knows, in the order kproduce -X
// help lists them: the producer's settings, security (Java's and
// librdkafka's, then rpk's), the console producer's line reader, then
// those without effect.
func Table() []Setting {
	var t []Setting
	t = append(t, producerProperties()...)
	t = append(t, securityProperties()...)
	t = append(t, rpkProperties()...)
	t = append(t, schemaProperties()...)
	t = append(t, readerProperties()...)
	t = append(t, acceptedProperties()...)
	return append(t, knobProperties()...)
}

// producerProperties are the producer's settings with a kproduce option.
func producerProperties() []Setting {
	return []Setting{
		{Java: []string{"bootstrap.servers"}, Librdkafka: []string{"bootstrap.servers", "metadata.broker.list"}, Rpk: []string{"brokers"}, Kind: Mapped,
			Option: "brokers", Meaning: "bootstrap brokers, host[:port],...", Example: "k1:9093,k2:9093"},
		{Java: []string{"client.id"}, Librdkafka: []string{"client.id"}, Kind: Mapped,
			Option: "client-id", Meaning: "client id sent to the brokers", Example: "etl"},
		{Java: []string{"acks"}, Librdkafka: []string{"acks", "request.required.acks"}, Kind: Mapped,
			Option: "acks", Meaning: "acknowledgements: all (-1), 1 or 0", Example: "1"},
		{Java: []string{"enable.idempotence"}, Librdkafka: []string{"enable.idempotence"}, Kind: Mapped,
			Option: "idempotence", Meaning: "idempotent producer (needs acks=all)", Parse: parseBool, Example: "false"},
		{Java: []string{"linger.ms"}, Librdkafka: []string{"linger.ms", "queue.buffering.max.ms"}, Kind: Mapped,
			Option: "linger", Meaning: "wait this many ms for more records before sending a batch", Parse: parseMillis, Example: "20"},
		{Java: []string{"batch.size"}, Librdkafka: []string{"batch.size"}, Kind: Mapped,
			Option: "batch-size", Meaning: "largest record batch, bytes", Parse: parseCount, Example: "65536"},
		{Java: []string{"buffer.memory"}, Kind: Mapped,
			Option: "buffer-memory", Meaning: "bytes of records waiting to be sent", Parse: parseCount, Example: "1048576"},
		{Librdkafka: []string{"queue.buffering.max.kbytes"}, Kind: Mapped,
			Option: "buffer-memory", Meaning: "KiB of records waiting to be sent", Parse: parseKiB, Example: "1024"},
		{Java: []string{"max.request.size"}, Librdkafka: []string{"message.max.bytes"}, Kind: Mapped,
			Option: "max-request-size", Meaning: "largest produce request, bytes", Parse: parseCount, Example: "2000000"},
		{Java: []string{"compression.type"}, Librdkafka: []string{"compression.codec", "compression.type"}, Kind: Mapped,
			Option: "compression", Meaning: "none, gzip, snappy, lz4 or zstd", Parse: parseCodec, Example: "zstd"},
		{Librdkafka: []string{"compression.level"}, Kind: Mapped,
			Option: "compression-level", Meaning: "the codec's level (-1: its default)", Parse: parseLevel, Example: "3"},
		{Java: []string{"compression.gzip.level"}, Kind: Mapped,
			Option: "compression-level", Meaning: "gzip's level, 1-9 (-1: its default), when the codec is gzip", Parse: codecLevel("gzip"), Example: "9"},
		{Java: []string{"compression.lz4.level"}, Kind: Mapped,
			Option: "compression-level", Meaning: "lz4's level, 1-17, when the codec is lz4", Parse: codecLevel("lz4"), Example: "9"},
		{Java: []string{"compression.zstd.level"}, Kind: Mapped,
			Option: "compression-level", Meaning: "zstd's level, -131072-22, when the codec is zstd", Parse: codecLevel("zstd"), Example: "10"},
		{Java: []string{"max.in.flight.requests.per.connection"}, Librdkafka: []string{"max.in.flight.requests.per.connection", "max.in.flight"},
			Kind: Mapped, Option: "max-in-flight", Meaning: "unacknowledged requests per broker", Parse: parseCount, Example: "1"},
		{Java: []string{"delivery.timeout.ms"}, Librdkafka: []string{"delivery.timeout.ms", "message.timeout.ms"}, Kind: Mapped,
			Option: "delivery-timeout", Meaning: "give up on a record this many ms after it was read (0, librdkafka's no limit, is refused)",
			Parse: parsePositiveMillis, Example: "60000"},
		{Java: []string{"request.timeout.ms"}, Librdkafka: []string{"request.timeout.ms"}, Kind: Mapped,
			Option: "request-timeout", Meaning: "wait this many ms for a broker's answer", Parse: parseMillis, Example: "5000"},
		{Java: []string{"retry.backoff.ms"}, Librdkafka: []string{"retry.backoff.ms"}, Kind: Mapped,
			Option: "retry-backoff", Meaning: "wait this many ms before retrying a failed request", Parse: parseMillis, Example: "250"},
		{Java: []string{"retries"}, Librdkafka: []string{"retries", "message.send.max.retries"}, Kind: Mapped,
			Option: "retries", Meaning: "retry a failed request at most this many times (0: never; default: until the delivery timeout)",
			Parse: parseCount, Example: "0"},
		{Java: []string{"metadata.max.age.ms"}, Librdkafka: []string{"metadata.max.age.ms"}, Kind: Mapped,
			Option: "metadata-max-age", Meaning: "refresh metadata at least every this many ms", Parse: parseMillis, Example: "60000"},
		{Librdkafka: []string{"topic.metadata.refresh.interval.ms"}, Kind: Mapped,
			Option: "metadata-max-age", Meaning: "refresh metadata every this many ms (-1, never, has no equivalent: a warning)",
			Parse: parseRefreshInterval, Example: "60000"},
		{Java: []string{"allow.auto.create.topics"}, Librdkafka: []string{"allow.auto.create.topics"}, Kind: Mapped,
			Option: "allow-auto-topic-creation", Meaning: "false: ask the brokers not to create a missing topic", Parse: parseBool, Example: "false"},
		{Java: []string{"max.block.ms"}, Kind: Mapped, Option: "bootstrap-timeout",
			Meaning: "bound the wait for the cluster's metadata, in ms: with an unreachable cluster, the bootstrap timeout", Parse: parseMillis, Example: "15000"},
		{Java: []string{"transactional.id"}, Librdkafka: []string{"transactional.id"}, Kind: Mapped,
			Option: "transactional-id", Meaning: "produce the input as one transaction with this id", Example: "load-1"},
		{Java: []string{"transaction.timeout.ms"}, Librdkafka: []string{"transaction.timeout.ms"}, Kind: Mapped,
			Option: "transaction-timeout", Meaning: "the coordinator aborts a transaction open longer than this many ms",
			Parse: parseMillis, Example: "30000"},
		{Java: []string{"partitioner.class"}, Kind: Mapped, Option: "partitioner",
			Meaning: "DefaultPartitioner (murmur2) or RoundRobinPartitioner; other classes are refused", Parse: parsePartitionerClass,
			Example: "org.apache.kafka.clients.producer.RoundRobinPartitioner"},
		{Librdkafka: []string{"partitioner"}, Kind: Mapped, Option: "partitioner",
			Meaning: "murmur2_random, murmur2, consistent_random (crc32), consistent, random, fnv1a_random, fnv1a",
			Parse:   parseLibrdkafkaPartitioner, Example: "consistent_random"},
		{Librdkafka: []string{"debug"}, Kind: Mapped, Option: "log-level",
			Meaning: "any librdkafka debug context: debug logs on stderr", Parse: parseDebug, Example: "broker,topic"},
	}
}

// rpkProperties are rpk's -X names of kproduce's connection options: they
// set them directly, as rpk does (no security.protocol).
func rpkProperties() []Setting {
	return []Setting{
		{Rpk: []string{"tls.enabled"}, Kind: Mapped, Option: "tls", Meaning: "true: TLS", Parse: parseBool, Example: "true"},
		{Rpk: []string{"tls.ca"}, Kind: Mapped, Option: "tls-ca", Meaning: "PEM file of the CAs to trust (implies TLS)", Example: "ca.pem"},
		{Rpk: []string{"tls.cert"}, Kind: Mapped, Option: "tls-cert", Meaning: "PEM file of the client certificate", Example: "client.pem"},
		{Rpk: []string{"tls.key"}, Kind: Mapped, Option: "tls-key", Meaning: "PEM file of the client certificate's key", Example: "client.key"},
		{Rpk: []string{"tls.insecure_skip_verify"}, Kind: Mapped, Option: "tls-insecure-skip-verify",
			Meaning: "true: accept any broker certificate", Parse: parseBool, Example: "true"},
		{Rpk: []string{"user"}, Kind: Mapped, Option: "sasl-username", Meaning: "SASL user name", Example: "alice"},
		{Rpk: []string{"pass"}, Kind: Mapped, Option: "sasl-password", Meaning: "SASL password; with sasl.mechanism=OAUTHBEARER, the token (token:JWT or the bare JWT)",
			Example: "s3cret", Secret: Secret},
	}
}

// securityProperties are the TLS and SASL properties, read together by
// ResolveSecurity.
func securityProperties() []Setting {
	return []Setting{
		{Java: []string{"security.protocol"}, Librdkafka: []string{"security.protocol"}, Kind: Security, Option: "tls",
			Meaning: "PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL: whether the ssl.* and sasl.* properties apply", Example: "SSL"},
		{Java: []string{"sasl.mechanism"}, Librdkafka: []string{"sasl.mechanism", "sasl.mechanisms"}, Rpk: []string{"sasl.mechanism"}, Kind: Security,
			Option: "sasl-mechanism", Meaning: "PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, GSSAPI (the default with a SASL security.protocol), OAUTHBEARER or AWS_MSK_IAM",
			Example: "SCRAM-SHA-256"},
		{Java: []string{"sasl.jaas.config"}, Kind: Security,
			Option: "sasl-username, sasl-password, kerberos-keytab, kerberos-principal, oauth-client-id, oauth-client-secret, oauth-scope, oauth-extension, aws-profile, aws-role-arn",
			Meaning: "PlainLoginModule or ScramLoginModule (username, password), Krb5LoginModule (useKeyTab and keyTab, or useTicketCache), " +
				"OAuthBearerLoginModule (clientId, clientSecret, scope, extension_NAME; unsecuredLoginStringClaim_sub for an unsecured JWT) " +
				"or IAMLoginModule (awsProfileName, awsRoleArn, awsRoleSessionName)", Secret: SecretOptions},
		{Java: []string{"sasl.kerberos.service.name"}, Librdkafka: []string{"sasl.kerberos.service.name"}, Kind: Security,
			Option: "kerberos-service-name", Meaning: "GSSAPI: the brokers' service name (their principal is NAME/HOST@REALM)", Example: "kafka-prod"},
		{Librdkafka: []string{"sasl.kerberos.principal"}, Kind: Security, Option: "kerberos-principal",
			Meaning: "GSSAPI: the client principal", Example: "client@EXAMPLE.COM"},
		{Librdkafka: []string{"sasl.kerberos.keytab"}, Kind: Security, Option: "kerberos-keytab",
			Meaning: "GSSAPI: the keytab kproduce logs in with", Example: "client.keytab"},
		{Java: []string{"sasl.kerberos.min.time.before.relogin"}, Librdkafka: []string{"sasl.kerberos.min.time.before.relogin"}, Kind: Security,
			Option: "kerberos-min-time-before-relogin", Meaning: "GSSAPI: log in again at most every this many ms", Example: "120000"},
		{Java: []string{"sasl.kerberos.kinit.cmd"}, Librdkafka: []string{"sasl.kerberos.kinit.cmd"}, Kind: Security,
			Meaning: "accepted and not run (one warning): kproduce logs in to Kerberos itself"},
		{Librdkafka: []string{"sasl.username"}, Kind: Security, Option: "sasl-username", Meaning: "SASL user name", Example: "alice"},
		{Librdkafka: []string{"sasl.password"}, Kind: Security, Option: "sasl-password", Meaning: "SASL password", Example: "s3cret", Secret: Secret},
		{Java: []string{"sasl.oauthbearer.token.endpoint.url"}, Librdkafka: []string{"sasl.oauthbearer.token.endpoint.url"}, Kind: Security,
			Option: "oauth-token-endpoint", Meaning: "OAUTHBEARER: the token endpoint of the client credentials grant; Java's file:///path reads the token from a file (--sasl-token-file)",
			Secret: URLPasswords},
		{Librdkafka: []string{"sasl.oauthbearer.method"}, Kind: Security,
			Meaning: "oidc: the client credentials grant (needs the token endpoint); default needs enable.sasl.oauthbearer.unsecure.jwt=true"},
		{Java: []string{"sasl.oauthbearer.client.credentials.client.id"}, Librdkafka: []string{"sasl.oauthbearer.client.id"}, Kind: Security,
			Option: "oauth-client-id", Meaning: "OAUTHBEARER: the client id"},
		{Java: []string{"sasl.oauthbearer.client.credentials.client.secret"}, Librdkafka: []string{"sasl.oauthbearer.client.secret"}, Kind: Security,
			Option: "oauth-client-secret", Meaning: "OAUTHBEARER: the client secret", Secret: Secret},
		{Java: []string{"sasl.oauthbearer.scope"}, Librdkafka: []string{"sasl.oauthbearer.scope"}, Kind: Security,
			Option: "oauth-scope", Meaning: "OAUTHBEARER: the scope asked for"},
		{Librdkafka: []string{"sasl.oauthbearer.extensions"}, Kind: Security, Option: "oauth-extension",
			Meaning: "OAUTHBEARER: SASL extensions, key=value,key=value (Confluent Cloud's logicalCluster and identityPoolId)"},
		{Librdkafka: []string{"https.ca.location"}, Kind: Security, Option: "oauth-ca", Meaning: "PEM file of the CAs of the token endpoint (probe: the system's)"},
		{Librdkafka: []string{"enable.sasl.oauthbearer.unsecure.jwt"}, Kind: Security, Option: "sasl-unsecured-jwt",
			Meaning: "true: an unsigned JWT made from sasl.oauthbearer.config (development only)"},
		{Librdkafka: []string{"sasl.oauthbearer.config"}, Kind: Security, Option: "sasl-unsecured-jwt",
			Meaning: "the unsecured JWT: principal=NAME [lifeSeconds=N] [scope=a,b] [principalClaimName=] [scopeClaimName=] [extension_NAME=value]"},
		{Java: []string{"sasl.login.callback.handler.class"}, Kind: Security,
			Meaning: "OAuthBearerLoginCallbackHandler: the token endpoint's client credentials grant; other classes are refused"},
		{Java: []string{"sasl.client.callback.handler.class"}, Kind: Security,
			Meaning: "software.amazon.msk.auth.iam.IAMClientCallbackHandler for AWS_MSK_IAM; other classes are refused"},
		{Java: []string{"sasl.login.connect.timeout.ms"}, Kind: Security, Option: "oauth-connect-timeout", Meaning: "OAUTHBEARER: connect timeout of the token endpoint, ms"},
		{Java: []string{"sasl.login.read.timeout.ms"}, Kind: Security, Option: "oauth-read-timeout", Meaning: "OAUTHBEARER: read timeout of the token endpoint, ms"},
		{Java: []string{"sasl.login.retry.backoff.ms"}, Kind: Security, Option: "oauth-retry-backoff", Meaning: "OAUTHBEARER: first wait before retrying the token endpoint, ms"},
		{Java: []string{"sasl.login.retry.backoff.max.ms"}, Kind: Security, Option: "oauth-retry-backoff-max", Meaning: "OAUTHBEARER: longest wait before retrying the token endpoint, ms"},
		{Java: []string{"ssl.truststore.location"}, Kind: Security, Option: "tls-truststore",
			Meaning: "trust store of the CAs to trust: PKCS12, JKS or PEM (the content decides)"},
		{Librdkafka: []string{"ssl.ca.location"}, Kind: Security, Option: "tls-ca",
			Meaning: "PEM file of the CAs to trust (probe: the system's)"},
		{Java: []string{"ssl.truststore.type", "ssl.keystore.type"}, Kind: Security,
			Meaning: "PKCS12 (the default), JKS or PEM: checked; the store's content decides how it is read", Example: "JKS"},
		{Java: []string{"ssl.keystore.location"}, Librdkafka: []string{"ssl.keystore.location"}, Kind: Security, Option: "tls-keystore",
			Meaning: "key store of the client certificate and its key: PKCS12, JKS or PEM (the content decides)"},
		{Librdkafka: []string{"ssl.certificate.location"}, Kind: Security, Option: "tls-cert", Meaning: "PEM file of the client certificate"},
		{Librdkafka: []string{"ssl.key.location"}, Kind: Security, Option: "tls-key", Meaning: "PEM file of the client certificate's key"},
		{Java: []string{"ssl.key.password"}, Librdkafka: []string{"ssl.key.password"}, Kind: Security, Option: "tls-key-password",
			Meaning: "password of an encrypted key (a key store's key: when it differs from the store's)", Example: "s3cret", Secret: Secret},
		{Java: []string{"ssl.endpoint.identification.algorithm"}, Librdkafka: []string{"ssl.endpoint.identification.algorithm"},
			Kind: Security, Meaning: "https verifies the broker's host name; empty (Java) or none (librdkafka) verifies only the chain"},
		{Librdkafka: []string{"enable.ssl.certificate.verification"}, Kind: Security, Option: "tls-insecure-skip-verify",
			Meaning: "false accepts any broker certificate", Example: "false"},
		{Java: []string{"ssl.keystore.password"}, Librdkafka: []string{"ssl.keystore.password"}, Kind: Security,
			Option: "tls-keystore-password", Meaning: "password of the key store", Example: "s3cret", Secret: Secret},
		{Java: []string{"ssl.truststore.password"}, Kind: Security, Option: "tls-truststore-password",
			Meaning: "password of the trust store", Example: "s3cret", Secret: Secret},
		{Java: []string{"ssl.truststore.certificates", "ssl.keystore.certificate.chain"},
			Librdkafka: []string{"ssl.ca.pem", "ssl.certificate.pem"}, Kind: Security,
			Meaning: "PEM in the property: refused (put it in a file and give its location)"},
		{Java: []string{"ssl.keystore.key"}, Librdkafka: []string{"ssl.key.pem"}, Kind: Security,
			Meaning: "PEM key in the property: refused (put it in a file and give its location)", Secret: Secret},
	}
}

// readerProperties are kafka-console-producer's line reader properties
// (--property, --reader-property), read together by ResolveReader.
func readerProperties() []Setting {
	return []Setting{
		{Java: []string{"parse.key"}, Kind: Reader, Option: "key-delimiter",
			Meaning: "true: each line holds a key before key.separator", Example: "true"},
		{Java: []string{"key.separator"}, Kind: Reader, Option: "key-delimiter",
			Meaning: "what separates the key from the value (default a tab)", Example: ":"},
		{Java: []string{"parse.headers"}, Kind: Reader, Option: "header-delimiter",
			Meaning: "true: each line starts with headers before headers.delimiter", Example: "true"},
		{Java: []string{"headers.delimiter"}, Kind: Reader, Option: "header-delimiter",
			Meaning: "what ends the headers (default a tab)", Example: "|"},
		{Java: []string{"headers.separator"}, Kind: Reader, Option: "header-separator",
			Meaning: "what separates two headers (default ,)", Example: ";"},
		{Java: []string{"headers.key.separator"}, Kind: Reader, Option: "header-key-separator",
			Meaning: "what separates a header's key from its value (default :)", Example: "="},
		{Java: []string{"null.marker"}, Kind: Reader, Option: "null",
			Meaning: "a key, value, header value or headers field equal to it is null", Example: "NULL"},
		{Java: []string{"ignore.error"}, Kind: Reader, Option: "require-delimiters",
			Meaning: "true: a line without a separator has no key or headers instead of failing", Example: "true"},
	}
}

// acceptedProperties have no meaning for a producer command line.
func acceptedProperties() []Setting {
	silent := func(names ...string) Setting {
		return Setting{Java: names, Kind: Accepted, Meaning: "no meaning for a command line: kproduce sends bytes"}
	}
	return []Setting{
		silent("key.serializer", "value.serializer"),
		{Java: []string{"interceptor.classes"}, Librdkafka: []string{"plugin.library.paths"}, Kind: Accepted,
			Meaning: "Java classes or C plugins cannot run in kproduce"},
		{Java: []string{"metric.reporters", "metrics.num.samples", "metrics.sample.window.ms", "metrics.recording.level",
			"auto.include.jmx.reporter", "enable.metrics.push"}, Librdkafka: []string{"statistics.interval.ms", "enable.metrics.push"},
			Kind: Accepted, Meaning: "metrics: kproduce --stats prints a summary instead"},
		{Java: []string{"partitioner.ignore.keys"}, Kind: Accepted, Parse: parseFalseOnly,
			Meaning: "false is Java's default; true is refused (kproduce always partitions by key)"},
	}
}

// knobProperties tune performance and have no kproduce equivalent.
func knobProperties() []Setting {
	knob := func(java, rdk []string, meaning string) Setting {
		return Setting{Java: java, Librdkafka: rdk, Kind: Knob, Meaning: meaning}
	}
	return []Setting{
		knob([]string{"send.buffer.bytes", "receive.buffer.bytes"}, []string{"socket.send.buffer.bytes", "socket.receive.buffer.bytes"},
			"the system's socket buffers are used"),
		knob(nil, []string{"batch.num.messages", "queue.buffering.max.messages"}, "batches are bounded by bytes only (--batch-size, --buffer-memory)"),
		knob(nil, []string{"sticky.partitioning.linger.ms"}, "unkeyed records stay on a partition until its batch is sent"),
		knob([]string{"retry.backoff.max.ms"}, []string{"retry.backoff.max.ms"}, "the retry backoff doubles up to 1s"),
		knob([]string{"reconnect.backoff.ms", "reconnect.backoff.max.ms"}, []string{"reconnect.backoff.ms", "reconnect.backoff.max.ms"},
			"reconnects back off from 50ms to 1s"),
		knob([]string{"socket.connection.setup.timeout.ms", "socket.connection.setup.timeout.max.ms"},
			[]string{"socket.connection.setup.timeout.ms"}, "a connection is set up within 10s, at most 30s"),
		knob([]string{"connections.max.idle.ms", "metadata.max.idle.ms"}, []string{"connections.max.idle.ms"}, "connections stay open for the run"),
		knob(nil, []string{"socket.timeout.ms", "socket.keepalive.enable", "socket.nagle.disable"}, "--request-timeout bounds every request"),
		knob([]string{"partitioner.adaptive.partitioning.enable", "partitioner.availability.timeout.ms"}, nil,
			"unkeyed records are spread by the sticky partitioner"),
	}
}
