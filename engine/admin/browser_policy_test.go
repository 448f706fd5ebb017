package admin

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// hostileDead is a dead-letter tube name that means something to
// JavaScript and HTML attributes: it is shown as text, never run.
const hostileDead = `y);alert(3);(/$_`

// TestDashboardPolicyInBrowser: a tube with a policy carries a badge in the
// tubes table; its panel shows the policy's fields and the policy counts,
// and a hostile tube name in the policy shows as text. The policies panel
// lists every policy with its counters, one whose tube does not exist yet
// included (marked "no tube").
func TestDashboardPolicyInBrowser(t *testing.T) {
	s := newStack(t, func(o *Options) { o.SampleInterval = 200 * time.Millisecond })
	require.NoError(t, s.q.SetPolicy(hostileTube, jobs.Policy{MaxReserves: 1, DeadLetter: hostileDead, MaxReady: 50}))
	require.NoError(t, s.q.SetPolicy("later", jobs.Policy{MaxReady: 5, Overflow: jobs.OverflowBury}))
	ss := s.q.NewSession(nil)
	defer ss.Close()
	require.NoError(t, ss.Use([]byte(hostileTube)))
	id, _, err := ss.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte(hostile)})
	require.NoError(t, err)
	_, _, err = ss.ReserveJob(id)
	require.NoError(t, err)
	_, err = ss.Release(id, 0, 0) // the first reserve was the last allowed: dead-lettered
	require.NoError(t, err)
	ti, err := s.q.InspectTube([]byte(hostileTube))
	require.NoError(t, err)
	require.Equal(t, uint64(1), ti.DeadLettered, "the queue counted the dead letter")
	_, _, err = ss.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte("keep the tube alive")})
	require.NoError(t, err)

	ctx := browser(t) // after the set-up: a failure before the first Run would hang its clean-up
	var d dialogs
	d.listen(ctx)
	var badges int
	var fields map[string]string
	var imgs int
	var policies []map[string]string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(s.adm.URL()),
		chromedp.WaitVisible(`body[data-loaded="true"]`, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#tubes tbody tr')).filter(r => r.querySelector('.badge.policy')).map(r => r.dataset.tube).length`, &badges),
		clickInRow(hostileTube, "tube-name"),
		chromedp.Poll(`document.querySelector('#policy-stats dd[data-key="dead-lettered"]') !== null`, nil,
			chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Evaluate(`Object.fromEntries(Array.from(document.querySelectorAll('#policy-stats dd')).map(dd => [dd.dataset.key, dd.textContent]))`, &fields),
		chromedp.Evaluate(`document.querySelectorAll('img').length`, &imgs),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#policies tbody tr')).map(r => ({
			tube: r.dataset.tube, name: r.cells[0].textContent, policy: r.cells[1].textContent,
			dead: r.querySelector('td[data-key="dead_lettered"]').textContent}))`, &policies),
	))
	assert.Equal(t, []map[string]string{
		{"tube": "later", "name": "laterno tube", "policy": "max ready 5, overflow bury", "dead": "0"},
		{"tube": hostileTube, "name": hostileTube, "policy": "max reserves 1, dead letter " + hostileDead + ", max ready 50", "dead": "1"},
	}, policies, "every policy, the one without a tube too")
	assert.Equal(t, 1, badges, "only the tube with a policy has the badge")
	assert.Equal(t, map[string]string{
		"max reserves": "1", "dead letter": hostileDead, "max ready": "50",
		"dead-lettered": "1", "refused full": "0", "overflowed": "0", "rate-limited waits": "0", "scheduled puts": "0",
	}, fields)
	assert.Zero(t, imgs)
	assert.Empty(t, d.types(), "no dialog: nothing of the names ran")

	var png []byte
	require.NoError(t, chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)))
	if dir := os.Getenv("STALKD_SCREENSHOT_DIR"); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "dashboard-policy.png"), png, 0o644))
	}
}
