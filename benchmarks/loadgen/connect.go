package loadgen

// runConnect measures connection set-up: each of Conns workers repeatedly
// dials (with the TLS handshake when Config.TLS is set), sends one command
// (list-tube-used), reads its USING reply and closes. An operation is one
// such connection; its latency is dial to reply. With TLS this is the
// handshake rate; compared with a plaintext run, the handshake's cost.
func runConnect(cfg Config) (Result, error) {
	g := newGroup(cfg, cfg.Conns)
	elapsed := g.run(func(_ int, w *worker) error {
		for {
			granted, counted := g.ctl.claim(1)
			if granted == 0 {
				return nil
			}
			t0 := nanotime()
			c, err := cfg.dial()
			if err != nil {
				return err
			}
			r, err := c.Do("list-tube-used")
			c.Close()
			if err != nil {
				return err
			}
			if r.Kind != KindUsing {
				w.fail(r)
			}
			if counted {
				w.hist.Record(nanotime() - t0)
				w.count(1)
			}
		}
	})
	return g.collect(elapsed), nil
}
