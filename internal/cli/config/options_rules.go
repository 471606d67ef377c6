package config

import (
	"fmt"
	"strconv"

	"github.com/kproduce/kproduce/pkg/sender"
)

// The rules the Java client applies between options, applied after they
// are read.

// applyIdempotenceRules follows the Java client: idempotence needs
// acks=all, so with acks 0 or 1 it is off unless explicitly asked for, and
// asking for both is an error; it also caps the in-flight requests at 5.
func (o *Options) applyIdempotenceRules(explicit bool) error {
	if o.Acks != sender.AllAcks {
		if explicit && o.Idempotence {
			return fmt.Errorf("--idempotence needs --acks all (got --acks %d); set --idempotence=false", o.Acks)
		}
		o.Idempotence = false
	}
	if o.Idempotence && o.MaxInFlight > sender.MaxInFlightIdempotent {
		return fmt.Errorf("--max-in-flight %d is more than %d, the most an idempotent producer may have; lower it or set --idempotence=false",
			o.MaxInFlight, sender.MaxInFlightIdempotent)
	}
	return nil
}

// applyRetryRules follows the Java client: idempotence needs retries, so
// with retries 0 it is off unless explicitly asked for, and asking for
// both is an error.
func (o *Options) applyRetryRules(explicitIdempotence bool) error {
	if o.Retries != 0 {
		return nil
	}
	if explicitIdempotence && o.Idempotence {
		return fmt.Errorf("--idempotence needs retries: drop --retries 0 (retries=0) or set --idempotence=false")
	}
	o.Idempotence = false
	return nil
}

// applyTransactionRules follows the Java client: a transactional producer
// is idempotent, so it needs acks=all and idempotence left on.
// --transaction-records needs --transactional-id.
func (o *Options) applyTransactionRules(explicitIdempotence bool) error {
	if o.TransactionalID == "" {
		if o.TransactionRecords > 0 {
			return fmt.Errorf("--transaction-records needs --transactional-id")
		}
		if o.Resume {
			return fmt.Errorf("--resume needs --transactional-id: an idempotent producer deduplicates retries within one run only, " +
				"so only transactions can tell a later run what an interrupted one committed")
		}
		return nil
	}
	if o.Resume && o.DryRun {
		return fmt.Errorf("--resume cannot be used with --dry-run")
	}
	if o.Resume && o.ResumeTopic == "" {
		return fmt.Errorf("--resume-topic must name a topic")
	}
	if o.Acks != sender.AllAcks {
		return fmt.Errorf("--transactional-id needs --acks all (got --acks %d)", o.Acks)
	}
	if o.Retries == 0 {
		return fmt.Errorf("--transactional-id needs retries: drop --retries 0 (retries=0)")
	}
	if explicitIdempotence && !o.Idempotence {
		return fmt.Errorf("--transactional-id needs idempotence: drop --idempotence=false")
	}
	o.Idempotence = true
	return nil
}

// fitRequestTimeout lowers the request timeout so that a record's linger
// and one request fit in its delivery timeout; it returns a warning when it
// did and the user set both timeouts (a short delivery timeout alone
// lowers the default request timeout silently).
func (o *Options) fitRequestTimeout(bothSet bool) (string, error) {
	if o.DeliveryTimeout >= o.RequestTimeout+o.Linger {
		return "", nil
	}
	if o.DeliveryTimeout <= o.Linger {
		return "", fmt.Errorf("--delivery-timeout %s must be longer than --linger %s", o.DeliveryTimeout, o.Linger)
	}
	was := o.RequestTimeout
	o.RequestTimeout = o.DeliveryTimeout - o.Linger
	if !bothSet {
		return "", nil
	}
	return fmt.Sprintf("--delivery-timeout %s is shorter than --request-timeout %s + --linger %s: request timeout lowered to %s",
		o.DeliveryTimeout, was, o.Linger, o.RequestTimeout), nil
}

// derivation says how the rules above changed an option from the value
// its layers (flags, environment, config file, default) gave: the
// effective value and its cause ("acks=1"); cause is "" when no rule
// changed it.
func (o *Options) derivation(key string, vals optionValues) (value, cause string) {
	r := &optionReader{vals: vals}
	switch key {
	case "idempotence":
		if r.boolean(key) == o.Idempotence {
			return "", ""
		}
		switch {
		case o.Acks != sender.AllAcks:
			cause = fmt.Sprintf("acks=%d", o.Acks)
		case o.Retries == 0:
			cause = "retries=0"
		}
		return strconv.FormatBool(o.Idempotence), cause
	case "request-timeout":
		if r.duration(key, true) == o.RequestTimeout {
			return "", ""
		}
		return o.RequestTimeout.String(), fmt.Sprintf("delivery-timeout %s - linger %s", o.DeliveryTimeout, o.Linger)
	}
	return "", ""
}
