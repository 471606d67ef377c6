package versioncmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
)

// runVersion runs the command, built alone, with args and returns what it
// printed on stdout and stderr and its error.
func runVersion(out *bytes.Buffer, args ...string) (string, error) {
	var errOut bytes.Buffer
	cmd := NewCommand(cmdutil.Streams{In: strings.NewReader(""), Out: out, Err: &errOut})
	cmd.SetArgs(append([]string{}, args...)) // never nil: cobra would read os.Args
	err := cmd.Execute()
	return errOut.String(), err
}

// TestNewCommand: kproduce version prints Read() as text or JSON; a bad
// -o is a usage error; a stdout that cannot be written fails the command.
func TestNewCommand(t *testing.T) {
	var out bytes.Buffer
	stderr, err := runVersion(&out)
	require.NoError(t, err)
	assert.Empty(t, stderr)
	assert.Equal(t, Read().String(), out.String())

	out.Reset()
	_, err = runVersion(&out, "-o", "json")
	require.NoError(t, err)
	var got Info
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	assert.Equal(t, Read(), got)

	out.Reset()
	_, err = runVersion(&out, "-o", "yaml")
	require.Error(t, err)
	assert.True(t, cmdutil.IsUsageError(err), "%v", err)
	assert.Empty(t, out.String())

	cmd := NewCommand(cmdutil.Streams{In: strings.NewReader(""), Out: failingWriter{}, Err: &out})
	cmd.SetArgs([]string{})
	cmdErr := cmd.Execute()
	require.Error(t, cmdErr)
	assert.Contains(t, cmdErr.Error(), "writing the version: ")
	assert.Equal(t, cmdutil.ExitFailed, cmdutil.ExitCode(cmdErr))
}

// failingWriter fails every write, as a closed stdout does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }
