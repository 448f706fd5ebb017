package main

import (
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// engine/doc.go draws the architecture's arrows for readers of `go doc
// ./engine`. The table is generated from arrows (arch_table_test.go), the
// one list TestArchitectureArrows enforces: this test fails when the two
// differ, and with -update rewrites the doc's block.
//
//	go test ./cmd/stalkd -run TestEngineDocArrows -update

const (
	arrowsDoc    = "../../engine/doc.go"
	arrowsMarker = "// (Generated from cmd/stalkd/arch_table_test.go's arrows by `go test\n" +
		"// ./cmd/stalkd -run TestEngineDocArrows -update`; do not edit.)\n//\n"
)

func TestEngineDocArrows(t *testing.T) {
	b, err := os.ReadFile(arrowsDoc)
	require.NoError(t, err)
	text := string(b)
	got, err := arrowsBlock(text)
	require.NoError(t, err)
	want := arrowsTable(arrows)
	if *updateDocs && got != want {
		text = strings.Replace(text, arrowsMarker+got, arrowsMarker+want, 1)
		require.NoError(t, os.WriteFile(arrowsDoc, []byte(text), 0o644))
		return
	}
	assert.Equal(t, want, got, "engine/doc.go's table of arrows is generated: run the test with -update")
}

// TestEngineDocArrowsBites: an arrow added to the table changes the drawing,
// internal siblings are folded, and a doc without the block is an error.
func TestEngineDocArrowsBites(t *testing.T) {
	table := map[string]allow{
		"codec":               {code: list(), tests: list(fwTestify)},
		"jobs":                {code: list("jobs/internal/wheel", "jobs/internal/cron"), tests: list()},
		"jobs/internal/cron":  {code: list(), tests: list()},
		"jobs/internal/wheel": {code: list(), tests: list()},
		"cmd/stalkd":          {code: list(fwZerolog, "jobs", "codec"), tests: list()},
	}
	drawn := arrowsTable(table)
	assert.Equal(t, "//\tpackage              code                                          tests also\n"+
		"//\tcodec                -                                             stretchr/testify\n"+
		"//\tjobs                 jobs/internal/{cron,wheel}                    -\n"+
		"//\tjobs/internal/cron   -                                             -\n"+
		"//\tjobs/internal/wheel  -                                             -\n"+
		"//\tcmd/stalkd           codec, jobs, rs/zerolog                       -\n", drawn)
	table["codec"] = allow{code: list("jobs"), tests: list(fwTestify)}
	assert.NotEqual(t, drawn, arrowsTable(table))

	got, err := arrowsBlock("// Package x.\n" + arrowsMarker + drawn + "//\n// More.\npackage x\n")
	require.NoError(t, err)
	assert.Equal(t, drawn, got)
	_, err = arrowsBlock("// Package x.\npackage x\n")
	assert.Error(t, err)
}

// arrowsBlock returns the table's lines: the "//\t" lines after the marker.
func arrowsBlock(text string) (string, error) {
	_, rest, ok := strings.Cut(text, arrowsMarker)
	if !ok {
		return "", fmt.Errorf("%s: no generated block (%q)", arrowsDoc, arrowsMarker)
	}
	n := 0
	for strings.HasPrefix(rest[n:], "//\t") {
		end := strings.IndexByte(rest[n:], '\n')
		if end < 0 {
			break
		}
		n += end + 1
	}
	return rest[:n], nil
}

// The drawing's columns: a cell's imports wrap at these widths.
const (
	arrowsCodeWidth = 44
	arrowsTestWidth = 42
)

// arrowsTable draws table as doc-comment code lines: one row per package,
// the layers top-down in the order of the repository's rooms (codec, jobs,
// wal, engine, then the programs), each cell's project packages in that
// order and then its frameworks by name, siblings under an internal
// directory folded (jobs/internal/{cron,wheel}).
func arrowsTable(table map[string]allow) string {
	pkgs := make([]string, 0, len(table))
	for p := range table {
		pkgs = append(pkgs, p)
	}
	slices.SortFunc(pkgs, comparePkgs)
	width := len("package")
	for _, p := range pkgs {
		width = max(width, len(p))
	}
	var b strings.Builder
	row := func(pkg string, code, tests []string) {
		for i := 0; i < max(len(code), len(tests), 1); i++ {
			cells := []string{"", "", ""}
			if i == 0 {
				cells[0] = pkg
			}
			if i < len(code) {
				cells[1] = code[i]
			}
			if i < len(tests) {
				cells[2] = tests[i]
			}
			line := fmt.Sprintf("%-*s  %-*s  %s", width, cells[0], arrowsCodeWidth, cells[1], cells[2])
			fmt.Fprintf(&b, "//\t%s\n", strings.TrimRight(line, " "))
		}
	}
	row("package", []string{"code"}, []string{"tests also"})
	for _, p := range pkgs {
		row(p, arrowsCell(table[p].code, arrowsCodeWidth), arrowsCell(table[p].tests, arrowsTestWidth))
	}
	return b.String()
}

// arrowsCell renders one cell's imports, wrapped at width: "-" for none.
func arrowsCell(imports []string, width int) []string {
	var own, frameworks []string
	for _, imp := range imports {
		if std(imp) {
			own = append(own, imp)
		} else {
			frameworks = append(frameworks, frameworkName(imp))
		}
	}
	slices.SortFunc(own, comparePkgs)
	slices.Sort(frameworks)
	items := append(foldInternal(own, width-1), frameworks...)
	if len(items) == 0 {
		return []string{"-"}
	}
	var lines []string
	line := ""
	for i, it := range items {
		if i < len(items)-1 {
			it += ","
		}
		switch {
		case line == "":
			line = it
		case len(line)+1+len(it) > width:
			lines = append(lines, line)
			line = it
		default:
			line += " " + it
		}
	}
	return append(lines, line)
}

// foldInternal writes consecutive packages of one internal directory as
// one item, engine/internal/{commit,token}, where that fits in width.
func foldInternal(pkgs []string, width int) []string {
	var out []string
	for i := 0; i < len(pkgs); {
		dir := path.Dir(pkgs[i])
		j := i + 1
		for path.Base(dir) == "internal" && j < len(pkgs) && path.Dir(pkgs[j]) == dir {
			j++
		}
		var names []string
		for _, p := range pkgs[i:j] {
			names = append(names, path.Base(p))
		}
		if folded := dir + "/{" + strings.Join(names, ",") + "}"; j-i > 1 && len(folded) <= width {
			out = append(out, folded)
		} else {
			out = append(out, pkgs[i:j]...)
		}
		i = j
	}
	return out
}

// frameworkName is a module path without its host and major version:
// github.com/panjf2000/gnet/v2 is panjf2000/gnet, gopkg.in/yaml.v3 yaml.v3.
func frameworkName(module string) string {
	_, name, _ := strings.Cut(module, "/")
	if dir, last := path.Split(name); len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		name = strings.TrimSuffix(dir, "/")
	}
	return name
}

// arrowsRooms is the order of the drawing: the pure libraries, persistence,
// the server, then the programs and the tools; a room not listed comes last.
var arrowsRooms = []string{"codec", "jobs", "wal", "engine", "cmd", "benchmarks", "fuzz"}

// comparePkgs orders packages by room, then the room's root first, then by
// path.
func comparePkgs(a, b string) int {
	rank := func(p string) int {
		top, _, _ := strings.Cut(p, "/")
		if i := slices.Index(arrowsRooms, top); i >= 0 {
			return i
		}
		return len(arrowsRooms)
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	return strings.Compare(a, b)
}
