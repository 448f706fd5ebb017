package main

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/stalkd/stalkd/cmd/stalkctl/internal/client"
)

// sample is one reading of the server: its stats and every tube's.
type sample struct {
	at     time.Time
	server client.Stats
	tubes  []client.Stats
}

// tubeRow is one tube in a frame: its counts and its rates since the
// previous sample (NaN-free: 0 when there is no previous sample).
type tubeRow struct {
	Name      string  `json:"name"`
	Ready     int64   `json:"ready"`
	Reserved  int64   `json:"reserved"`
	Delayed   int64   `json:"delayed"`
	Buried    int64   `json:"buried"`
	Waiting   int64   `json:"waiting"`
	Paused    bool    `json:"paused"`
	PutRate   float64 `json:"put_per_sec"`
	DelRate   float64 `json:"delete_per_sec"`
	pauseLeft int64
}

// frame is what top shows: server figures, rates and the tubes.
type frame struct {
	Time    time.Time `json:"time"`
	Version string    `json:"version"` // the protocol's (stats)
	// StalkdVersion is stalkd's own (stats-cluster); "" for another server.
	StalkdVersion string    `json:"stalkd_version,omitempty"`
	Uptime        int64     `json:"uptime_seconds"`
	Connections   int64     `json:"connections"`
	Ready         int64     `json:"ready"`
	Reserved      int64     `json:"reserved"`
	Delayed       int64     `json:"delayed"`
	Buried        int64     `json:"buried"`
	PutRate       float64   `json:"put_per_sec"`
	ReserveRate   float64   `json:"reserve_per_sec"`
	DeleteRate    float64   `json:"delete_per_sec"`
	Tubes         []tubeRow `json:"tubes"`
	Interval      float64   `json:"interval_seconds"`
	prevMissing   bool      // no previous sample: rates are unknown
}

// rate is the per-second change of a counter between two samples; a
// counter that went down (server restarted) gives 0.
func rate(prev, cur int64, dt time.Duration) float64 {
	if dt <= 0 || cur < prev {
		return 0
	}
	return float64(cur-prev) / dt.Seconds()
}

// buildFrame computes a frame from the current sample and the previous one
// (prev may be nil). Pure: it does no I/O, so tests feed it samples.
func buildFrame(prev *sample, cur *sample) frame {
	s := cur.server
	f := frame{
		Time: cur.at, Uptime: s.Int("uptime"), Connections: s.Int("current-connections"),
		Ready: s.Int("current-jobs-ready"), Reserved: s.Int("current-jobs-reserved"),
		Delayed: s.Int("current-jobs-delayed"), Buried: s.Int("current-jobs-buried"),
		prevMissing: prev == nil,
	}
	f.Version, _ = s.Get("version")
	var before map[string]client.Stats
	var dt time.Duration
	if prev != nil {
		dt = cur.at.Sub(prev.at)
		f.Interval = dt.Seconds()
		p := prev.server
		f.PutRate = rate(p.Int("cmd-put"), s.Int("cmd-put"), dt)
		f.ReserveRate = rate(p.Int("cmd-reserve")+p.Int("cmd-reserve-with-timeout"),
			s.Int("cmd-reserve")+s.Int("cmd-reserve-with-timeout"), dt)
		f.DeleteRate = rate(p.Int("cmd-delete"), s.Int("cmd-delete"), dt)
		before = make(map[string]client.Stats, len(prev.tubes))
		for _, t := range prev.tubes {
			name, _ := t.Get("name")
			before[name] = t
		}
	}
	for _, t := range cur.tubes {
		name, _ := t.Get("name")
		r := tubeRow{Name: name, Ready: t.Int("current-jobs-ready"), Reserved: t.Int("current-jobs-reserved"),
			Delayed: t.Int("current-jobs-delayed"), Buried: t.Int("current-jobs-buried"),
			Waiting: t.Int("current-waiting"), Paused: t.Int("pause") > 0, pauseLeft: t.Int("pause-time-left")}
		if p, ok := before[name]; ok {
			r.PutRate = rate(p.Int("total-jobs"), t.Int("total-jobs"), dt)
			r.DelRate = rate(p.Int("cmd-delete"), t.Int("cmd-delete"), dt)
		}
		f.Tubes = append(f.Tubes, r)
	}
	// Busiest first (most jobs, then most traffic), then by name: the
	// order is stable while nothing changes.
	sort.SliceStable(f.Tubes, func(i, j int) bool {
		a, b := f.Tubes[i], f.Tubes[j]
		na, nb := a.Ready+a.Reserved+a.Delayed+a.Buried, b.Ready+b.Reserved+b.Delayed+b.Buried
		if na != nb {
			return na > nb
		}
		if ra, rb := a.PutRate+a.DelRate, b.PutRate+b.DelRate; ra != rb {
			return ra > rb
		}
		return a.Name < b.Name
	})
	return f
}

// lines renders the frame for a terminal of width x height cells (0: no
// limit); tubes past the height are summarised in one line.
func (f frame) lines(addr string, width, height int) []string {
	r := func(v float64) string {
		if f.prevMissing {
			return "-"
		}
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	out := []string{
		cut(fmt.Sprintf("stalkctl top  %s  %s  up %s  connections %d  %s",
			addr, f.versions(), time.Duration(f.Uptime)*time.Second, f.Connections, f.Time.Format("15:04:05")), width),
		cut(fmt.Sprintf("jobs  ready %d  reserved %d  delayed %d  buried %d    put/s %s  reserve/s %s  delete/s %s",
			f.Ready, f.Reserved, f.Delayed, f.Buried, r(f.PutRate), r(f.ReserveRate), r(f.DeleteRate)), width),
		"",
	}
	var t table
	t.add("TUBE", "READY", "RESERVED", "DELAYED", "BURIED", "WAITING", "PUT/s", "DEL/s", "PAUSED")
	rows := f.Tubes
	hidden := 0
	if height > 0 {
		room := max(height-len(out)-2, 1) // header row, and the "more" line
		if len(rows) > room {
			hidden = len(rows) - room
			rows = rows[:room]
		}
	}
	for _, tr := range rows {
		paused := "-"
		if tr.Paused {
			paused = fmt.Sprintf("%ds", tr.pauseLeft)
		}
		t.add(tr.Name, itoa(tr.Ready), itoa(tr.Reserved), itoa(tr.Delayed), itoa(tr.Buried), itoa(tr.Waiting),
			r(tr.PutRate), r(tr.DelRate), paused)
	}
	var b lineBuffer
	t.write(&b, width)
	out = append(out, b.lines...)
	if hidden > 0 {
		out = append(out, fmt.Sprintf("... %d more tubes", hidden))
	}
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// lineBuffer collects written lines (each Write is one line ending in \n).
type lineBuffer struct{ lines []string }

func (b *lineBuffer) Write(p []byte) (int, error) {
	s := string(p)
	if n := len(s); n > 0 && s[n-1] == '\n' {
		s = s[:n-1]
	}
	b.lines = append(b.lines, s)
	return len(p), nil
}

// versions labels the server's versions: the protocol's (what the stats
// document calls version) and stalkd's own, when the server is stalkd.
func (f frame) versions() string {
	s := "protocol " + f.Version
	if f.StalkdVersion != "" {
		s += "  stalkd v" + f.StalkdVersion
	}
	return s
}
