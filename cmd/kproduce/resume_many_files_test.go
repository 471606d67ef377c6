package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/internal/kafkatest"
)

// TestResumeManyFilesUnderALowDescriptorLimit kills a load of 1,460 files
// of 137 lines inside the 803rd, then resumes it with a limit of 64 open
// descriptors: the resumed run checks every committed file (each opened,
// hashed and closed in turn) and the committed part of the one it stopped
// in, which it keeps open and reads on from, then the files after it;
// every line is in the topic exactly once.
func TestResumeManyFilesUnderALowDescriptorLimit(t *testing.T) {
	t.Parallel()
	const perFile, limit = 137, 64
	c := resumeCluster(t)
	dir := t.TempDir()
	for first, i := 1, 0; first <= resumeRecords; first, i = first+perFile, i+1 {
		kafkatest.WriteFile(t, dir, fmt.Sprintf("part-%05d.txt", i), resumeLines(first, min(perFile, resumeRecords-first+1)))
	}
	limited := withFileLimit(limit, dir, "part-*")
	k := armKiller(c, killPoint{key: kmsg.EndTxn, nth: 11}) // 110,000 records: line 126 of part-00802
	_, _ = k.run(t, limited, resumeArgs(c)...)
	require.True(t, k.killed())

	code, stderr := runLoad(t, limited, resumeArgs(c)...)
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	assert.True(t, strings.HasPrefix(stderr, fmt.Sprintf("%d\n", limit)), stderr)
	source, number, committed, ok := resumedAt(stderr)
	require.True(t, ok, stderr)
	assert.Equal(t, "part-00802.txt", source)
	assert.Equal(t, int64(110_000), committed)
	assert.Equal(t, int64(110_000-802*perFile), number)
	assertExactlyOnce(t, c, 1, resumeRecords)
}

// TestResumeManyFilesKilledMidFile kills a load of 8,000 files of 3
// lines, in transactions of 1,000 records, inside the 3,667th file once 11
// transactions were committed, and resumes it: the resumed run checks the
// 3,666 files read to their end (folded into one checkpoint entry) and the
// committed part of the one it stopped in, then reads on; every line is in
// the topic exactly once. (While the checkpoint held an entry per file,
// it outgrew a request at about 5,000 files of these names, and the load
// failed there, at every resumption again.)
func TestResumeManyFilesKilledMidFile(t *testing.T) {
	t.Parallel()
	const n, perFile = 8_000, 3
	c := resumeCluster(t)
	dir := t.TempDir()
	files := make([]string, n)
	for i := range files {
		files[i] = kafkatest.WriteFile(t, dir, fmt.Sprintf("part-%05d.txt", i), resumeLines(i*perFile+1, perFile))
	}
	args := resumeArgs(c, files...)
	chunk := slices.Index(args, "--transaction-records") + 1
	args[chunk] = "1000"
	k := armKiller(c, killPoint{key: kmsg.EndTxn, nth: 11}) // 11,000 records: line 2 of part-03666
	_, _ = k.run(t, nil, args...)
	require.True(t, k.killed())

	code, stderr := runLoad(t, nil, args...)
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	source, number, committed, ok := resumedAt(stderr)
	require.True(t, ok, stderr)
	assert.Equal(t, files[3666], source)
	assert.Equal(t, int64(11_000), committed)
	assert.Equal(t, int64(11_000-3666*perFile), number)
	assertExactlyOnce(t, c, 1, n*perFile)
}
