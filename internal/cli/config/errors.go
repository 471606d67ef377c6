package config

import "github.com/kproduce/kproduce/internal/cli/config/javaprops"

// ErrBadValue is wrapped by every error about an option value that does
// not parse or is out of range; the Java properties' errors wrap the same.
var ErrBadValue = javaprops.ErrBadValue
