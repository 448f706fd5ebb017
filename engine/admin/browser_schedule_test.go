package admin

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// TestDashboardScheduleRunsInBrowser: the header names both versions,
// labelled; a tube's panel shows each schedule with its zone, its last run
// (never, then the time it fired) and its next run; a hostile body shows
// as text.
func TestDashboardScheduleRunsInBrowser(t *testing.T) {
	s := newStack(t, func(o *Options) {
		o.SampleInterval = 200 * time.Millisecond
		o.ProtocolVersion = "1.13"
	}) // the manual clock is at 2023-11-14 22:13:20 UTC
	require.NoError(t, s.q.SetPolicy("sched", jobs.Policy{Schedule: []jobs.Schedule{
		{Cron: "@every 1m", Body: hostile, Priority: 1024, TTR: 60},
		{Cron: "0 9 * * MON-FRI", TZ: "Europe/Berlin", Body: "standup", Priority: 1024, TTR: 60},
	}}))
	s.clock.Advance(time.Minute)
	s.q.Tick() // the first schedule fires at 22:14:20, creating the tube

	ctx := browser(t)
	var d dialogs
	d.listen(ctx)
	var version string
	var fields map[string]string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(s.adm.URL()),
		chromedp.WaitVisible(`body[data-loaded="true"]`, chromedp.ByQuery),
		chromedp.Text(`#version`, &version, chromedp.ByID),
		clickInRow("sched", "tube-name"),
		chromedp.Poll(`document.querySelector('#policy-stats dd[data-key="next run 2"]') !== null`, nil,
			chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Evaluate(`Object.fromEntries(Array.from(document.querySelectorAll('#policy-stats dd')).map(dd => [dd.dataset.key, dd.textContent]))`, &fields),
	))
	assert.Regexp(t, `^protocol 1\.13 · stalkd v1\.2\.3-test · up `, version)
	assert.Equal(t, "@every 1m \u2192 "+hostile, fields["schedule"], "the body as text")
	assert.Equal(t, "2023-11-14 22:14:20Z", fields["last run"])
	assert.Equal(t, "2023-11-14 22:15:20Z", fields["next run"])
	assert.Equal(t, "0 9 * * MON-FRI (Europe/Berlin) \u2192 standup", fields["schedule 2"])
	assert.Equal(t, "never", fields["last run 2"])
	assert.Equal(t, "2023-11-15 09:00:00+01:00", fields["next run 2"])
	assert.Empty(t, d.types(), "no dialog: nothing of the body ran")
}
