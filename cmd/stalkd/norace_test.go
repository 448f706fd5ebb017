package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// make test runs every test with -race, and the race detector changes what
// allocation and memory tests measure, so those tests skip (or shrink) under
// it. The Makefile's norace target runs them again without it; this test
// finds every test function that consults the race flag (raceEnabled,
// raceEnabledInternal) and fails when the target would not run it.

func TestNoRacePassCoversRaceSkippedTests(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	require.NoError(t, err)
	pkgs, pattern := noraceTarget(t, string(mk))
	found := raceGatedTests(t, "../..")
	require.NotEmpty(t, found, "the scan must find the allocation tests")
	for _, missing := range uncovered(found, pkgs, pattern) {
		t.Errorf("%s skips or shrinks under -race, but make's norace pass does not run it: add it to NORACE_TESTS/NORACE_PKGS", missing)
	}
}

// TestNoRaceCheckBites: a race-gated test outside the pattern, or in a
// package the pass does not visit, is reported.
func TestNoRaceCheckBites(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "jobs"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "wal"), 0o755))
	src := "package jobs\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) { if raceEnabled { t.Skip() } }\n" +
		"func TestB(t *testing.T) { if raceEnabledInternal { t.Skip() } }\nfunc TestC(t *testing.T) {}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "jobs", "a_test.go"), []byte(src), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wal", "w_test.go"),
		[]byte(strings.ReplaceAll(strings.ReplaceAll(src, "package jobs", "package wal"), "TestB", "TestD")), 0o644))
	found := raceGatedTests(t, dir)
	assert.ElementsMatch(t, []string{"jobs.TestA", "jobs.TestB", "wal.TestA", "wal.TestD"}, keys(found))
	pkgs, pattern := noraceTarget(t, "NORACE_PKGS  := ./jobs\nNORACE_TESTS := ^(TestA|TestD)$$\n")
	assert.ElementsMatch(t, []string{"jobs.TestB", "wal.TestA", "wal.TestD"}, uncovered(found, pkgs, pattern))
}

// noraceTarget reads the norace target's packages and -run pattern.
func noraceTarget(t *testing.T, makefile string) (map[string]bool, *regexp.Regexp) {
	t.Helper()
	vars := map[string]string{}
	for _, line := range strings.Split(makefile, "\n") {
		name, value, ok := strings.Cut(line, ":=")
		if ok && strings.HasPrefix(name, "NORACE_") {
			vars[strings.TrimSpace(name)] = strings.TrimSpace(value)
		}
	}
	require.Contains(t, vars, "NORACE_PKGS")
	require.Contains(t, vars, "NORACE_TESTS")
	pkgs := map[string]bool{}
	for _, p := range strings.Fields(vars["NORACE_PKGS"]) {
		pkgs[path.Clean(p)] = true
	}
	re, err := regexp.Compile(strings.ReplaceAll(vars["NORACE_TESTS"], "$$", "$"))
	require.NoError(t, err)
	return pkgs, re
}

// raceFlags are the names a test reads the race detector's state by: a
// package's own flag, or the test kit's (enginetest.RaceEnabled).
var raceFlags = map[string]bool{"raceEnabled": true, "raceEnabledInternal": true, "RaceEnabled": true}

// raceGatedTests maps "dir.TestName" (dir relative to root, "/"-separated)
// to true for every test function whose body names the race flag.
func raceGatedTests(t *testing.T, root string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && raceFlags[id.Name] {
					out[filepath.ToSlash(rel)+"."+fn.Name.Name] = true
				}
				return true
			})
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// uncovered lists the race-gated tests the pass would not run.
func uncovered(found map[string]bool, pkgs map[string]bool, pattern *regexp.Regexp) []string {
	var out []string
	for key := range found {
		i := strings.LastIndex(key, ".")
		dir, name := key[:i], key[i+1:]
		if !pkgs[dir] || !pattern.MatchString(name) {
			out = append(out, key)
		}
	}
	return out
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
