// Package fsutil reads the small files kproduce is handed (config files,
// certificates and keys) with a bound on their size, so that a path
// pointing at something huge (a device, a log) fails with a clear error
// instead of filling memory.
package fsutil

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// TooLargeError is the error of ReadFile for a file over its limit.
type TooLargeError struct {
	Path  string
	Limit int64
}

// Error names the file and the limit.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d bytes", e.Path, e.Limit)
}

// IsTooLarge reports whether err is, or wraps, a *TooLargeError.
func IsTooLarge(err error) bool {
	var tl *TooLargeError
	return errors.As(err, &tl)
}

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
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return data, nil
}
