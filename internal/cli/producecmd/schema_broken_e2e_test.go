package producecmd_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A registry, or a proxy in front of it, that answers junk stops the run
// with one line naming the registry: an HTML page is clipped and quoted
// (its escape sequences never reach the terminal), an answer over the
// limit is said to be one, a relative redirect loop names the registry.
func TestSchemaRegistryBrokenAnswers(t *testing.T) {
	page := "<html>\x1b[31mRED\x1b[0m\n" + strings.Repeat("<p>bad gateway</p>\n", 2000) + "</html>"
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request)
		want   string
	}{
		{"proxy page", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte(page))
		}, `schema id 1: HTTP 502, error code 0: "<html>\x1b[31mRED\x1b[0m\n<p>bad gateway</p>\n`},
		{"huge answer", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"schema":"` + strings.Repeat("a", 17<<20) + `"}`))
		}, "schema id 1: unable to read response body from GET \"" + "http"},
		{"redirect loop", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
		}, "/schemas/ids/1: schema id 1: stopped after 10 redirects"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newSREnv(t)
			e.reg.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
				tc.answer(w, r)
				return true
			})
			run := e.produceSR(t, `{"s":"x"}`+"\n", "-t", "t", "--schema-registry", e.url(), "--value-schema-id", "1")
			assert.Equal(t, 1, run.Code)
			assert.Contains(t, run.Stderr, "error: schema registry "+e.url())
			assert.Contains(t, run.Stderr, tc.want)
			assert.Equal(t, 1, strings.Count(run.Stderr, "\n"), "one message: %.300s", run.Stderr)
			assert.Less(t, len(run.Stderr), 2000)
			assert.NotContains(t, run.Stderr, "\x1b")
			if tc.name == "huge answer" {
				assert.Contains(t, run.Stderr, "the answer is larger than 16777216 bytes")
			}
			assert.Zero(t, e.endOffset(t, "t"), "nothing produced")
		})
	}
}
