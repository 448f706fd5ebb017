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

// The architecture's arrows (README "Layout"), checked over every Go file of
// the module, tests included. The daemon is the root of the graph, so the
// rule book lives beside it.

const module = "github.com/stalkd/stalkd"

// pkgImports maps a package directory (relative to the module root, with
// "/" separators) to everything its files import, tests included.
type pkgImports map[string]map[string]bool

func scanModule(t *testing.T, root string) pkgImports {
	t.Helper()
	out := pkgImports{}
	for file, imps := range fileImports(t, root) {
		dir := path.Dir(file)
		if out[dir] == nil {
			out[dir] = map[string]bool{}
		}
		for _, imp := range imps {
			if imp == "unsafe" && unsafeAllowed[file] != "" {
				continue
			}
			out[dir][imp] = true
		}
	}
	return out
}

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

// closure returns every import reachable from dir through the module's own
// packages (foreign packages are leaves: their own imports are their business).
func (m pkgImports) closure(dir string) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(d string) {
		for imp := range m[d] {
			if seen[imp] {
				continue
			}
			seen[imp] = true
			if ld, ok := local(imp); ok {
				walk(ld)
			}
		}
	}
	walk(dir)
	return seen
}

// unsafeAllowed names the files of a pure library that may import unsafe,
// each with its reason. Nothing else in codec or jobs may.
var unsafeAllowed = map[string]string{
	// A job body kept as pointer + length (unsafe.SliceData/unsafe.Slice,
	// GC-safe): a ready job is a 64-byte allocation instead of 80, 16 B per
	// job with a million queued (issue 12, memory per job).
	"jobs/body.go": "job body as pointer and length",
}

// pure is what a pure library may not reach: the network, the disk, the
// system, and every framework the shell uses.
var pure = []string{
	"net", "net/", "os", "os/", "io/fs", "io/ioutil", "path/filepath", "syscall", "unsafe",
	"golang.org/x/sys", "github.com/panjf2000/gnet", "github.com/hashicorp/raft",
	"github.com/tidwall/wal", "github.com/prometheus", "github.com/rs/zerolog",
}

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

func TestArchitectureArrows(t *testing.T) {
	m := scanModule(t, filepath.Join("..", ".."))
	require.Contains(t, m, "codec", "the scan must see the module")
	require.Contains(t, m, "jobs")

	var bad []string
	fail := func(dir, imp, rule string) { bad = append(bad, dir+" imports "+imp+": "+rule) }

	for dir, imps := range m {
		all := m.closure(dir)
		for imp := range all {
			ld, ours := local(imp)
			switch {
			case under(dir, "codec") || under(dir, "jobs"):
				root := strings.SplitN(dir, "/", 2)[0]
				if ours && !under(ld, root) {
					fail(dir, imp, root+" is a pure library: it imports no other stalkd package")
				}
				if !ours && matches(imp, pure) {
					fail(dir, imp, root+" is a pure library: no network, disk, system or framework")
				}
			case under(dir, "benchmarks"):
				if ours && !under(ld, "benchmarks") {
					fail(dir, imp, "the load generator imports nothing of the server")
				}
			}
		}
		// Direct imports: who may use which framework.
		for imp := range imps {
			switch {
			case matches(imp, []string{"github.com/panjf2000/gnet"}) && dir != "engine":
				fail(dir, imp, "only package engine imports gnet")
			case matches(imp, []string{"github.com/hashicorp/raft"}) && !under(dir, "wal/raft"):
				fail(dir, imp, "only wal/raft imports raft")
			case matches(imp, []string{"github.com/tidwall/wal"}) && !under(dir, "wal"):
				fail(dir, imp, "only wal imports tidwall/wal")
			case matches(imp, []string{"github.com/prometheus"}) && !under(dir, "engine/admin"):
				fail(dir, imp, "only engine/admin imports prometheus")
			}
		}
	}
	slices.Sort(bad)
	require.Empty(t, bad, "architecture violations:\n%s", strings.Join(bad, "\n"))
}

// TestArchitectureRulesBite proves the rule book can fail: a pure package
// that reached for the network would be reported.
func TestArchitectureRulesBite(t *testing.T) {
	require.True(t, matches("net/http", pure))
	require.True(t, matches("os", pure))
	require.True(t, matches("unsafe", pure), "unsafe only where unsafeAllowed says")
	require.True(t, matches("github.com/panjf2000/gnet/v2", pure))
	require.False(t, matches("bytes", pure))
	require.False(t, matches("osx", pure))
	m := pkgImports{
		"jobs":                {module + "/jobs/internal/wheel": true},
		"jobs/internal/wheel": {"net": true},
	}
	require.True(t, m.closure("jobs")["net"], "a forbidden import is found through the module's own packages")
	_, err := os.Stat(filepath.Join("..", "..", "go.mod"))
	require.NoError(t, err, "the test runs from cmd/stalkd")
}

// kit is the wire-test kit: test code, imported by tests only.
const kit = "engine/enginetest"

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

// kitViolations lists the files that import the wire-test kit where they
// may not: anything but a _test.go file outside the kit, and the load
// generator in any case.
func kitViolations(files map[string][]string) []string {
	var bad []string
	for file, imps := range files {
		dir := path.Dir(file)
		for _, imp := range imps {
			ld, ours := local(imp)
			if !ours || !under(ld, kit) || under(dir, kit) {
				continue
			}
			switch {
			case under(dir, "benchmarks"):
				bad = append(bad, file+" imports "+imp+": the load generator imports nothing of the server, tests included")
			case !strings.HasSuffix(file, "_test.go"):
				bad = append(bad, file+" imports "+imp+": the wire-test kit is for _test.go files only")
			}
		}
	}
	slices.Sort(bad)
	return bad
}

func TestWireTestKitOnlyInTests(t *testing.T) {
	files := fileImports(t, filepath.Join("..", ".."))
	require.Contains(t, files, kit+"/conn.go", "the scan must see the kit")
	users := 0
	for file, imps := range files {
		if strings.HasSuffix(file, "_test.go") && slices.Contains(imps, module+"/"+kit) {
			users++
		}
	}
	require.Positive(t, users, "the tests use the kit")
	bad := kitViolations(files)
	require.Empty(t, bad, "wire-test kit imported outside tests:\n%s", strings.Join(bad, "\n"))
}

// TestWireTestKitRuleBites proves the rule can fail.
func TestWireTestKitRuleBites(t *testing.T) {
	bad := kitViolations(map[string][]string{
		"engine/server.go":              {module + "/" + kit},
		"benchmarks/loadgen/x_test.go":  {module + "/" + kit + "/inproc"},
		"engine/conn_test.go":           {module + "/" + kit},
		"engine/enginetest/inproc/a.go": {module + "/" + kit},
	})
	require.Len(t, bad, 2, "%v", bad)
	require.Contains(t, bad[0], "benchmarks/loadgen/x_test.go")
	require.Contains(t, bad[1], "engine/server.go")
}
