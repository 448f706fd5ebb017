package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The command table in commands.go is the only list of stalkctl's commands:
// usage prints it, and README.md's table must hold a row for each command
// and none for a command that does not exist.
func TestReadmeListsEveryCommand(t *testing.T) {
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.ElementsMatch(t, commandNames(), readmeCommands(string(b)))
}

// TestReadmeCommandCheckBites: a table without a command's row is caught.
func TestReadmeCommandCheckBites(t *testing.T) {
	doc := "| command | what it does |\n|---|---|\n| `stats` | server statistics |\n| `put [BODY]` | insert |\n\n| code | meaning |\n|---|---|\n| 0 | success |\n"
	assert.Equal(t, []string{"stats", "put"}, readmeCommands(doc))
	assert.NotSubset(t, readmeCommands(doc), commandNames())
}

func commandNames() []string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return names
}

// readmeCommands returns the first word of each row of the table headed
// "| command |".
func readmeCommands(doc string) []string {
	var names []string
	in := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "| command |"):
			in = true
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "| `"):
			cell := strings.TrimPrefix(line, "| `")
			word, _, _ := strings.Cut(cell, "`")
			word, _, _ = strings.Cut(word, " ")
			names = append(names, word)
		default:
			in = false
		}
	}
	return names
}
