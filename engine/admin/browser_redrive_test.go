package admin

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
)

// TestDashboardRedriveInBrowser: a dead-lettered job (its tube and body
// hostile) shows where it came from and why, as text, in the jobs list and
// the peek panel; the dead-letter tube's row offers a redrive, which after
// its prompt sends the job back; the peek panel's move button moves it on.
func TestDashboardRedriveInBrowser(t *testing.T) {
	s := newStack(t, func(o *Options) { o.SampleInterval = 200 * time.Millisecond })
	require.NoError(t, s.q.SetPolicy(hostileTube, jobs.Policy{MaxReserves: 1, DeadLetter: hostileDead}))
	ss := s.q.NewSession(nil)
	defer ss.Close()
	require.NoError(t, ss.Use([]byte(hostileTube)))
	id, _, err := ss.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte(hostile)})
	require.NoError(t, err)
	_, _, err = ss.ReserveJob(id)
	require.NoError(t, err)
	_, err = ss.Release(id, 0, 0)
	require.NoError(t, err)
	js, err := s.q.StatsJob(id)
	require.NoError(t, err)
	require.Equal(t, hostileDead, js.Tube)
	_, _, err = ss.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte("keeps the origin listed")})
	require.NoError(t, err)
	s.clock.Advance(2 * time.Minute)

	ctx := browser(t) // after the set-up: a failure before the first Run would hang its clean-up
	var d dialogs
	d.listen(ctx)
	var from, fromTitle string
	var peek map[string]string
	var imgs int
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(s.adm.URL()),
		chromedp.WaitVisible(`body[data-loaded="true"]`, chromedp.ByQuery),
		clickInRow(hostileDead, "tube-name"),
		chromedp.Poll(`document.querySelector('#jobs tbody .badge.dead') !== null`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Text(`#jobs tbody .badge.dead`, &from, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#jobs tbody .badge.dead').title`, &fromTitle),
		chromedp.Click(`#jobs tbody button.peek`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#peek-stats dd[data-key="dead letter from"]') !== null`, nil,
			chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Evaluate(`Object.fromEntries(Array.from(document.querySelectorAll('#peek-stats dd')).map(dd => [dd.dataset.key, dd.textContent]))`, &peek),
		chromedp.Evaluate(`document.querySelectorAll('img').length`, &imgs),
	))
	assert.Equal(t, "from "+hostileTube, from)
	assert.Equal(t, jobs.DeadReleased.Text(), fromTitle)
	assert.Equal(t, hostileTube, peek["dead letter from"])
	assert.Equal(t, "max_reserves_released", peek["reason"])
	assert.Equal(t, "2m0s ago", peek["dead-lettered"])
	assert.Equal(t, hostileDead, peek["tube"])
	assert.Zero(t, imgs)

	var png []byte
	require.NoError(t, chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)))
	if dir := os.Getenv("STALKD_SCREENSHOT_DIR"); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "dashboard-dead-letter.png"), png, 0o644))
	}

	// Redrive from the tubes table: an empty answer sends it to its origin.
	d.answer("")
	require.NoError(t, chromedp.Run(ctx, clickInRow(hostileDead, "redrive")))
	enginetest.Eventually(t, "the redrive to reach the queue", func() bool {
		js, err := s.q.StatsJob(id)
		return err == nil && js.Tube == hostileTube
	})
	var status string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Poll(`document.getElementById('status').textContent.includes('moved 1')`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Text(`#status`, &status, chromedp.ByID)))
	assert.Equal(t, "redrive "+hostileDead+": moved 1 ("+hostileTube+" 1)", status)

	// Move it on from the peek panel.
	d.answer("parked")
	require.NoError(t, chromedp.Run(ctx,
		chromedp.SetValue(`#find-id`, strconv.FormatUint(id, 10), chromedp.ByID),
		chromedp.Click(`#find`, chromedp.ByID),
		chromedp.Poll(`document.querySelector('#peek-stats dd[data-key="tube"]').textContent === `+strconv.Quote(hostileTube), nil,
			chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Click(`#peek-actions button.move-job`, chromedp.ByQuery),
	))
	enginetest.Eventually(t, "the move to reach the queue", func() bool {
		js, err := s.q.StatsJob(id)
		return err == nil && js.Tube == "parked"
	})
	seen := d.types()
	assert.Equal(t, []string{"prompt", "prompt"}, dialogTypes(seen), "dialogs: %q (an alert means injected script ran)", seen)
}
