package admin

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
)

// hostile is markup a producer might put in a body: it must show as text.
const hostile = `<img src=x onerror=alert(1)><script>alert(2)</script>`

// hostileTube is a valid tube name made of the characters the grammar
// allows that mean something to HTML attributes, JavaScript and URLs.
const hostileTube = `x);alert(1);(/..$_+`

// chromiumPath finds Chromium: $CHROMIUM, then the usual names on PATH.
func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser starts headless Chromium with a fresh profile and returns a
// context for chromedp. It skips the test when Chromium is absent, unless
// CI=true (then the dashboard must be tested).
func browser(t *testing.T) context.Context {
	path := chromiumPath()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but no Chromium found (install Debian's chromium package or set $CHROMIUM)")
		}
		t.Skip("headless Chromium not found (install Debian's chromium package or set $CHROMIUM): dashboard browser test skipped")
	}
	// Not t.TempDir: Chromium's helper processes may still write to the
	// profile for a moment after the browser is gone, and a failed
	// RemoveAll would fail the test.
	profile, err := os.MkdirTemp("", "stalkd-chromium-")
	require.NoError(t, err)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() {
		_ = chromedp.Cancel(ctx) // closes the browser and waits for it
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(20 * time.Millisecond) // helper processes still exiting
		}
		t.Logf("could not remove the browser profile %s", profile)
	})
	return ctx
}

// dialogs answers the page's confirm and prompt dialogs (with the next
// prompt answer) and records every dialog, so that an alert() run by
// injected markup is caught.
type dialogs struct {
	mu      sync.Mutex
	seen    []string // type: message
	answers []string
}

func (d *dialogs) listen(ctx context.Context) {
	chromedp.ListenTarget(ctx, func(ev any) {
		e, ok := ev.(*page.EventJavascriptDialogOpening)
		if !ok {
			return
		}
		d.mu.Lock()
		d.seen = append(d.seen, string(e.Type)+": "+e.Message)
		answer := ""
		if len(d.answers) > 0 {
			answer, d.answers = d.answers[0], d.answers[1:]
		}
		d.mu.Unlock()
		go func() {
			_ = chromedp.Run(ctx, page.HandleJavaScriptDialog(true).WithPromptText(answer))
		}()
	})
}

func (d *dialogs) answer(s string) {
	d.mu.Lock()
	d.answers = append(d.answers, s)
	d.mu.Unlock()
}

func (d *dialogs) types() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.seen...)
}

// tubeRows reads the tubes table: tube name -> counts per state column.
const tubeRowsJS = `Object.fromEntries(Array.from(document.querySelectorAll('#tubes tbody tr')).map(tr =>
  [tr.dataset.tube, Object.fromEntries(Array.from(tr.querySelectorAll('td[data-state]')).map(td => [td.dataset.state, td.textContent]))]))`

// clickInRow clicks the button with class cls in the row of tube name
// (found by comparing dataset values, so any name works).
func clickInRow(name, cls string) chromedp.Action {
	js := `(() => { const tr = Array.from(document.querySelectorAll('#tubes tbody tr')).find(r => r.dataset.tube === ` +
		strconv.Quote(name) + `); tr.querySelector('button.` + cls + `').click(); return true; })()`
	var ok bool
	return chromedp.Evaluate(js, &ok)
}

