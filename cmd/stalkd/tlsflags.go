package main

import (
	"crypto/tls"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine/tlscert"
)

// tlsFlags are --tls ADDR, --tls-cert FILE, --tls-key FILE and
// --tls-client-ca FILE.
type tlsFlags struct {
	addr, cert, key, clientCA string
}

func init() {
	addStringFlags(map[string]func(o *options) *string{
		"tls":           func(o *options) *string { return &o.tls.addr },
		"tls-cert":      func(o *options) *string { return &o.tls.cert },
		"tls-key":       func(o *options) *string { return &o.tls.key },
		"tls-client-ca": func(o *options) *string { return &o.tls.clientCA },
	})
}

// tlsUsage documents the TLS flags, after the other long flags.
const tlsUsage = ` --tls ADDR
          also listen on ADDR (host:port) for the protocol inside TLS;
          needs --tls-cert and --tls-key (reloaded on SIGHUP); use
          -l none to turn the plain listener off
 --tls-cert FILE, --tls-key FILE
          the server's PEM certificate (chain) and key
 --tls-client-ca FILE
          require a client certificate signed by a CA in FILE (mutual TLS)
`

// check reports a TLS flag given without the others it needs.
func (f tlsFlags) check(plainOff bool) error {
	switch {
	case f.addr == "" && (f.cert != "" || f.key != "" || f.clientCA != ""):
		return usageError("--tls-cert, --tls-key and --tls-client-ca need --tls")
	case f.addr != "" && (f.cert == "" || f.key == ""):
		return usageError("--tls needs --tls-cert and --tls-key")
	case plainOff && f.addr == "":
		return usageError("-l none turns the plain listener off: it needs --tls")
	}
	return nil
}

// config loads the certificate and builds the listener's TLS settings; nil
// without --tls.
func (f tlsFlags) config() (*tls.Config, *tlscert.CertFiles, error) {
	if f.addr == "" {
		return nil, nil, nil
	}
	certs, err := tlscert.LoadCertFiles(f.cert, f.key)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := tlscert.ServerTLSConfig(certs, f.clientCA)
	if err != nil {
		return nil, nil, err
	}
	return cfg, certs, nil
}

// reloadCerts reads the certificate and key again (SIGHUP). New handshakes
// use the new pair; open connections are left alone; on error the old
// pair stays.
func reloadCerts(certs *tlscert.CertFiles, log zerolog.Logger) {
	if err := certs.Reload(); err != nil {
		log.Error().Str("component", "tls").Err(err).Msg("keeping the certificate in use")
		return
	}
	ev := log.Info().Str("component", "tls")
	if leaf, err := certs.Leaf(); err == nil {
		ev = ev.Str("subject", leaf.Subject.String()).Time("not_after", leaf.NotAfter)
	}
	ev.Msg("reloaded the certificate")
}
