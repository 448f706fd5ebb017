package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// startBeanstalkd runs the reference beanstalkd on a free loopback port,
// skipping the test where it is not installed.
func startBeanstalkd(t *testing.T) string { t.Helper(); return enginetest.Reference(t).Addr() }

// TestAgainstPlainBeanstalkd: every command that exists in the protocol
// works against the reference; clear and list say they need stalkd.
func TestAgainstPlainBeanstalkd(t *testing.T) {
	addr := startBeanstalkd(t)
	var put struct{ ID uint64 }
	jsonCtl(t, addr, &put, "put", "ref", "-t", "r", "--pri", "3")
	var st map[string]any
	jsonCtl(t, addr, &st, "stats-tube", "r")
	if st["name"] != "r" || st["current-jobs-ready"] != float64(1) {
		t.Errorf("stats-tube on beanstalkd: %v", st)
	}
	if out := mustCtl(t, addr, "tubes"); !strings.Contains(out, "\nr ") {
		t.Errorf("tubes on beanstalkd:\n%s", out)
	}
	if out := mustCtl(t, addr, "peek", "ready", "-t", "r"); !strings.Contains(out, "pri: 3") {
		t.Errorf("peek on beanstalkd:\n%s", out)
	}
	mustCtl(t, addr, "pause", "r", "0")
	mustCtl(t, addr, "kick", "1", "-t", "r")
	if out := mustCtl(t, addr, "top", "--once", "--interval", "20ms"); !strings.Contains(out, "\nr ") {
		t.Errorf("top on beanstalkd:\n%s", out)
	}
	mustCtl(t, addr, "delete", strconv.FormatUint(put.ID, 10))
	mustCtl(t, addr, "drain", "r", "--interval", "10ms", "--timeout", "10s")
	for _, args := range [][]string{{"clear", "r"}, {"list", "default", "ready"}} {
		r := ctl(t, addr, "", args...)
		if r.code != exitUnsupported || !strings.Contains(r.stderr, "does not know the") {
			t.Errorf("%v on beanstalkd: exit %d %q", args, r.code, r.stderr)
		}
	}
}
