package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/codec"
)

// The README's table of protocol commands is generated from codec's command
// table, the only list of commands: this test fails when they differ, and
// with -update rewrites the README's block.
//
//	go test ./cmd/stalkd -run TestReadmeCommands -update

var updateDocs = flag.Bool("update", false, "rewrite the README's generated command table from codec's")

const (
	commandsBegin = "<!-- BEGIN commands: generated from codec/commands.go by `go test ./cmd/stalkd -run TestReadmeCommands -update`; do not edit -->"
	commandsEnd   = "<!-- END commands -->"
)

func TestReadmeCommands(t *testing.T) {
	const path = "../../README.md"
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(b)
	got, err := generatedBlock(text)
	require.NoError(t, err)
	want := commandsTable(codec.Commands())
	if *updateDocs && got != want {
		text = strings.Replace(text, commandsBegin+"\n"+got+commandsEnd, commandsBegin+"\n"+want+commandsEnd, 1)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		return
	}
	assert.Equal(t, want, got, "README.md's command table is generated: run the test with -update")
}

// TestReadmeCommandsBites: a command missing from the block, or a block
// that is gone, is found.
func TestReadmeCommandsBites(t *testing.T) {
	specs := codec.Commands()
	full := commandsTable(specs)
	short := commandsTable(specs[:len(specs)-1])
	assert.NotEqual(t, full, short)
	assert.Contains(t, full, "`stats-cluster`")
	got, err := generatedBlock("intro\n" + commandsBegin + "\n" + short + commandsEnd + "\nrest\n")
	require.NoError(t, err)
	assert.Equal(t, short, got)
	_, err = generatedBlock("no block here")
	assert.Error(t, err)
}

// generatedBlock returns what stands between the markers.
func generatedBlock(text string) (string, error) {
	_, rest, ok := strings.Cut(text, commandsBegin+"\n")
	if !ok {
		return "", fmt.Errorf("no %q marker", commandsBegin)
	}
	block, _, ok := strings.Cut(rest, commandsEnd)
	if !ok {
		return "", fmt.Errorf("no %q marker", commandsEnd)
	}
	return block, nil
}

// commandsTable renders the commands as a markdown table: the syntax, the
// answer, and whether the reference has the command.
func commandsTable(specs []codec.Spec) string {
	var b strings.Builder
	b.WriteString("| command | answer | beanstalkd |\n|---|---|---|\n")
	for _, s := range specs {
		syntax, answer, _ := strings.Cut(s.Usage, ": ")
		ref := "yes"
		if s.Ours {
			ref = "no: stalkd's own"
		}
		code := strings.ReplaceAll(syntax, "|", `\|`)
		text := strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(answer)
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", code, text, ref)
	}
	return b.String()
}

// engine/COMPATIBILITY.md spells out the replies of stalkd's own commands; the
// commands it lists are exactly those codec's table marks Ours.
func TestCompatibilityListsOurCommands(t *testing.T) {
	b, err := os.ReadFile("../../engine/COMPATIBILITY.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(b), "## stalkd's own commands\n\n```text\n")
	require.True(t, ok, "COMPATIBILITY.md has the block of stalkd's own commands")
	block, _, _ := strings.Cut(rest, "```")
	var listed, ours []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		word, _, _ := strings.Cut(line, " ")
		listed = append(listed, strings.TrimSuffix(word, `\r\n`))
	}
	for _, s := range codec.Commands() {
		if s.Ours {
			ours = append(ours, s.Op.String())
		}
	}
	assert.ElementsMatch(t, ours, listed)
}
