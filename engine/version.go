package engine

// Version is stalkd's own version: printed by stalkd -v, logged at start,
// reported by the admin API and the build-info metric. It is the one place
// the string lives.
const Version = "0.2.0"

// ProtocolVersion is the beanstalkd protocol version stalkd implements, and
// what the stats document reports as version. Clients gate features on it
// (a Java client asserts at least 1.4.4, a Perl client skips kick-job below
// 1.8), so it names the reference release whose protocol we speak, not our
// own release.
const ProtocolVersion = "1.13"