// TestDashboardInBrowser loads the dashboard in headless Chromium against a
// running server: the tubes table shows what was put, the pause and kick
// buttons act after their dialogs, a hostile body and tube name show as
// text, and a screenshot is saved.
func TestDashboardInBrowser(t *testing.T) {
	ctx := browser(t)
	s := newStack(t, func(o *Options) { o.SampleInterval = 200 * time.Millisecond })
	ss := s.q.NewSession(nil)
	defer ss.Close()
	put := func(tube, body string, n int) (id uint64) {
		require.NoError(t, ss.Use([]byte(tube)))
		for range n {
			var err error
			id, _, err = ss.Put(jobs.PutRequest{Pri: 100, TTR: time.Minute, Body: []byte(body)})
			require.NoError(t, err)
		}
		return id
	}
	put("emails", "send welcome mail", 3)
	buried := put("emails", "bounce", 1)
	_, _, err := ss.ReserveJob(buried)
	require.NoError(t, err)
	_, err = ss.Bury(buried, 100)
	require.NoError(t, err)
	put("resize-images", "img 42", 2)
	evil := put(hostileTube, hostile, 1)
	s.clock.Advance(90 * time.Second)

	var d dialogs
	d.listen(ctx)
	var rows map[string]map[string]string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(s.adm.URL()),
		chromedp.WaitVisible(`body[data-loaded="true"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#tubes tbody tr[data-tube="emails"]`, chromedp.ByQuery),
		chromedp.Evaluate(tubeRowsJS, &rows),
	))
	assert.Equal(t, map[string]string{"ready": "3", "reserved": "0", "delayed": "0", "buried": "1"}, rows["emails"])
	assert.Equal(t, map[string]string{"ready": "2", "reserved": "0", "delayed": "0", "buried": "0"}, rows["resize-images"])
	assert.Equal(t, "1", rows[hostileTube]["ready"], "the hostile tube name is a row like any other")

	// Pause "emails" for 120 s: a prompt, then the queue shows the pause.
	d.answer("120")
	require.NoError(t, chromedp.Run(ctx, clickInRow("emails", "pause")))
	enginetest.Eventually(t, "the pause to reach the queue", func() bool {
		ts, err := s.q.StatsTube([]byte("emails"))
		return err == nil && ts.Pause == 120*time.Second
	})
	require.NoError(t, chromedp.Run(ctx,
		chromedp.WaitVisible(`#tubes tbody tr[data-tube="emails"] td.paused`, chromedp.ByQuery)))

	// Kick "emails": the buried job comes back.
	d.answer("5")
	require.NoError(t, chromedp.Run(ctx, clickInRow("emails", "kick")))
	enginetest.Eventually(t, "the kick to reach the queue", func() bool {
		ts, err := s.q.StatsTube([]byte("emails"))
		return err == nil && ts.Buried == 0 && ts.Ready == 4
	})
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Poll(`document.querySelector('#tubes tbody tr[data-tube="emails"] td[data-state="buried"]').textContent === "0"`, nil,
			chromedp.WithPollingTimeout(20*time.Second))))

	// Peek the hostile job: its body shows as text, nothing runs.
	var bodyText, tubeText string
	var imgs, scripts int
	require.NoError(t, chromedp.Run(ctx,
		chromedp.SetValue(`#find-id`, strconv.FormatUint(evil, 10), chromedp.ByID),
		chromedp.Click(`#find`, chromedp.ByID),
		chromedp.WaitVisible(`#peek`, chromedp.ByID),
		chromedp.Poll(`document.getElementById('peek-body').textContent.length > 0`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Text(`#peek-body`, &bodyText, chromedp.ByID),
		chromedp.Evaluate(`document.querySelector('#peek-stats dd').textContent`, &tubeText),
		chromedp.Evaluate(`document.querySelectorAll('img').length`, &imgs),
		chromedp.Evaluate(`document.querySelectorAll('script').length`, &scripts),
	))
	assert.Equal(t, hostile, bodyText)
	assert.Equal(t, hostileTube, tubeText)
	assert.Zero(t, imgs, "no element was created from the body")
	assert.Equal(t, 1, scripts, "only the dashboard's own script")

	// Some traffic for the throughput chart of the screenshot.
	traffic(t, s, "thumbnails", 2*time.Second)
	require.NoError(t, chromedp.Run(ctx,
		chromedp.WaitVisible(`#tubes tbody tr[data-tube="thumbnails"]`, chromedp.ByQuery)))

	// Screenshot, then delete the hostile job from the peek panel.
	var png []byte
	require.NoError(t, chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)))
	require.NoError(t, os.WriteFile(filepath.Join(t.TempDir(), "dashboard.png"), png, 0o644))
	if dir := os.Getenv("STALKD_SCREENSHOT_DIR"); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "dashboard.png"), png, 0o644))
	}
	require.NoError(t, chromedp.Run(ctx, chromedp.Click(`#peek-actions button.delete-job`, chromedp.ByQuery)))
	enginetest.Eventually(t, "the delete to reach the queue", func() bool {
		_, err := s.q.StatsJob(evil)
		return err != nil
	})

	seen := d.types()
	assert.Equal(t, []string{"prompt", "prompt", "confirm"}, dialogTypes(seen), "dialogs: %q (an alert means injected script ran)", seen)
}

func dialogTypes(seen []string) []string {
	var out []string
	for _, s := range seen {
		typ, _, _ := strings.Cut(s, ": ")
		out = append(out, typ)
	}
	return out
}

// traffic puts, reserves and deletes jobs on tube through a protocol
// client for about d, leaving a third of them ready, so that the
// throughput chart has something to draw. Nothing waits on it.
func traffic(t *testing.T, s *stack, tube string, d time.Duration) {
	c := s.client()
	put := beanstalk.NewTube(c, tube)
	take := beanstalk.NewTubeSet(c, tube)
	end := time.Now().Add(d)
	for i := 0; time.Now().Before(end); i++ {
		_, err := put.Put([]byte("thumb"), 500, 0, time.Minute)
		require.NoError(t, err)
		if i%3 != 0 {
			id, _, err := take.Reserve(0)
			require.NoError(t, err)
			require.NoError(t, c.Delete(id))
		}
	}
}

// TestDashboardReadOnlyInBrowser: on a non-loopback listener the dashboard
// says it is read-only and disables every action button.
func TestDashboardReadOnlyInBrowser(t *testing.T) {
	ctx := browser(t)
	s := newStack(t, func(o *Options) { o.Addr = "0.0.0.0:0" })
	_, port, err := net.SplitHostPort(s.adm.Addr().String())
	require.NoError(t, err)
	var badgeHidden bool
	var enabled, buttons int
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate("http://127.0.0.1:"+port+"/"),
		chromedp.WaitVisible(`body[data-loaded="true"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('readonly').hidden`, &badgeHidden),
		chromedp.Evaluate(`document.querySelectorAll('#tubes tbody button.kick, #tubes tbody button.pause, #tubes tbody button.clear').length`, &buttons),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#tubes tbody button.kick, #tubes tbody button.pause, #tubes tbody button.clear')).filter(b => !b.disabled).length`, &enabled),
	))
	assert.False(t, badgeHidden, "the read-only badge shows")
	assert.Equal(t, 3, buttons, "kick, pause and clear for tube default")
	assert.Zero(t, enabled)
}
