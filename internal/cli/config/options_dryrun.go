package config

import (
	"fmt"
	"math"
)

// readDryRun reads --dry-run and --partitions.
func (r *optionReader) readDryRun(o *Options) {
	o.DryRun = r.boolean("dry-run")
	o.DryRunPartitions = int(r.integer("partitions", 0, math.MaxInt32))
	if o.DryRunPartitions > 0 && !o.DryRun && !r.failed("dry-run") {
		r.fail("partitions", fmt.Errorf("%w: only a --dry-run takes a partition count (a real run asks the cluster)", ErrBadValue))
	}
}
