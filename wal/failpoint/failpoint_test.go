package failpoint

import (
	"errors"
	"syscall"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tab, gen, bad := parse("gen 7\nwal.sync stall 3s\nraft.store enospc\nwal.write eio\nclock -1h\nnonsense here\n")
	if gen != 7 || bad != "nonsense here" {
		t.Fatalf("gen %d bad %q", gen, bad)
	}
	if tab.faults["wal.sync"].Stall != 3*time.Second || tab.faults["wal.sync"].Err != nil {
		t.Fatalf("wal.sync %+v", tab.faults["wal.sync"])
	}
	if !errors.Is(tab.faults["raft.store"].Err, syscall.ENOSPC) || !errors.Is(tab.faults["wal.write"].Err, syscall.EIO) {
		t.Fatalf("errors %+v", tab.faults)
	}
	if tab.clock != -time.Hour {
		t.Fatalf("clock %v", tab.clock)
	}
}

func TestHitWithoutControl(t *testing.T) {
	t.Setenv(Env, "")
	if err := Hit("wal.sync"); err != nil {
		t.Fatal(err)
	}
	if ClockOffset() != 0 {
		t.Fatal("clock stepped without a control file")
	}
	c := NewClock()
	if d := time.Duration(c.Now() - time.Now().UnixNano()); d > time.Second || d < -time.Second {
		t.Fatalf("clock off by %v", d)
	}
}
