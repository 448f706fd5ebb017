// What jackd does with a put refused (OUT_OF_MEMORY) and a put stored
// buried (BURIED <id>). Usage: JACKD_CJS=jackd.cjs node jackd_overflow.cjs PORT
// jackd's package is "type": "module" and its ESM bundle needs a dynamic
// require that Node 20 refuses: run.sh copies its CommonJS bundle to a
// .cjs file and names it in JACKD_CJS.
const { JackdClient } = require(process.env.JACKD_CJS);

async function main() {
  const port = Number(process.argv[2]);
  for (const [tube, word] of [["capped", "OUT_OF_MEMORY"], ["buried", "BURIED <id>"]]) {
    const c = new JackdClient();
    await c.connect({ host: "127.0.0.1", port });
    await c.use(tube);
    await c.put("first");
    try {
      const r = await c.put("second");
      console.log(`jackd ${word}: returned ${JSON.stringify(r)}`);
    } catch (e) {
      console.log(`jackd ${word}: threw ${e.constructor.name} ${e.message}`);
    }
    const s = await c.statsTube(tube);
    console.log(`jackd ${word}: next command: ${s.currentJobsReady} ready`);
    await c.disconnect();
  }
}
main().catch((e) => { console.log("jackd: failed:", e); process.exit(1); });
