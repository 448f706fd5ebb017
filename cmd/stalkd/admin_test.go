package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine"
)

func TestParseAdminFlags(t *testing.T) {
	o, act, err := parseArgs([]string{"-p", "1", "--admin", "127.0.0.1:11380", "--metrics-max-tubes=50", "-V"}, func(string) {})
	require.NoError(t, err)
	assert.Equal(t, actRun, act)
	assert.Equal(t, adminFlags{addr: "127.0.0.1:11380", maxTubes: 50}, o.admin)
	assert.Equal(t, 1, o.verbose, "short flags after long ones still parse")
	o, _, err = parseArgs([]string{"--admin=unix:/run/stalkd-admin.sock", "--metrics-max-tubes", "-1"}, func(string) {})
	require.NoError(t, err)
	assert.Equal(t, adminFlags{addr: "unix:/run/stalkd-admin.sock", maxTubes: -1}, o.admin)
	o, _, err = parseArgs(nil, func(string) {})
	require.NoError(t, err)
	assert.Equal(t, adminFlags{}, o.admin, "off by default")

	for _, args := range [][]string{
		{"--admin"}, {"--admin="}, {"--nope"}, {"--"}, {"--metrics-max-tubes", "0"},
		{"--metrics-max-tubes=x"}, {"--metrics-max-tubes=-2"},
	} {
		_, _, err := parseArgs(args, func(string) {})
		assert.IsType(t, usageError(""), err, args)
	}
	var b strings.Builder
	usage(&b, "stalkd")
	assert.Contains(t, b.String(), "--admin ADDR")
	assert.Contains(t, b.String(), "--metrics-max-tubes N")
}

// TestProcessAdmin runs the daemon with --admin and -b: the admin listener
// serves metrics (journal series included) and readiness, readiness fails
// once SIGUSR1 turns drain mode on, and SIGTERM stops everything cleanly.
func TestProcessAdmin(t *testing.T) {
	cmd, stderr := stalkd(t, "-l", "127.0.0.1", "-p", "0", "-b", t.TempDir(), "--admin", "127.0.0.1:0")
	adminAddr := adminListening(t, stderr)
	base := "http://" + adminAddr

	get := func(path string) (int, string) {
		res, err := http.Get(base + path)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, string(b)
	}
	code, _ := get("/readyz")
	assert.Equal(t, http.StatusOK, code)
	code, body := get("/metrics")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "stalkd_wal_bytes ")
	assert.Contains(t, body, "stalkd_wal_fsync_duration_seconds_bucket")
	assert.Contains(t, body, `stalkd_build_info{goversion=`)
	assert.Contains(t, body, `version="`+engine.Version+`"`)

	require.NoError(t, cmd.Process.Signal(syscall.SIGUSR1))
	deadline := time.Now().Add(waitLong)
	for {
		code, body = get("/readyz")
		if code == http.StatusServiceUnavailable || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "draining")

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 0, exitCode(t, cmd))
}

// adminListening reads the JSON log until the admin listener's start line
// and returns its address.
func adminListening(t *testing.T, stderr io.Reader) string {
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		var line struct{ Message, Addr, Component string }
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Message == "admin listener started" {
			assert.Equal(t, "admin", line.Component)
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			return line.Addr
		}
	}
	t.Fatal("no admin listener line")
	return ""
}
