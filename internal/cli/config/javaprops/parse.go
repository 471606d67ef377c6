package javaprops

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ErrNoEquivalent is wrapped by the error of a value kproduce has no
// equivalent for when that value only tunes performance: a warning, not
// an error.
var ErrNoEquivalent = errors.New("no equivalent in kproduce")

// millis converts the value of a *.ms property (a non-negative number of
// milliseconds; librdkafka allows decimals, as in linger.ms=0.5) to a Go
// duration string.
func millis(s string) (string, error) {
	t := strings.TrimSpace(s)
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || math.IsNaN(f) || strings.ContainsAny(t, "eEnNxXpP") {
		return "", fmt.Errorf("%w: not a non-negative number of milliseconds", ErrBadValue)
	}
	if f > float64(math.MaxInt64/int64(time.Millisecond)) {
		return "", fmt.Errorf("%w: too many milliseconds", ErrBadValue)
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		return (time.Duration(n) * time.Millisecond).String(), nil
	}
	return time.Duration(f * float64(time.Millisecond)).String(), nil
}

// parseMillis is millis as a Property parser.
func parseMillis(s string) (string, error) { return millis(s) }

// parsePositiveMillis is millis for a timeout where librdkafka reads 0 as
// no limit, which kproduce cannot do.
func parsePositiveMillis(s string) (string, error) {
	d, err := millis(s)
	if err == nil && d == "0s" {
		return "", fmt.Errorf("%w: 0 (no limit) is not supported; give a number of milliseconds", ErrBadValue)
	}
	return d, err
}

// parseRefreshInterval reads librdkafka's topic.metadata.refresh.interval.ms,
// where -1 turns the periodic refresh off.
func parseRefreshInterval(s string) (string, error) {
	if strings.TrimSpace(s) == "-1" {
		return "", fmt.Errorf("%w: kproduce always refreshes metadata every --metadata-max-age", ErrNoEquivalent)
	}
	return millis(s)
}

// parseCount reads a non-negative integer.
func parseCount(s string) (string, error) {
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseInt(t, 10, 64); err != nil || n < 0 {
		return "", fmt.Errorf("%w: not a non-negative integer", ErrBadValue)
	}
	return t, nil
}

// parseKiB reads a number of KiB as a byte count.
func parseKiB(s string) (string, error) {
	t := strings.TrimSpace(s)
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64>>10 {
		return "", fmt.Errorf("%w: not a number of KiB", ErrBadValue)
	}
	return strconv.FormatInt(n<<10, 10), nil
}

// parseBool reads true or false as both clients do (case-insensitive).
func parseBool(s string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		return "true", nil
	case "false":
		return "false", nil
	}
	return "", fmt.Errorf("%w: want true or false", ErrBadValue)
}

// parseFalseOnly accepts false, the setting's default, and refuses true.
func parseFalseOnly(s string) (string, error) {
	b, err := parseBool(s)
	if err == nil && b == "true" {
		return "", fmt.Errorf("%w: true is not supported: kproduce partitions keyed records by their key (use --partitioner random or round-robin to spread them)", ErrBadValue)
	}
	return b, err
}

// parseCodec reads a compression codec name (librdkafka's are lower case,
// Java's too; inherit, a topic-level librdkafka value, has no meaning
// here).
func parseCodec(s string) (string, error) {
	c := strings.ToLower(strings.TrimSpace(s))
	switch c {
	case "none", "gzip", "snappy", "lz4", "zstd":
		return c, nil
	}
	return "", fmt.Errorf("%w: want none, gzip, snappy, lz4 or zstd", ErrBadValue)
}

// parseLevel reads a compression level: an integer (its codec checks its
// range).
func parseLevel(s string) (string, error) {
	t := strings.TrimSpace(s)
	if _, err := strconv.ParseInt(t, 10, 32); err != nil {
		return "", fmt.Errorf("%w: not an integer level", ErrBadValue)
	}
	return t, nil
}

// codecLevel reads Java's level of one codec (compression.gzip.level...)
// as the --compression-level item CODEC:LEVEL, which applies only when
// that codec is the one used, as in Java.
func codecLevel(codec string) func(string) (string, error) {
	return func(s string) (string, error) {
		t, err := parseLevel(s)
		if err != nil {
			return "", err
		}
		return codec + ":" + t, nil
	}
}

// parseDebug reads librdkafka's debug contexts: any turns debug logs on.
func parseDebug(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("%w: no debug context given", ErrBadValue)
	}
	return "debug", nil
}

// parsePartitionerClass maps Java's partitioner.class onto kproduce's
// partitioners. Classes that place records differently are refused:
// records would go elsewhere than the user's Java producers put them.
func parsePartitionerClass(s string) (string, error) {
	class := strings.TrimSpace(s)
	switch class[strings.LastIndexByte(class, '.')+1:] {
	case "DefaultPartitioner", "BuiltInPartitioner":
		return "murmur2", nil
	case "RoundRobinPartitioner":
		return "round-robin", nil
	case "UniformStickyPartitioner":
		return "", fmt.Errorf("%w: UniformStickyPartitioner (keyed records sticky too) is not supported: use --partitioner random or round-robin", ErrBadValue)
	}
	return "", fmt.Errorf("%w: custom partitioner classes cannot run in kproduce: use --partitioner murmur2, round-robin, random, crc32, consistent or fnv1a", ErrBadValue)
}

// parseLibrdkafkaPartitioner maps librdkafka's partitioner names. With
// librdkafka's sticky partitioning (its default), records with a null key
// are sticky under every partitioner but random, so murmur2 and
// murmur2_random place records alike, as fnv1a and fnv1a_random do.
func parseLibrdkafkaPartitioner(s string) (string, error) {
	switch strings.TrimSpace(s) {
	case "murmur2_random", "murmur2":
		return "murmur2", nil
	case "consistent_random":
		return "crc32", nil
	case "consistent":
		return "consistent", nil
	case "random":
		return "random", nil
	case "fnv1a_random", "fnv1a":
		return "fnv1a", nil
	}
	return "", fmt.Errorf("%w: want murmur2_random, murmur2, consistent_random, consistent, random, fnv1a_random or fnv1a", ErrBadValue)
}
