package loadgen

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of utime and stime in /proc/PID/stat: USER_HZ,
// which Linux fixes at 100 for every architecture in the /proc ABI.
const clockTick = 10 * time.Millisecond

// ReadCPU returns the CPU time (user + system, all threads) that process
// pid has used so far, from /proc/pid/stat. Its resolution is 10 ms, so a
// measured window of a few seconds reads to within a percent or so.
func ReadCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime and stime (fields 14 and 15) of a /proc/PID/stat
// line. The command name (field 2) is in parentheses and may hold spaces
// and parentheses, so the fields are counted from the last ')'.
func parseStatCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("loadgen: /proc stat without a command name")
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("loadgen: /proc stat has %d fields after the name", len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("loadgen: /proc stat times: %w", err)
	}
	return time.Duration(utime+stime) * clockTick, nil
}

// cpuMeter measures a server's CPU time over a window: start, then stop.
// Zero pid: it measures nothing. Owned by one goroutine.
type cpuMeter struct {
	pid     int
	started bool
	start   time.Duration
	used    time.Duration
	err     error
}

func (m *cpuMeter) begin() {
	if m.pid != 0 {
		m.start, m.err = ReadCPU(m.pid)
		m.started = true
	}
}

func (m *cpuMeter) end() {
	if !m.started || m.err != nil {
		return
	}
	var now time.Duration
	if now, m.err = ReadCPU(m.pid); m.err == nil {
		m.used = now - m.start
	}
}

// fill records the window's CPU time in r, per operation when r has some.
// A failed reading (the process is gone) leaves r without CPU figures.
func (m *cpuMeter) fill(r *Result) {
	if !m.started || m.err != nil {
		return
	}
	r.ServerCPU = m.used.Seconds()
	if r.Ops > 0 {
		r.CPUPerOpUs = float64(m.used.Nanoseconds()) / 1e3 / float64(r.Ops)
	}
}
