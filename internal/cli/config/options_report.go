package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The --progress modes.
const (
	ProgressAuto   = "auto"
	ProgressAlways = "always"
	ProgressNever  = "never"
)

// progressChoices are the values --progress takes.
func progressChoices() []string { return []string{ProgressAuto, ProgressAlways, ProgressNever} }

// readRunReport reads how the run is paced and reported on: --rate,
// --progress, --stats and --stats-json.
func (r *optionReader) readRunReport(o *Options) {
	o.Rate = r.rate("rate")
	o.Progress = r.oneOf("progress", progressChoices()...)
	o.Stats = r.boolean("stats")
	o.StatsJSON = strings.TrimSpace(r.str("stats-json"))
}

// rate reads a records-per-second option: a decimal number, 0 or more.
func (r *optionReader) rate(key string) float64 {
	s := r.str(key)
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		r.failValue(key, s, fmt.Errorf("%w: want a number of records per second, such as 100 or 0.5", ErrBadValue))
		return 0
	case v < 0:
		r.failValue(key, s, fmt.Errorf("%w: must be at least 0", ErrBadValue))
		return 0
	}
	return v
}
