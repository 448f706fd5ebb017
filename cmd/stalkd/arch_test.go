package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The architecture's arrows: the table in arch_table_test.go (drawn in
// engine/doc.go), checked over every Go file of the module, tests included.
// The daemon is the root of the graph, so the rule book lives beside it.

const module = "github.com/stalkd/stalkd"

// local turns a module import path into its directory ("" if not ours).
func local(path string) (string, bool) {
	if path == module {
		return ".", true
	}
	rest, ok := strings.CutPrefix(path, module+"/")
	return rest, ok
}

// under reports whether dir is pkg or inside it.
func under(dir, pkg string) bool { return dir == pkg || strings.HasPrefix(dir, pkg+"/") }

// std reports whether imp is a standard-library package (no dot in its
// first element).
func std(imp string) bool { return !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") }

// unsafeAllowed names the files of a pure library that may import unsafe,
// each with its reason. Nothing else in codec or jobs may.
var unsafeAllowed = map[string]string{
	// A job body kept as pointer + length (unsafe.SliceData/unsafe.Slice,
	// GC-safe): a ready job is a 64-byte allocation instead of 80, 16 B per
	// job with a million queued (issue 12, memory per job).
	"jobs/body.go": "job body as pointer and length",
}

// pureRoots are the pure libraries: no network, no disk, no system, in
// them and in everything under them (their frameworks are the table's).
var pureRoots = []string{"codec", "jobs"}

// pure is the part of the standard library a pure library may not import.
var pure = []string{"net", "net/", "os", "os/", "io/fs", "io/ioutil", "path/filepath", "syscall", "unsafe"}

// matches reports whether imp is one of prefixes: a module or package path
// (which matches the packages below it), or a prefix ending in "/".
func matches(imp string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasSuffix(p, "/") && strings.HasPrefix(imp, p) {
			return true
		}
		if imp == p || strings.HasPrefix(imp, p+"/") {
			return true
		}
	}
	return false
}

// violations checks every file's imports against table and returns what
// breaks it, sorted: an import its row does not allow (a test-only one in
// code included), a package without a row, a row without a package.
func violations(files map[string][]string, table map[string]allow) []string {
	bad := map[string]bool{}
	seen := map[string]bool{}
	for file, imps := range files {
		dir := path.Dir(file)
		seen[dir] = true
		row, ok := table[dir]
		if !ok {
			bad[dir+": a package missing from the table"] = true
			continue
		}
		test := strings.HasSuffix(file, "_test.go")
		for _, imp := range imps {
			if why := row.check(dir, file, test, imp); why != "" {
				bad[file+" imports "+imp+": "+why] = true
			}
		}
	}
	for dir := range table {
		if !seen[dir] {
			bad[dir+": in the table, but no such package"] = true
		}
	}
	out := make([]string, 0, len(bad))
	for b := range bad {
		out = append(out, b)
	}
	slices.Sort(out)
	return out
}

// check returns why file (in dir; a test file if test) may not import imp,
// or "".
func (a allow) check(dir, file string, test bool, imp string) string {
	if std(imp) {
		for _, root := range pureRoots {
			if under(dir, root) && matches(imp, pure) && !(imp == "unsafe" && unsafeAllowed[file] != "") {
				return root + " is a pure library: no network, disk or system"
			}
		}
		return ""
	}
	allowed := func(l []string) bool {
		if ld, ours := local(imp); ours {
			return ld == dir || slices.Contains(l, ld)
		}
		return matches(imp, l)
	}
	switch {
	case allowed(a.code):
		return ""
	case allowed(a.tests) && test:
		return ""
	case allowed(a.tests):
		return "only its tests may (the table's tests column)"
	}
	return "an arrow not in the table (cmd/stalkd/arch_table_test.go)"
}

func TestArchitectureArrows(t *testing.T) {
	files := fileImports(t, filepath.Join("..", ".."))
	require.Contains(t, files, "codec/decoder.go", "the scan must see the module")
	bad := violations(files, arrows)
	require.Empty(t, bad, "imports outside the declared arrows:\n%s", strings.Join(bad, "\n"))
}

// TestArchitectureRulesBite proves the checker can fail: fed a synthetic
// module with a forbidden arrow of every kind, it reports each, and
// nothing else.
func TestArchitectureRulesBite(t *testing.T) {
	table := map[string]allow{
		"jobs":         {code: list("jobs/internal/wheel"), tests: list(fwTestify)},
		"engine":       {code: list("jobs", fwGnet), tests: list("engine/enginetest")},
		"engine/admin": {code: list("jobs"), tests: list("engine")},
		"wal":          {code: list("jobs")},
		"gone":         {},
	}
	files := map[string][]string{
		"jobs/queue.go":          {"sync", module + "/jobs/internal/wheel"},
		"jobs/body.go":           {"unsafe"},                          // allowed, with its reason
		"jobs/heap.go":           {"net"},                             // a pure library reaching for the network
		"jobs/queue_test.go":     {fwTestify + "/require", "testing"}, // fine
		"engine/server.go":       {fwGnet, module + "/jobs"},          // fine
		"engine/conn.go":         {module + "/engine/enginetest"},     // the test kit in code
		"engine/x_test.go":       {module + "/engine/enginetest"},     // fine
		"engine/admin/api.go":    {module + "/engine"},                // admin reaching into the server
		"engine/admin/a_test.go": {module + "/engine"},                // fine: its tests stand one up
		"wal/log.go":             {fwGnet},                            // a framework not in its row
		"newpkg/a.go":            {"fmt"},                             // no row
	}
	bad := violations(files, table)
	want := []string{
		"engine/admin/api.go imports " + module + "/engine: only its tests may (the table's tests column)",
		"engine/conn.go imports " + module + "/engine/enginetest: only its tests may (the table's tests column)",
		"gone: in the table, but no such package",
		"jobs/heap.go imports net: jobs is a pure library: no network, disk or system",
		"newpkg: a package missing from the table",
		"wal/log.go imports " + fwGnet + ": an arrow not in the table (cmd/stalkd/arch_table_test.go)",
	}
	require.Equal(t, want, bad)
	require.True(t, matches("github.com/hashicorp/raft", list(fwRaft)))
	require.False(t, matches("github.com/hashicorp/raft-wal", list(fwRaft)), "a module is not a prefix of another's name")
	_, err := os.Stat(filepath.Join("..", "..", "go.mod"))
	require.NoError(t, err, "the test runs from cmd/stalkd")
}

// fileImports maps each Go file of the module (its path relative to the
// module root, with "/" separators) to what it imports.
func fileImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		out[rel] = []string{}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			out[rel] = append(out[rel], p)
		}
		return nil
	})
	require.NoError(t, err)
	return out
}
