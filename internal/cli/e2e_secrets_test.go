package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kproduce/kproduce/internal/cli/config/javaprops"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// secretCase is one secret property and a value for it that holds secret.
type secretCase struct {
	name, value, secret string
}

// secretCases are every secret-bearing name of the property table (Java's,
// librdkafka's and rpk's) and secret names the table does not hold, each
// with a value holding a secret of its own. The JAAS value has a Latin-1
// user name before its password.
func secretCases(latin1 bool) []secretCase {
	names := []string{"schema.registry.basic.auth.user.info", "schema.registry.ssl.keystore.password"}
	for _, p := range javaprops.Table() {
		if p.Secret != javaprops.Public {
			names = append(names, p.Names()...)
		}
	}
	user := "Jürgen"
	if latin1 {
		user = "J\xfcrgen"
	}
	var cases []secretCase
	for i, name := range names {
		secret := fmt.Sprintf("S3CRET%02dX", i)
		value := secret
		switch {
		case javaprops.SecrecyOf(name) == javaprops.SecretOptions:
			value = `org.apache.kafka.common.security.plain.PlainLoginModule required username="` + user + `" password="` + secret + `";`
		case name == "basic.auth.user.info":
			value = "user:" + secret // USER:PASSWORD
		case javaprops.SecrecyOf(name) == javaprops.URLPasswords:
			value = "https://" + user + ":" + secret + "@idp.example/token"
		}
		cases = append(cases, secretCase{name: name, value: value, secret: secret})
	}
	return cases
}

// arrival is one way a property reaches kproduce: the arguments (and the
// environment) that give it.
type arrival struct {
	name string
	// commandLine: kproduce config shows the property itself.
	commandLine bool
	give        func(t *testing.T, c secretCase) []string
}

func arrivals() []arrival {
	return []arrival{
		{"-X", true, func(_ *testing.T, c secretCase) []string { return []string{"-X", c.name + "=" + c.value} }},
		{"--property", true, func(_ *testing.T, c secretCase) []string { return []string{"--property", c.name + "=" + c.value} }},
		{"--producer-property", true, func(_ *testing.T, c secretCase) []string {
			return []string{"--producer-property", c.name + "=" + c.value}
		}},
		{"KPRODUCE_PROPERTY", true, func(t *testing.T, c secretCase) []string {
			t.Setenv("KPRODUCE_PROPERTY", c.name+"="+c.value)
			return nil
		}},
		{"YAML", false, func(t *testing.T, c secretCase) []string {
			yaml := "property:\n  - '" + strings.ReplaceAll(c.name+"="+c.value, "'", "''") + "'\n"
			return []string{"--config", kafkatest.WriteFile(t, t.TempDir(), "config.yaml", []byte(yaml))}
		}},
		{"properties file", false, func(t *testing.T, c secretCase) []string {
			return []string{"--config", kafkatest.WriteFile(t, t.TempDir(), "producer.properties", []byte(c.name+"="+c.value+"\n"))}
		}},
	}
}

// TestSecretsNeverShown gives every secret property in every way a
// property arrives and checks kproduce config, config --json, the debug
// log of a (dry) run and the errors of a run that fails: the secret is
// never shown, whatever else is.
func TestSecretsNeverShown(t *testing.T) {
	for _, latin1 := range []bool{false, true} {
		for _, sc := range secretCases(latin1) {
			for _, a := range arrivals() {
				if latin1 && a.name == "YAML" {
					continue // YAML is UTF-8
				}
				t.Run(fmt.Sprintf("%s/%s/latin1=%v", sc.name, a.name, latin1), func(t *testing.T) {
					give := a.give(t, sc)
					runs := map[string][]string{
						"config":          append([]string{"config"}, give...),
						"config --json":   append([]string{"config", "--json"}, give...),
						"debug log":       append([]string{"-t", "t", "--dry-run", "--partitions", "2", "--log-level", "debug"}, give...),
						"usage error":     append([]string{"-t", "t", "--linger", "soon", "--log-level", "debug"}, give...),
						"with SASL_SSL":   append([]string{"config", "-X", "security.protocol=SASL_SSL", "-X", "sasl.mechanism=PLAIN", "--log-level", "debug"}, give...),
						"with SSL, a run": append([]string{"-t", "t", "--dry-run", "--partitions", "2", "-X", "security.protocol=SSL", "--log-level", "trace"}, give...),
						"SASL_SSL, a run": append([]string{"-t", "t", "--dry-run", "--partitions", "2", "-X", "security.protocol=SASL_SSL", "--sasl-mechanism", "PLAIN", "--sasl-username", "u", "--log-level", "trace"}, give...),
					}
					for what, args := range runs {
						r := runKproduce(t, strings.NewReader("x\n"), args...)
						if strings.Contains(r.Stdout+r.Stderr, sc.secret) {
							t.Errorf("%s: kproduce %q shows the secret:\n%s%s", what, args, r.Stdout, r.Stderr)
						}
						if what == "config" && a.commandLine && !strings.Contains(r.Stdout, sc.name+"="+javaprops.Redacted) &&
							!strings.Contains(r.Stdout, `password="`+javaprops.Redacted+`"`) && !strings.Contains(r.Stdout, ":"+javaprops.Redacted+"@") {
							t.Errorf("%s: kproduce %q does not show the property redacted:\n%s%s", what, args, r.Stdout, r.Stderr)
						}
					}
				})
			}
		}
	}
}
