package schema

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFloat64MatchesStrconv(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := []string{"0", "-0", "1", "0.1", "74606.97", "-1234.5678", "123456789012345", "1234567890123456", "9007199254740993",
		"1e3", "2.5E-3", "0.000000000000000000001", "179769313486231570000000000000000000000"}
	for range 20000 {
		cases = append(cases, strconv.FormatFloat(r.Float64()*math.Pow(10, float64(r.IntN(20)-5)), 'f', r.IntN(12), 64))
	}
	for _, c := range cases {
		want, werr := strconv.ParseFloat(c, 64)
		got, err := parseFloat64([]byte(c))
		require.Equal(t, werr == nil, err == nil, c)
		assert.Equal(t, math.Float64bits(want), math.Float64bits(got), c)
	}
}
