package perfcmd

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestExpandArgs(t *testing.T) {
	tests := map[string]struct{ in, want []string }{
		"several values": {
			[]string{"--topic", "t", "--producer-props", "acks=1", "linger.ms=5", "--num-records", "10"},
			[]string{"--topic", "t", "--producer-props=acks=1", "--producer-props=linger.ms=5", "--num-records", "10"},
		},
		"first value inline": {
			[]string{"--producer-props=acks=1", "batch.size=10", "-t", "t"},
			[]string{"--producer-props=acks=1", "--producer-props=batch.size=10", "-t", "t"},
		},
		"at the end": {
			[]string{"-t", "t", "--command-property", "a=1", "b=2"},
			[]string{"-t", "t", "--command-property=a=1", "--command-property=b=2"},
		},
		"twice": {
			[]string{"--producer-props", "a=1", "--producer-props", "b=2", "c=3"},
			[]string{"--producer-props=a=1", "--producer-props=b=2", "--producer-props=c=3"},
		},
		"an entry without =": {
			[]string{"--producer-props", "acks=1", "linger"},
			[]string{"--producer-props=acks=1", "--producer-props=linger"},
		},
		"no value": {
			[]string{"--producer-props", "--topic", "t"},
			[]string{"--producer-props", "--topic", "t"},
		},
		"after --": {
			[]string{"-t", "t", "--", "--producer-props", "a=1"},
			[]string{"-t", "t", "--", "--producer-props", "a=1"},
		},
		"other flags untouched": {
			[]string{"-X", "a=1", "b=2", "--property", "c=3", "--producer-propsx", "d=4"},
			[]string{"-X", "a=1", "b=2", "--property", "c=3", "--producer-propsx", "d=4"},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tt.want, ExpandArgs(tt.in))
		})
	}
}
