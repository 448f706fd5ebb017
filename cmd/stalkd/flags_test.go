package main

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine"
)

func TestParseArgs(t *testing.T) {
	def := defaultOptions()
	with := func(f func(*options)) options {
		o := defaultOptions()
		f(&o)
		return o
	}
	for _, tc := range []struct {
		args  string
		want  options
		act   action
		warns []string
	}{
		{"", def, actRun, nil},
		{"-VFVu kr", with(func(o *options) { o.verbose, o.journal.NoSync, o.user = 2, true, "kr" }), actRun, nil},
		{"-ukr -V", with(func(o *options) { o.user, o.verbose = "kr", 1 }), actRun, nil},
		{"-l 0.0.0.0 -p11301", with(func(o *options) { o.addr, o.port = "0.0.0.0", "11301" }), actRun, nil},
		{"-lunix:/tmp/s", with(func(o *options) { o.addr = "unix:/tmp/s" }), actRun, nil},
		{"-b /var/lib/q -f 0", with(func(o *options) { o.journal.Dir, o.journal.SyncInterval = "/var/lib/q", 0 }), actRun, nil},
		{"-F -f5", with(func(o *options) { o.journal.SyncInterval = 5 * time.Millisecond }), actRun, nil},
		{"-f5 -F", with(func(o *options) { o.journal.SyncInterval, o.journal.NoSync = 5*time.Millisecond, true }), actRun, nil},
		{"-Sb /q", with(func(o *options) { o.journal.Salvage, o.journal.Dir = true, "/q" }), actRun, nil},
		{"-s 4096", with(func(o *options) { o.journal.SegmentSize = 4096 }), actRun, nil},
		{"-z 0", with(func(o *options) { o.maxJob = 0 }), actRun, nil},
		{"-z1073741824", with(func(o *options) { o.maxJob = 1 << 30 }), actRun, nil},
		{"-z 1073741825", with(func(o *options) { o.maxJob = 1 << 30 }), actRun,
			[]string{"maximum job size was set to 1073741824"}},
		{"-z -1", with(func(o *options) { o.maxJob = 1 << 30 }), actRun,
			[]string{"maximum job size was set to 1073741824"}},
		{"-c -n", def, actRun, []string{"-c flag was removed. binlog is always compacted.",
			"-n flag was removed. binlog is always compacted."}},
		{"-v -x", def, actVersion, nil},
		{"-vx", def, actVersion, nil},
		{"-hv", def, actHelp, nil},
		{"-Vh", with(func(o *options) { o.verbose = 1 }), actHelp, nil},
	} {
		t.Run(tc.args, func(t *testing.T) {
			var warns []string
			o, act, err := parseArgs(strings.Fields(tc.args), func(s string) { warns = append(warns, s) })
			require.NoError(t, err)
			assert.Equal(t, tc.act, act)
			assert.Equal(t, tc.want, o)
			assert.Equal(t, tc.warns, warns)
		})
	}
}

func TestParseArgsErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-x"}, "unknown flag: -x"},
		{[]string{"-Vx"}, "unknown flag: Vx"},
		{[]string{"-VVx"}, "unknown flag: Vx"},
		{[]string{"-Fxyz"}, "unknown flag: Fxyz"},
		{[]string{"--", "-v"}, "unknown flag: --"},
		{[]string{"-x", "-v"}, "unknown flag: -x"},
		{[]string{"stray"}, "unknown argument: stray"},
		{[]string{"-p5", "x"}, "unknown argument: x"},
		{[]string{"-"}, "unknown argument: -"},
		{[]string{""}, "unknown argument: "},
		{[]string{"-z"}, "flag requires an argument: -z"},
		{[]string{"-z", "5", "-p"}, "flag requires an argument: -p"},
		{[]string{"-V", "-u"}, "flag requires an argument: -u"},
		{[]string{"-z", "10k"}, "invalid size: 10k"},
		{[]string{"-z5x"}, "invalid size: 5x"},
		{[]string{"-zv"}, "invalid size: v"},
		{[]string{"-z", "5 "}, "invalid size: 5 "},
		{[]string{"-z", ""}, "invalid size: "},
		{[]string{"-z", "0x10"}, "invalid size: 0x10"},
		{[]string{"-f", "abc"}, "invalid size: abc"},
		{[]string{"-s", "10k"}, "invalid size: 10k"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, _, err := parseArgs(tc.args, func(string) {})
			require.Error(t, err)
			assert.IsType(t, usageError(""), err)
			assert.Equal(t, tc.msg, err.Error())
		})
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]uint64{
		"0": 0, "65535": 65535, " 5": 5, "\t7": 7, "+5": 5, "-0": 0, "-1": math.MaxUint64,
		"-2": math.MaxUint64 - 1, "007": 7, "18446744073709551615": math.MaxUint64,
		"18446744073709551616": math.MaxUint64, "99999999999999999999999": math.MaxUint64,
	} {
		got, ok := parseSize(in)
		assert.True(t, ok, "%q", in)
		assert.Equal(t, want, got, "%q", in)
	}
	for _, in := range []string{"", " ", "-", "+", "- 5", "5 ", "5k", "0x10", "1.5", "k"} {
		_, ok := parseSize(in)
		assert.False(t, ok, "%q", in)
	}
}

