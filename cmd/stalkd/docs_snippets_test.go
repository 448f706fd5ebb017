package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The README's Go snippets must compile: each ```go block becomes the body
// of a function in one program (its import lines hoisted), built with the
// go tool against this module through an overlay (no file is written into
// the tree). A snippet may use ctx (a context.Context) and the packages of
// snippetImports without importing them, as the README's readers would.

// snippetImports are the packages a snippet may use unimported, by the
// name it calls them.
var snippetImports = map[string]string{
	"beanstalk": "github.com/beanstalkd/go-beanstalk",
	"context":   "context",
	"fmt":       "fmt",
	"log":       "log",
	"time":      "time",
}

var (
	goBlock    = regexp.MustCompile("(?s)```go\n(.*?)```")
	importLine = regexp.MustCompile(`(?m)^import\s+(\w+\s+)?"([^"]+)"\s*$`)
)

// snippetProgram turns a markdown text's Go blocks into one program.
func snippetProgram(md string) (string, int) {
	imports := map[string]bool{`"context"`: true}
	var funcs []string
	blocks := goBlock.FindAllStringSubmatch(md, -1)
	for i, m := range blocks {
		body := m[1]
		for _, im := range importLine.FindAllStringSubmatch(body, -1) {
			imports[strings.TrimSpace(im[1]+` "`+im[2]+`"`)] = true
		}
		body = importLine.ReplaceAllString(body, "")
		for name, path := range snippetImports {
			if strings.Contains(body, name+".") {
				imports[`"`+path+`"`] = true
			}
		}
		funcs = append(funcs, fmt.Sprintf("func snippet%d(ctx context.Context) {\n%s}\n", i+1, body))
	}
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n")
	for im := range imports {
		b.WriteString("\t" + im + "\n")
	}
	b.WriteString(")\n\nfunc main() {}\n\n")
	for _, f := range funcs {
		b.WriteString(f + "\n")
	}
	return b.String(), len(blocks)
}

// buildSnippets builds md's Go snippets and returns the go tool's output
// on failure.
func buildSnippets(t *testing.T, md string) (string, error) {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	prog, n := snippetProgram(md)
	require.NotZero(t, n, "no Go snippet found")
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	require.NoError(t, os.WriteFile(src, []byte(prog), 0o644))
	pkg := filepath.Join(root, "cmd", "stalkd", "internal", "readmesnippets")
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(pkg, "main.go"): src}})
	ov := filepath.Join(dir, "overlay.json")
	require.NoError(t, os.WriteFile(ov, overlay, 0o644))
	cmd := exec.Command(goTool, "build", "-overlay", ov, "-o", os.DevNull, "./cmd/stalkd/internal/readmesnippets")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	return string(out) + "\n" + prog, err
}

// TestReadmeGoSnippetsCompile: every Go snippet of the README compiles.
func TestReadmeGoSnippetsCompile(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	out, err := buildSnippets(t, string(b))
	require.NoError(t, err, "a README Go snippet does not compile:\n%s", out)
}

// TestReadmeGoSnippetsBite: the snippet the README used to carry (body
// declared and not used) is caught.
func TestReadmeGoSnippetsBite(t *testing.T) {
	md := "```go\nc, err := beanstalk.Dial(\"tcp\", \"127.0.0.1:11300\")\nif err != nil { log.Fatal(err) }\n" +
		"worker := beanstalk.NewTubeSet(c, \"emails\")\nid, body, err := worker.Reserve(5 * time.Second)\n" +
		"err = c.Delete(id)\n```\n"
	out, err := buildSnippets(t, md)
	require.Error(t, err, "the broken snippet built:\n%s", out)
	require.Contains(t, out, "declared and not used: body")
}
