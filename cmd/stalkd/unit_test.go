package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unitFile reads a systemd unit into its directives: "Section.Key" to the
// values of every line that sets it, in order.
func unitFile(t *testing.T, path string) map[string][]string {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	out := map[string][]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			section = strings.Trim(line, "[]")
		default:
			k, v, ok := strings.Cut(line, "=")
			require.True(t, ok, "%s: %q", path, line)
			out[section+"."+k] = append(out[section+"."+k], v)
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// TestServiceUnit: the unit's command line parses with our flag parser,
// without warnings, and stores the journal in the unit's state directory;
// the hardening it promises is there.
func TestServiceUnit(t *testing.T) {
	u := unitFile(t, "stalkd.service")
	require.Len(t, u["Service.ExecStart"], 1)
	argv := strings.Fields(u["Service.ExecStart"][0])
	assert.Equal(t, "stalkd", filepath.Base(argv[0]))
	var warns []string
	o, act, err := parseArgs(argv[1:], func(s string) { warns = append(warns, s) })
	require.NoError(t, err)
	assert.Equal(t, actRun, act)
	assert.Empty(t, warns)
	require.Len(t, u["Service.StateDirectory"], 1)
	assert.Equal(t, "/var/lib/"+u["Service.StateDirectory"][0], o.journal.Dir, "-b is the StateDirectory")
	assert.Empty(t, o.user, "-u cannot work under DynamicUser (no setuid)")
	assert.NotEmpty(t, o.addr, "listen on a chosen address, not every interface")
	for k, v := range map[string]string{
		"DynamicUser": "yes", "NoNewPrivileges": "yes", "ProtectSystem": "strict", "PrivateTmp": "yes",
		"Restart": "on-failure", "RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
	} {
		assert.Equal(t, []string{v}, u["Service."+k], k)
	}
	assert.NotEmpty(t, u["Service.LimitNOFILE"])

	s := unitFile(t, "stalkd.socket")
	assert.NotEmpty(t, s["Socket.ListenStream"])
}

// TestUnitsVerify runs systemd-analyze verify on both units (with ExecStart
// pointing at an executable that exists here) and requires it to say
// nothing: unknown or misspelt directives are only warnings to systemd.
// It also requires a low exposure score from systemd-analyze security.
func TestUnitsVerify(t *testing.T) {
	bin, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed (apt-get install systemd)")
	}
	dir := t.TempDir()
	svc, err := os.ReadFile("stalkd.service")
	require.NoError(t, err)
	self, err := os.Executable()
	require.NoError(t, err)
	svc = []byte(strings.Replace(string(svc), "/usr/local/bin/stalkd", self, -1))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stalkd.service"), svc, 0o644))
	sock, err := os.ReadFile("stalkd.socket")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stalkd.socket"), sock, 0o644))

	out, err := exec.Command(bin, "verify", filepath.Join(dir, "stalkd.socket"), filepath.Join(dir, "stalkd.service")).CombinedOutput()
	if err != nil && strings.Contains(string(out), "Failed to ") && !strings.Contains(string(out), "stalkd") {
		t.Skipf("systemd-analyze cannot run here: %s", out)
	}
	require.NoError(t, err, "%s", out)
	assert.Empty(t, strings.TrimSpace(string(out)), "systemd-analyze verify complains")

	out, err = exec.Command(bin, "security", "--offline=yes", "--threshold=25", filepath.Join(dir, "stalkd.service")).CombinedOutput()
	if err != nil && strings.Contains(string(out), "unrecognized option") {
		t.Skipf("systemd-analyze security has no --offline here (systemd < 250)")
	}
	assert.NoError(t, err, "exposure above 2.5:\n%s", out)
}