func TestRealMainWithoutServing(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"-v"}, 0, "stalkd " + engine.Version + " (beanstalk protocol 1.13)\n", ""},
		{[]string{"-h"}, 0, "", "Use: stalkd [OPTIONS]\n"},
		{[]string{"-x"}, exitUsage, "", "stalkd: unknown flag: -x\nUse: stalkd [OPTIONS]\n"},
		{[]string{"-z", "10k"}, exitUsage, "", "stalkd: invalid size: 10k\nUse: stalkd [OPTIONS]\n"},
		{[]string{"-c", "-z", "2000000000", "-v"}, 0, "stalkd " + engine.Version + " (beanstalk protocol 1.13)\n",
			"stalkd: -c flag was removed. binlog is always compacted.\n" +
				"stalkd: maximum job size was set to 1073741824\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := realMain(append([]string{"/usr/bin/stalkd"}, tc.args...), &out, &errb)
			assert.Equal(t, tc.code, code)
			assert.Equal(t, tc.stdout, out.String())
			assert.True(t, strings.HasPrefix(errb.String(), tc.stderr), "stderr %q", errb.String())
		})
	}
}

func TestListenAddr(t *testing.T) {
	assert.Equal(t, ":11300", listenAddr(defaultOptions()))
	assert.Equal(t, "[::1]:7", listenAddr(options{addr: "::1", port: "7"}))
	assert.Equal(t, "unix:/tmp/s", listenAddr(options{addr: "unix:/tmp/s", port: "7"}))
	assert.Equal(t, uint32(0xffffffff), maxJobSize(0), "-z 0 is a real zero")
	assert.Equal(t, uint32(10), maxJobSize(10))
}

func TestParseLongFlags(t *testing.T) {
	o, act, err := parseArgs([]string{"-V", "--max-connections", "100", "--idle-timeout=90s", "-p", "5"}, func(string) {})
	require.NoError(t, err)
	assert.Equal(t, actRun, act)
	assert.Equal(t, netFlags{maxConns: 100, idleTimeout: 90 * time.Second}, o.net)
	assert.Equal(t, 1, o.verbose)
	assert.Equal(t, "5", o.port)
	assert.Equal(t, -1, defaultOptions().net.maxConns, "not given: derived from the file limit")
	assert.Equal(t, 0, maxConns(0, 500), "0: no cap")
	assert.Equal(t, 500, maxConns(-1, 500))

	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--max-connections"}, "flag requires an argument: --max-connections"},
		{[]string{"--max-connections=-1"}, "invalid number of connections: -1"},
		{[]string{"--max-connections", "lots"}, "invalid number of connections: lots"},
		{[]string{"--idle-timeout", "5"}, "invalid duration: 5"},
		{[]string{"--idle-timeout=-1s"}, "invalid duration: -1s"},
		{[]string{"--no-such-flag"}, "unknown flag: --no-such-flag"},
	} {
		_, _, err := parseArgs(tc.args, func(string) {})
		assert.Equal(t, usageError(tc.msg), err, tc.args)
	}
}

// TestUsageNamesTheDefaults: the help text states the defaults the flags
// really have (both come from the same constants).
func TestUsageNamesTheDefaults(t *testing.T) {
	var b strings.Builder
	usage(&b, "stalkd")
	text := b.String()
	num := func(re string) uint64 {
		m := regexp.MustCompile(re).FindStringSubmatch(text)
		require.NotNil(t, m, re)
		n, err := strconv.ParseUint(m[1], 10, 64)
		require.NoError(t, err)
		return n
	}
	d := defaultOptions()
	assert.Equal(t, uint64(d.journal.SyncInterval/time.Millisecond), num(`-f MS .*\(default is (\d+)ms\)`))
	assert.Equal(t, d.port, strconv.FormatUint(num(`-p PORT .*\(default is (\d+)\)`), 10))
	assert.Equal(t, d.maxJob, num(`-z BYTES .*\(default is (\d+)\)`))
	assert.Equal(t, uint64(d.journal.SegmentSize), num(`-s BYTES .*\(default is (\d+)\)`))
	assert.Equal(t, uint64(engine.MaxJobSizeLimit), num(`max allowed is (\d+) bytes`))
	// Without -b the stats document reports the -s default, as the
	// reference does; an embedded engine without a journal says the same.
	assert.Equal(t, int64(engine.DefaultBinlogMaxSize), d.journal.SegmentSize)
}
