package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/enginetest"
)

// runMainEnv makes the test binary run stalkctl's main instead of the
// tests: TestTopRestoresTerminalOnSignal starts it as a real process.
const runMainEnv = "STALKCTL_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main() // exits
	}
	os.Exit(m.Run())
}

// openPTY opens a pseudo-terminal: the master (the terminal's screen and
// keyboard) and the slave (what a program on the terminal holds), 100x30.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 30, Col: 100}); err != nil {
		t.Fatal(err)
	}
	return m, s
}

// lineMode reports whether the terminal reads lines and echoes them (what
// top turns off, and must turn back on).
func lineMode(t *testing.T, f *os.File) bool {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return tio.Lflag&(unix.ICANON|unix.ECHO) == unix.ICANON|unix.ECHO
}

// TestTopRestoresTerminalOnSignal: stalkctl top, a real process on a
// pseudo-terminal, killed by SIGINT, SIGTERM or SIGHUP while it redraws,
// leaves the alternate screen, shows the cursor again, puts the terminal
// back in line mode and exits 0. Its header names both versions.
func TestTopRestoresTerminalOnSignal(t *testing.T) {
	addr := startServer(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			master, slave := openPTY(t)
			var screen syncBuffer
			go func() {
				buf := make([]byte, 4096)
				for {
					n, err := master.Read(buf)
					screen.Write(buf[:n])
					if err != nil {
						return
					}
				}
			}()
			cmd := exec.Command(os.Args[0], "top", "--interval", "20ms")
			cmd.Env = append(os.Environ(), runMainEnv+"=1", "STALKD_ADDR="+addr)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			enginetest.Eventually(t, "top redrawing", func() bool { return strings.Count(screen.String(), ansiHome) >= 3 })
			if lineMode(t, slave) {
				t.Fatal("top runs with the terminal still in line mode: this test could not tell a restore")
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				var ee *exec.ExitError
				if errors.As(err, &ee) || err != nil {
					t.Fatalf("top after %v: %v\n%q", sig, err, screen.String())
				}
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("top did not exit after %v", sig)
			}
			enginetest.Eventually(t, "the restore on the screen", func() bool {
				return strings.HasSuffix(screen.String(), ansiMainScree)
			})
			out := screen.String()
			if !strings.HasPrefix(out, ansiAltScreen) {
				t.Errorf("top did not start on the alternate screen: %q", out[:min(len(out), 40)])
			}
			if !lineMode(t, slave) {
				t.Error("the terminal is left without line mode and echo")
			}
			if want := "protocol " + engine.ProtocolVersion + "  stalkd v" + engine.Version; !strings.Contains(out, want) {
				t.Errorf("the header does not say %q: %q", want, out[:min(len(out), 300)])
			}
		})
	}
}
