package javaprops

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseProperties(t *testing.T) {
	text := "# a comment\n" +
		"! another comment\n" +
		"\n" +
		"   \t\n" +
		"bootstrap.servers=a:9092,b:9092\n" +
		"acks : all\n" +
		"linger.ms 20\n" +
		"  client.id\t=\tmy client  \n" +
		"sasl.jaas.config=org.example.Plain required \\\n" +
		"    username=\"u\" \\\n" +
		"    password=\"p\";\n" +
		"key\\ with\\:escapes\\=x = v\\tw\\u00e9\\ud83d\\ude00\\q\n" +
		"empty=\n" +
		"novalue\n" +
		"even.backslashes=a\\\\\n" +
		"next=b\r\n" +
		"cr.only=c\r" +
		"# comment \\\n" +
		"after.comment=d\n" +
		"last=end\\"
	props, err := ParseProperties(text)
	require.NoError(t, err)
	got := map[string]string{}
	lines := map[string]int{}
	for _, p := range props {
		got[p.Key] = p.Value
		lines[p.Key] = p.Line
	}
	assert.Equal(t, map[string]string{
		"bootstrap.servers":  "a:9092,b:9092",
		"acks":               "all",
		"linger.ms":          "20",
		"client.id":          "my client  ",
		"sasl.jaas.config":   `org.example.Plain required username="u" password="p";`,
		"key with:escapes=x": "v\tw\u00e9\U0001F600q",
		"empty":              "",
		"novalue":            "",
		"even.backslashes":   `a\`,
		"next":               "b",
		"cr.only":            "c",
		"after.comment":      "d",
		"last":               "end",
	}, got)
	assert.Equal(t, 5, lines["bootstrap.servers"])
	assert.Equal(t, 9, lines["sasl.jaas.config"])
}

func TestParsePropertiesOrderAndRepeats(t *testing.T) {
	props, err := ParseProperties("a=1\nb=2\na=3\n")
	require.NoError(t, err)
	require.Len(t, props, 3)
	assert.Equal(t, Property{Key: "a", Value: "3", Line: 3}, props[2])
}

func TestParsePropertiesBadUnicode(t *testing.T) {
	for _, text := range []string{`a=\u12`, `a=\uzzzz`, `\u00=x`} {
		_, err := ParseProperties(text)
		assert.ErrorIs(t, err, ErrBadProperties, text)
	}
}
