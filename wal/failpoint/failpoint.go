package failpoint

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Env names the control file.
const Env = "STALKD_FAILPOINTS"

// Fault is what one named point does: wait Stall, then fail with Err (nil:
// go on).
type Fault struct {
	Stall time.Duration
	Err   error
}

type table struct {
	faults map[string]Fault
	clock  time.Duration
}

var (
	once    sync.Once
	current atomic.Pointer[table]
)

func start() {
	current.Store(&table{})
	path := os.Getenv(Env)
	if path == "" {
		return
	}
	last := read(path, nil) // before the first answer: faults set at start apply at once
	go func() {
		for {
			time.Sleep(10 * time.Millisecond)
			last = read(path, last)
		}
	}()
}

func load() *table {
	Start()
	return current.Load()
}

// Start reads the control file and starts following it, once; the hooks
// call it when the program starts, so that a change is acknowledged
// before any point is hit.
func Start() { once.Do(start) }

// read applies the control file if it changed since last, and returns
// what it read.
func read(path string, last []byte) []byte {
	b, err := os.ReadFile(path)
	if err != nil || bytes.Equal(b, last) {
		return last
	}
	t, gen, bad := parse(string(b))
	current.Store(t)
	fmt.Fprintf(os.Stderr, `{"level":"warn","component":"failpoint","faults":%q,"clock":%q,"gen":%d,"bad":%q,"message":"failpoints set"}`+"\n",
		describe(t), t.clock.String(), gen, bad)
	_ = os.WriteFile(path+".ack", []byte(strconv.Itoa(gen)), 0o600)
	return b
}

// parse reads a control file; bad lists the lines it did not understand.
func parse(s string) (t *table, gen int, bad string) {
	t = &table{faults: map[string]Fault{}}
	var unknown []string
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch {
		case f[0] == "gen":
			gen, _ = strconv.Atoi(f[1])
		case f[0] == "clock":
			d, err := time.ParseDuration(f[1])
			if err != nil {
				unknown = append(unknown, line)
			}
			t.clock = d
		default:
			var ft Fault
			switch {
			case f[1] == "stall" && len(f) == 3:
				d, err := time.ParseDuration(f[2])
				if err != nil {
					unknown = append(unknown, line)
				}
				ft.Stall = d
			case f[1] == "eio":
				ft.Err = syscall.EIO
			case f[1] == "enospc":
				ft.Err = syscall.ENOSPC
			default:
				unknown = append(unknown, line)
				continue
			}
			t.faults[f[0]] = ft
		}
	}
	return t, gen, strings.Join(unknown, "; ")
}

func describe(t *table) string {
	var parts []string
	for name, f := range t.faults {
		parts = append(parts, fmt.Sprintf("%s stall=%v err=%v", name, f.Stall, f.Err))
	}
	return strings.Join(parts, ", ")
}

// Get returns the fault in force at point name.
func Get(name string) Fault { return load().faults[name] }

// Hit runs the fault in force at point name: it sleeps for its stall and
// returns its error, as an *os.PathError naming the point (so that
// errors.Is finds the errno), or nil.
func Hit(name string) error {
	f := Get(name)
	if f.Stall > 0 {
		time.Sleep(f.Stall)
	}
	if f.Err != nil {
		return &os.PathError{Op: name, Path: "failpoint", Err: f.Err}
	}
	return nil
}

// ClockOffset is how far the wall clock is stepped now.
func ClockOffset() time.Duration { return load().clock }

// Clock is a jobs.Clock (Now, Unix-epoch ns) that behaves as
// jobs.SystemClock on a wall clock stepped by ClockOffset: it reads the
// offset once, when made, and then counts on the monotonic clock.
type Clock struct {
	base   time.Time
	offset int64
}

// NewClock returns a Clock anchored now.
func NewClock() *Clock { return &Clock{base: time.Now(), offset: int64(ClockOffset())} }

// Now returns the time in Unix-epoch nanoseconds.
func (c *Clock) Now() int64 { return c.base.UnixNano() + c.offset + int64(time.Since(c.base)) }
