package robustness

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The suite runs the stalkd binary built with the failpoints tag (and, for
// TestPlantedBugIsCaught, with the planted bug too): built once per test
// binary, removed at the end.

var (
	builds   sync.Map // tags -> *build
	buildDir string
)

type build struct {
	once sync.Once
	path string
	err  error
}

// TestMain makes the directory the stalkd builds go to, and runs the
// suite's parts side by side
// whatever the number of CPUs: they wait (on elections, faults, restarts)
// far more than they compute, and -test.parallel's default (GOMAXPROCS,
// 2 on a small machine) would run the single node, both cluster shards and
// the planted bug one or two at a time. An explicit -parallel wins.
func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if f := flag.Lookup("test.parallel"); f != nil && !explicit {
		_ = f.Value.Set("6")
	}
	dir, err := os.MkdirTemp("", "stalkd-robustness-bin")
	if err != nil {
		panic(err)
	}
	buildDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// stalkdBinary builds cmd/stalkd with tags (once per tag set) and returns
// its path; the test is skipped when there is no go tool.
func stalkdBinary(t testing.TB, tags string) string {
	t.Helper()
	v, _ := builds.LoadOrStore(tags, &build{})
	b := v.(*build)
	b.once.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(buildDir, "stalkd-"+filepath.Base(tags))
		cmd := exec.Command(goTool, "build", "-tags", tags, "-o", b.path, "github.com/stalkd/stalkd/cmd/stalkd")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = errors.New(err.Error() + ": " + string(out))
		}
	})
	if b.err != nil {
		var ee *exec.Error
		if errors.As(b.err, &ee) {
			t.Skipf("cannot build stalkd: %v", b.err)
		}
		t.Fatalf("build stalkd -tags %s: %v", tags, b.err)
	}
	return b.path
}
