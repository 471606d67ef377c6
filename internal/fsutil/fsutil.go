// Package fsutil reads the small files kproduce is handed (config files,
// certificates and keys) with a bound on their size, so that a path
// pointing at something huge (a device, a log) fails with a clear error
// instead of filling memory.
package fsutil

import (
	"fmt"
	"io"
	"os"
)

// ReadFile reads a whole file of at most limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return data, nil
}
