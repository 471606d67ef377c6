package config

import (
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// connectionOptionNames are the options every subcommand shares with the
// produce command: where the cluster is and how to connect to it.
func connectionOptionNames() []string {
	return []string{
		"brokers", "client-id", "request-timeout", "bootstrap-timeout",
		"tls", "tls-ca", "tls-cert", "tls-key", "tls-key-password",
		"tls-keystore", "tls-keystore-password", "tls-keystore-alias", "tls-truststore", "tls-truststore-password", "tls-server-name", "tls-insecure-skip-verify",
		"sasl-mechanism", "sasl-username", "sasl-password", "sasl-token", "sasl-token-file",
		"oauth-token-endpoint", "oauth-client-id", "oauth-client-secret", "oauth-scope", "oauth-extension", "oauth-ca",
		"oauth-connect-timeout", "oauth-read-timeout", "oauth-retry-backoff", "oauth-retry-backoff-max", "sasl-unsecured-jwt",
		"aws-region", "aws-profile", "aws-role-arn", "aws-role-session-name",
		"kerberos-service-name", "kerberos-principal", "kerberos-keytab", "kerberos-ccache", "kerberos-config", "kerberos-min-time-before-relogin",
		"property", "config", "profile", "log-level",
	}
}

// AddConnectionFlags defines the connection options' flags on fs, with
// the produce command's defaults and help.
func AddConnectionFlags(fs *pflag.FlagSet) { addNamedFlags(fs, connectionOptionNames()) }

// AddSubcommandFlags defines the connection options' flags on a
// subcommand, and makes shell completion offer the values of its
// enumerated flags (its own -o: text or json).
func AddSubcommandFlags(cmd *cobra.Command) {
	AddConnectionFlags(cmd.Flags())
	registerSubcommandChoices(cmd)
}

// LoadConnection resolves a subcommand's connection options and its topic
// (which, like the produce command's, may come from the environment or
// the config file) from the flags fs, defined with AddConnectionFlags. The
// config file may hold the producer's options too: they are accepted and
// not used. Its errors are usage errors.
func LoadConnection(fs *pflag.FlagSet, stderr io.Writer) (*Connection, error) {
	var conn *Connection
	_, err := resolve(fs, stderr, func(vals optionValues) (*Connection, []string, error) {
		c, err := buildConnection(vals)
		conn = c
		return c, nil, err
	})
	if err != nil {
		return nil, err
	}
	return conn, nil
}

// buildConnection reads the connection options and the topic.
func buildConnection(vals optionValues) (*Connection, error) {
	r := &optionReader{vals: vals}
	c := &Connection{}
	r.readBrokers(c)
	c.Topic = strings.TrimSpace(r.str("topic"))
	c.RequestTimeout = r.duration("request-timeout", true)
	c.BootstrapTimeout = r.duration("bootstrap-timeout", false)
	c.ClientID = r.str("client-id")
	r.readLogLevel(c)
	r.readSecurity(c)
	if err := r.err(); err != nil {
		return nil, cmdutil.AsUsageError(err)
	}
	return c, nil
}

// BoundBootstrap tells the connection that its command gives up after
// timeout (a subcommand's --timeout), from now: the notices about the
// bootstrap then announce retries up to that time at most, not up to the
// longer --bootstrap-timeout.
func (c *Connection) BoundBootstrap(timeout time.Duration, now time.Time) {
	if timeout > 0 {
		c.GiveUpAt = now.Add(timeout)
	}
}
