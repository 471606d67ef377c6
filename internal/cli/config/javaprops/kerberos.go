package javaprops

import (
	"fmt"
	"strconv"
	"strings"
)

// readKerberos maps the sasl.kerberos.* properties (librdkafka's and
// Java's names). kproduce logs in itself: a kinit command is accepted
// and not run, with a warning.
func (js *SecuritySettings) readKerberos(props map[string]string) {
	for prop, option := range map[string]string{"sasl.kerberos.service.name": "kerberos-service-name",
		"sasl.kerberos.principal": "kerberos-principal", "sasl.kerberos.keytab": "kerberos-keytab"} {
		if v, ok := props[prop]; ok {
			js.add(option, strings.TrimSpace(v), prop)
		}
	}
	if v, ok := props["sasl.kerberos.min.time.before.relogin"]; ok {
		if ms, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && ms >= 0 {
			js.add("kerberos-min-time-before-relogin", strconv.FormatInt(ms, 10)+"ms", "sasl.kerberos.min.time.before.relogin")
		} else {
			js.Warnings = append(js.Warnings, fmt.Sprintf("sasl.kerberos.min.time.before.relogin %q is not a number of milliseconds; ignored", v))
		}
	}
	if _, ok := props["sasl.kerberos.kinit.cmd"]; ok {
		js.Warnings = append(js.Warnings, "sasl.kerberos.kinit.cmd is not run: kproduce logs in to Kerberos itself"+
			" (with sasl.kerberos.keytab, or the ticket cache of your own kinit)")
	}
}

// readKrb5JAAS maps Java's Kerberos login module: useKeyTab with keyTab,
// principal, useTicketCache with ticketCache. It implies GSSAPI.
func (js *SecuritySettings) readKrb5JAAS(jaas *JAASConfig) error {
	opt := func(name string) (string, bool) {
		for k, v := range jaas.Options {
			if strings.EqualFold(k, name) {
				return v, true
			}
		}
		return "", false
	}
	js.add("sasl-mechanism", "GSSAPI", "sasl.jaas.config")
	if p, ok := opt("principal"); ok {
		js.add("kerberos-principal", p, "sasl.jaas.config")
	}
	useKeyTab, _ := opt("useKeyTab")
	keyTab, hasKeyTab := opt("keyTab")
	switch {
	case strings.EqualFold(useKeyTab, "true") && !hasKeyTab:
		return fmt.Errorf("sasl.jaas.config: Krb5LoginModule useKeyTab=true needs keyTab=\"FILE\"")
	case strings.EqualFold(useKeyTab, "true"):
		js.add("kerberos-keytab", keyTab, "sasl.jaas.config")
	}
	if cache, ok := opt("ticketCache"); ok {
		js.add("kerberos-ccache", cache, "sasl.jaas.config")
	}
	useCache, _ := opt("useTicketCache")
	if !strings.EqualFold(useKeyTab, "true") && !strings.EqualFold(useCache, "true") {
		return fmt.Errorf("sasl.jaas.config: Krb5LoginModule needs useKeyTab=true with keyTab=\"FILE\", or useTicketCache=true" +
			" (kproduce cannot prompt for a password)")
	}
	return nil
}
