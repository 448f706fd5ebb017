package difftest

import (
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

var (
	selfFlag = flag.Bool("difftest.self", false,
		"play the scripts against two reference servers instead of reference and stalkd (validates the harness)")
	verboseFlag = flag.Bool("difftest.v", false, "log every step's replies from both servers")
)

// allScripts gathers the script tables of every topic.
func allScripts() []script {
	var all []script
	for _, group := range [][]script{
		framingScripts, matchingScripts, numberScripts, putScripts, tubeScripts,
		jobScripts, kickScripts, peekScripts, statsScripts, reserveScripts,
	} {
		all = append(all, group...)
	}
	return all
}

// TestDiff plays every script against the reference and stalkd, each script
// on a fresh pair of servers, and compares the replies step by step.
func TestDiff(t *testing.T) {
	enginetest.Reference(t) // skips the test where the reference is not installed
	all := allScripts()
	seen := make(map[string]bool)
	for _, sc := range all {
		require.False(t, seen[sc.name], "duplicate script name %q", sc.name)
		seen[sc.name] = true
	}

	rec := &usage{rows: make(map[string]int)}
	t.Run("script", func(t *testing.T) {
		for _, sc := range all {
			t.Run(sc.name, func(t *testing.T) {
				t.Parallel()
				rec.ran()
				runScript(t, sc, rec)
			})
		}
	})
	if rec.scripts != len(all) || t.Failed() {
		return // filtered with -run, or already failing: usage is not meaningful
	}
	for _, d := range differences {
		if d.kind == deliberate && *selfFlag {
			continue
		}
		assert.NotZero(t, rec.rows[d.name],
			"differences row %q was never applied: delete it, or add the script that needs it", d.name)
	}
}

// runScript plays sc against both servers concurrently, then checks the
// script's intent and compares the replies step by step.
func runScript(t *testing.T, sc script, rec *usage) {
	ref := startReference(t, sc.maxJob)
	other := startCandidate(t, sc.maxJob)

	var refRS, otherRS [][]reply
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); refRS = play(ref, sc) }()
	go func() { defer wg.Done(); otherRS = play(other, sc) }()
	wg.Wait()

	for i, st := range sc.steps {
		label := fmt.Sprintf("step %d [%s] %s", i, st.connName(), shorten(strings.Join(st.send, "")))
		if *verboseFlag {
			t.Logf("%s\n  %-9s %q\n  %-9s %q", label, ref.name, render(refRS[i]), other.name, render(otherRS[i]))
		}
		if st.want != nil {
			assert.Equal(t, *st.want, render(refRS[i]), "%s: the reference does not answer as the script says", label)
		}
		for _, c := range st.checks {
			for _, side := range []struct {
				name string
				rs   []reply
			}{{ref.name, refRS[i]}, {other.name, otherRS[i]}} {
				if err := c(side.rs); err != nil {
					t.Errorf("%s: %s: %v", label, side.name, err)
				}
			}
		}

		x := stepCtx{sent: strings.Join(st.send, ""), version: other.version}
		want, used, errs := normalize(x, refRS[i], !*selfFlag)
		got, used2, errs2 := normalize(x, otherRS[i], false)
		for _, err := range append(errs, errs2...) {
			t.Errorf("%s: %v", label, err)
		}
		rec.use(append(used, used2...))
		if want != got {
			t.Errorf("%s: replies differ\n  %-9s %q\n  %-9s %q", label, ref.name+":", want, other.name+":", got)
		}
	}
}

// startCandidate starts the server compared with the reference: stalkd, or a
// second reference with -difftest.self.
func startCandidate(t *testing.T, maxJob uint32) target {
	if *selfFlag {
		tg := startReference(t, maxJob)
		tg.name = "reference2"
		return tg
	}
	return startStalkd(t, maxJob)
}

// shorten quotes s for a message, eliding the middle of long inputs.
func shorten(s string) string {
	if len(s) <= 80 {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q...%q (%d bytes)", s[:40], s[len(s)-30:], len(s))
}

// usage counts how often each differences row changed something, so rows
// that no script needs are noticed. Safe for concurrent use.
type usage struct {
	mu      sync.Mutex
	scripts int
	rows    map[string]int
}

func (u *usage) ran() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.scripts++
}

func (u *usage) use(names []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, n := range names {
		u.rows[n]++
	}
}
