package main

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
