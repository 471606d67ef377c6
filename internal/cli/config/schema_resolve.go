package config

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/cli/input"
	"github.com/kproduce/kproduce/internal/cli/report"
	"github.com/kproduce/kproduce/internal/schema"
	"github.com/kproduce/kproduce/internal/tlsconf"
)

// ResolveSchemas registers or looks up the key's and value's schemas
// before anything is produced, once each, and sets the input's encoders
// and the json reports' schema ids. A dry run registers nothing: it says
// on stderr what it would register. Without schemas it does nothing.
// The registry's failures (unreachable, credentials refused, unknown id or
// subject, a schema refused as incompatible or invalid) are errors of the
// run (exit 1); a registered schema that does not compile, or lacks the
// Protobuf message asked for, is a usage error. The wait is bounded by the
// bootstrap timeout (the delivery timeout when 0).
func (o *Options) ResolveSchemas(ctx context.Context, stderr io.Writer) error {
	s := &o.Schemas
	if !s.Enabled() {
		return nil
	}
	cfg := s.Registry
	cfg.UserAgent = "kproduce"
	if s.TLS {
		tc, err := tlsconf.Config{CAFile: s.TLSCA, CertFile: s.TLSCert, KeyFile: s.TLSKey, InsecureSkipVerify: s.TLSInsecureSkipVerify}.Build()
		if err != nil {
			return cmdutil.AsUsageError(fmt.Errorf("--schema-registry-ca/-cert/-key: %w", err))
		}
		cfg.TLS = tc
	}
	reg, err := schema.NewRegistry(cfg)
	if err != nil {
		return cmdutil.AsUsageError(err)
	}
	timeout, bound := o.BootstrapTimeout, "--bootstrap-timeout"
	if timeout <= 0 {
		timeout, bound = o.DeliveryTimeout, "--delivery-timeout"
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res := schema.NewResolver(reg, o.DryRun)
	var ids report.SchemaIDs
	for _, part := range []struct {
		spec  *schema.Spec
		local *schema.Local
		set   *input.Encoder
		id    *int
	}{
		{s.Value, s.ValueLocal, &o.Input.ValueEncoder, &ids.Value},
		{s.Key, s.KeyLocal, &o.Input.KeyEncoder, &ids.Key},
	} {
		if part.spec == nil {
			continue
		}
		enc, err := res.Resolve(ctx, part.spec, part.local, o.Topic)
		if err != nil {
			if errors.Is(err, schema.ErrSchema) {
				return cmdutil.AsUsageError(err)
			}
			var re *schema.RegistryError
			if errors.As(err, &re) && re.Status == 0 && ctx.Err() != nil && parent.Err() == nil {
				re.Err = fmt.Errorf("no answer within %v (%s)", timeout, bound)
			}
			return err
		}
		*part.set, *part.id = enc, enc.ID
		o.noteSchema(stderr, part.spec, enc)
	}
	o.Output = report.WithSchemaIDs(o.Output, ids)
	return nil
}

// noteSchema says which schema a key or value uses: on stderr in a dry
// run, at info level otherwise.
func (o *Options) noteSchema(stderr io.Writer, spec *schema.Spec, enc *schema.Encoder) {
	var msg string
	switch {
	case enc.Action == "would register":
		msg = fmt.Sprintf("%s schema (%s): would register under subject %q", spec.Role, enc.Format, enc.Subject)
	case enc.Subject != "":
		msg = fmt.Sprintf("%s schema (%s): id %d, %s under subject %q", spec.Role, enc.Format, enc.ID, enc.Action, enc.Subject)
	default:
		msg = fmt.Sprintf("%s schema (%s): id %d", spec.Role, enc.Format, enc.ID)
	}
	if o.DryRun {
		fmt.Fprintf(stderr, "dry run: %s\n", msg)
		return
	}
	o.Logger.Info().Msg(msg)
}
