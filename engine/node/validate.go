package node

import (
	"fmt"
	"strings"

	"github.com/stalkd/stalkd/engine"
)

// ConfigError is a Config that Start refuses, or a policy file it cannot
// use: the reason, each field at fault named by Config.Names (the
// daemon's flags) or by its own name ("Cluster.ID").
type ConfigError struct{ msg string }

// Error is the reason, fields named.
func (e *ConfigError) Error() string { return e.msg }

// render replaces each {Field} of text with names(Field) (the field when
// names is nil).
func render(text string, names func(string) string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(text[i:], '}')
		if j < 0 {
			break
		}
		field := text[i+1 : i+j]
		b.WriteString(text[:i])
		if names != nil {
			field = names(field)
		}
		b.WriteString(field)
		text = text[i+j+1:]
	}
	b.WriteString(text)
	return b.String()
}

// say formats a message whose format names Config fields in braces
// ({Cluster.ID}), in the vocabulary of c.Names; the arguments are
// inserted as they are.
func (c *Config) say(format string, args ...any) string {
	return fmt.Sprintf(render(format, c.Names), args...)
}

// refuse is a ConfigError of c (see say).
func (c *Config) refuse(format string, args ...any) error {
	return &ConfigError{msg: c.say(format, args...)}
}

// Validate reports the first rule c breaks, as a *ConfigError; nil when
// Start can run it (files are read by Start, not here). It is the one
// place of these rules: the daemon calls it while it parses its flags.
func (c Config) Validate() error {
	if err := c.validateTLS(); err != nil {
		return err
	}
	if err := c.validateCluster(); err != nil {
		return err
	}
	switch {
	case c.Queue != nil && !c.Journal.isZero():
		return c.refuse("{Queue} is served as it was opened: {Journal} must be zero with it")
	case c.Journal.SegmentSize < 0 || c.Journal.SyncInterval < 0:
		return c.refuse("negative {Journal.SegmentSize} or {Journal.SyncInterval}")
	}
	return nil
}

// validateTLS checks the client TLS listener's settings.
func (c *Config) validateTLS() error {
	f := c.TLS
	switch {
	case c.Engine.TLSAddr == "" && (f.Cert != "" || f.Key != "" || f.ClientCA != ""):
		return c.refuse("{TLS.Cert}, {TLS.Key} and {TLS.ClientCA} need {Engine.TLSAddr}")
	case c.Engine.TLSAddr != "" && c.Engine.TLSConfig == nil && (f.Cert == "" || f.Key == ""):
		return c.refuse("{Engine.TLSAddr} needs {TLS.Cert} and {TLS.Key}")
	case c.Engine.Addr == engine.NoPlainListener && c.Engine.TLSAddr == "":
		return c.refuse("{Engine.Addr} none turns the plain listener off: it needs {Engine.TLSAddr}")
	}
	return nil
}

// validateCluster checks the cluster settings.
func (c *Config) validateCluster() error {
	cl := c.Cluster
	if err := c.validateNodeTLS(); err != nil {
		return err
	}
	if cl.ID == "" {
		if cl.Addr != "" || len(cl.Peers) > 0 || cl.Timeout != 0 {
			return c.refuse("{Cluster.Addr}, {Cluster.Peers} and {Cluster.Timeout} need {Cluster.ID}")
		}
		return nil
	}
	switch {
	case cl.Addr == "":
		return c.refuse("{Cluster.ID} needs {Cluster.Addr}")
	case c.Journal.Dir == "":
		return c.refuse("cluster mode needs {Journal.Dir}, a directory for the raft log and snapshots")
	case strings.HasPrefix(c.Engine.Addr, "unix:"):
		return c.refuse("cluster mode serves TCP only, not {Engine.Addr} unix:")
	case strings.HasPrefix(c.Engine.TLSAddr, "unix:"):
		return c.refuse("cluster mode serves TCP only, not {Engine.TLSAddr} unix:")
	case cl.Timeout < 0:
		return c.refuse("negative {Cluster.Timeout}")
	case c.Queue != nil:
		return c.refuse("a cluster member serves the replicated queue: {Queue} must be nil with {Cluster.ID}")
	}
	return nil
}

// validateNodeTLS wants all three node TLS files or none, and a cluster.
func (c *Config) validateNodeTLS() error {
	f := c.Cluster.TLS
	if !f.given() {
		return nil
	}
	if c.Cluster.ID == "" {
		return c.refuse("{Cluster.TLS.Cert}, {Cluster.TLS.Key} and {Cluster.TLS.CA} need {Cluster.ID}")
	}
	for _, m := range []struct{ v, name string }{
		{f.Cert, "{Cluster.TLS.Cert}"}, {f.Key, "{Cluster.TLS.Key}"}, {f.CA, "{Cluster.TLS.CA}"},
	} {
		if m.v == "" {
			return c.refuse("node TLS needs all of {Cluster.TLS.Cert}, {Cluster.TLS.Key} and {Cluster.TLS.CA}: " + m.name + " is missing")
		}
	}
	return nil
}
