// stalkd dashboard. Everything shown comes from /v1/ and may hold
// attacker-controlled text (tube names, job bodies): it is only ever put in
// the page with textContent or as attribute values via dataset, never as
// HTML. No inline script runs (Content-Security-Policy: script-src 'self').
"use strict";

const REFRESH_MS = 2000;
const PAGE = 50;
const STATES = ["ready", "reserved", "delayed", "buried"];
const COLORS = { puts: "#2a7de1", reserves: "#e1a02a", deletes: "#2f9e5b" };

const state = { tube: null, jobState: "ready", offset: 0, prevTubes: new Map(), prevAt: 0, canMutate: false };

const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function setStatus(msg, isErr) {
  const s = $("status");
  s.textContent = msg;
  s.className = isErr ? "err" : "muted";
}

// With --auth-token-file the API needs a bearer token: the page asks for it
// once and keeps it for the browser tab (sessionStorage), never in a cookie.
const TOKEN_KEY = "stalkd-token";

function askToken(show) {
  $("login").hidden = !show;
  if (show) $("token").focus();
}

async function api(method, path, json) {
  const headers = { Accept: "application/json" };
  const tok = sessionStorage.getItem(TOKEN_KEY);
  if (tok) headers.Authorization = "Bearer " + tok;
  const init = { method, headers, cache: "no-store" };
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(json);
  }
  const res = await fetch(path, init);
  if (res.status === 401) {
    sessionStorage.removeItem(TOKEN_KEY);
    askToken(true);
  }
  let body = null;
  try { body = await res.json(); } catch (_) { /* not JSON */ }
  if (!res.ok) {
    const msg = body && body.error ? body.error.message : res.status + " " + res.statusText;
    throw new Error(msg);
  }
  return body;
}

const tubePath = (name) => "/v1/tubes/" + encodeURIComponent(name);

function fmtAge(s) {
  if (!s) return "-";
  if (s < 60) return s.toFixed(s < 10 ? 1 : 0) + "s";
  if (s < 3600) return Math.floor(s / 60) + "m" + Math.floor(s % 60) + "s";
  if (s < 86400) return Math.floor(s / 3600) + "h" + Math.floor((s % 3600) / 60) + "m";
  return Math.floor(s / 86400) + "d" + Math.floor((s % 86400) / 3600) + "h";
}

function fmtRate(r) { return r === null ? "-" : r < 10 ? r.toFixed(1) : Math.round(r).toString(); }

function replaceRows(tbody, rows) {
  tbody.replaceChildren(...rows);
}

// ---- summary cards ----
function renderSummary(st) {
  $("version").textContent = (st.protocol_version ? "protocol " + st.protocol_version + " · " : "") +
    "stalkd v" + st.version + " · up " + fmtAge(st.uptime_seconds);
  $("draining").hidden = !st.draining;
  $("readonly").hidden = st.mutations_allowed;
  state.canMutate = st.mutations_allowed;
  const cards = [
    ["ready", st.jobs.ready], ["reserved", st.jobs.reserved], ["delayed", st.jobs.delayed],
    ["buried", st.jobs.buried], ["tubes", st.tubes], ["connections", st.connections],
    ["workers", st.workers], ["waiting", st.waiting], ["producers", st.producers],
    ["jobs created", st.total_jobs], ["timeouts", st.job_timeouts],
  ];
  $("summary").replaceChildren(...cards.map(([k, v]) => {
    const c = el("div", null, "card");
    c.dataset.key = k;
    c.append(el("div", v, "v"), el("div", k, "k"));
    return c;
  }));
}

// ---- tubes table ----
function actionButton(label, cls, onClick) {
  const b = el("button", label, cls);
  b.type = "button";
  b.disabled = !state.canMutate;
  b.addEventListener("click", onClick);
  return b;
}

function renderTubes(data) {
  const now = performance.now();
  const dt = state.prevAt ? (now - state.prevAt) / 1000 : 0;
  // Tubes some listed policy dead-letters into: their rows offer a redrive.
  const deadLetters = new Set(data.tubes.filter((t) => t.policy && t.policy.dead_letter).map((t) => t.policy.dead_letter));
  const rows = data.tubes.map((t) => {
    const tr = el("tr");
    tr.dataset.tube = t.name;
    const name = el("td");
    const link = el("button", t.name, "linkish tube-name");
    link.type = "button";
    link.addEventListener("click", () => openTube(t.name));
    name.append(link);
    if (t.policy) name.append(el("span", "policy", "badge policy"));
    tr.append(name);
    for (const s of STATES) {
      const td = el("td", t.jobs[s]);
      td.dataset.state = s;
      tr.append(td);
    }
    const prev = state.prevTubes.get(t.name);
    const rate = prev !== undefined && dt > 0 ? Math.max(0, (t.total_jobs - prev) / dt) : null;
    tr.append(el("td", t.urgent), el("td", t.waiting), el("td", fmtRate(rate)),
      el("td", fmtAge(t.oldest_ready_age_seconds)));
    const paused = el("td", t.paused ? fmtAge(t.pause_left_seconds) + " left" : "no", t.paused ? "paused" : "");
    paused.dataset.col = "paused";
    tr.append(paused);
    const acts = el("td");
    acts.append(
      actionButton("kick", "kick", () => kickTube(t.name)),
      actionButton("pause", "pause", () => pauseTube(t.name)),
      actionButton("clear", "clear danger", () => clearTube(t.name)),
    );
    if (deadLetters.has(t.name)) acts.append(actionButton("redrive", "redrive", () => redriveTube(t.name)));
    tr.append(acts);
    return tr;
  });
  replaceRows(document.querySelector("#tubes tbody"), rows);
  $("tubecount").textContent = data.truncated
    ? "(" + data.tubes.length + " largest of " + data.total_tubes + ")"
    : "(" + data.total_tubes + ")";
  state.prevTubes = new Map(data.tubes.map((t) => [t.name, t.total_jobs]));
  state.prevAt = now;
}

// ---- actions (each confirmed first) ----
async function act(method, path, what, json) {
  try {
    await api(method, path, json);
    setStatus(what + ": done");
  } catch (e) {
    setStatus(what + ": " + e.message, true);
  }
  await refresh();
}

// A redrive sends a dead-letter tube's jobs back to the tube each came
// from (empty answer), or all to the tube named.
async function redriveTube(name) {
  const to = window.prompt("Redrive tube \u201c" + name + "\u201d: its ready, buried and delayed jobs go back to the tube each " +
    "came from. Leave empty for that, or name one tube to send them all to.", "");
  if (to === null) return;
  const body = to.trim() ? { to: to.trim() } : {};
  try {
    const r = await api("POST", tubePath(name) + "/redrive", body);
    const where = Object.entries(r.to).map(([t, n]) => t + " " + n).join(", ");
    let msg = "redrive " + name + ": moved " + r.moved + (where ? " (" + where + ")" : "");
    if (r.no_origin) msg += "; " + r.no_origin + " remember no origin (name a tube to move them)";
    setStatus(msg);
  } catch (e) {
    setStatus("redrive " + name + ": " + e.message, true);
  }
  await refresh();
}

function moveJob(id) {
  const to = window.prompt("Move job " + id + " to which tube? (it keeps its id and state)", "");
  if (to === null || !to.trim()) return;
  act("POST", "/v1/jobs/" + id + "/move", "move job " + id, { tube: to.trim() }).then(() => peekJob(id));
}

function kickTube(name) {
  const n = window.prompt("Kick how many jobs of tube \u201c" + name + "\u201d? (buried first, else delayed)", "1");
  if (n === null) return;
  act("POST", tubePath(name) + "/kick?n=" + encodeURIComponent(n.trim()), "kick " + name);
}

function pauseTube(name) {
  const s = window.prompt("Pause tube \u201c" + name + "\u201d for how many seconds? (0 ends a pause)", "60");
  if (s === null) return;
  act("POST", tubePath(name) + "/pause?seconds=" + encodeURIComponent(s.trim()), "pause " + name);
}

function clearTube(name) {
  if (!window.confirm("Delete every ready, delayed and buried job of tube \u201c" + name + "\u201d?")) return;
  act("POST", tubePath(name) + "/clear", "clear " + name);
}

function deleteJob(id) {
  if (!window.confirm("Delete job " + id + "?")) return;
  act("DELETE", "/v1/jobs/" + id, "delete job " + id).then(() => {
    if ($("peek-id").textContent === String(id)) $("peek").hidden = true;
  });
}

function kickJob(id) {
  if (!window.confirm("Kick job " + id + " back to ready?")) return;
  act("POST", "/v1/jobs/" + id + "/kick", "kick job " + id);
}

// ---- drill-down ----
function openTube(name) {
  state.tube = name;
  state.offset = 0;
  $("detail").hidden = false;
  $("detail-name").textContent = name;
  const rd = $("detail-redrive");
  rd.disabled = !state.canMutate;
  renderTabs();
  loadJobs();
}

function renderTabs() {
  $("states").replaceChildren(...STATES.map((s) => {
    const b = el("button", s);
    b.type = "button";
    b.setAttribute("role", "tab");
    b.setAttribute("aria-selected", String(s === state.jobState));
    b.dataset.state = s;
    b.addEventListener("click", () => { state.jobState = s; state.offset = 0; renderTabs(); loadJobs(); });
    return b;
  }));
}

// ---- a tube's policy and its counts (from /v1/tubes/{tube}) ----
function policyRows(p) {
  if (!p) return [["policy", "none"]];
  const rows = [];
  if (p.max_reserves) rows.push(["max reserves", p.max_reserves]);
  if (p.dead_letter) rows.push(["dead letter", p.dead_letter]);
  if (p.max_ready) rows.push(["max ready", p.max_ready]);
  if (p.overflow) rows.push(["overflow", p.overflow]);
  if (p.reserve_rate) rows.push(["reserve rate", p.reserve_rate + "/s"]);
  (p.schedule || []).forEach((sc, i) => {
    const n = i === 0 ? "" : " " + (i + 1);
    rows.push(["schedule" + n, sc.cron + (sc.tz ? " (" + sc.tz + ")" : "") + " \u2192 " + sc.body]);
    rows.push(["last run" + n, fmtRun(sc.last_run, "never")], ["next run" + n, fmtRun(sc.next_run, "-")]);
  });
  return rows.length ? rows : [["policy", "empty"]];
}

// fmtRun shows a schedule's run time as the API gives it (RFC 3339, in the
// schedule's zone), or none.
function fmtRun(t, none) { return t ? t.replace("T", " ") : none; }

async function loadPolicy() {
  if (state.tube === null) return;
  let t;
  try {
    t = await api("GET", tubePath(state.tube));
  } catch (e) {
    $("policy-stats").replaceChildren(el("dt", "policy"), el("dd", e.message));
    return;
  }
  const rows = policyRows(t.policy).concat([["dead-lettered", t.dead_lettered], ["refused full", t.refused_full],
    ["overflowed", t.overflowed], ["rate-limited waits", t.rate_limited_waits], ["scheduled puts", t.scheduled_puts]]);
  $("policy-stats").replaceChildren(...rows.flatMap(([k, v]) => {
    const dd = el("dd", v);
    dd.dataset.key = k;
    return [el("dt", k), dd];
  }));
}

async function loadJobs() {
  if (state.tube === null) return;
  loadPolicy();
  let data;
  try {
    data = await api("GET", tubePath(state.tube) + "/jobs?state=" + state.jobState +
      "&offset=" + state.offset + "&count=" + PAGE);
  } catch (e) {
    replaceRows(document.querySelector("#jobs tbody"), [el("tr", "")]);
    $("page").textContent = e.message;
    return;
  }
  const rows = data.jobs.map((j) => {
    const tr = el("tr");
    tr.dataset.job = String(j.id);
    const body = el("td", j.body.text + (j.body.truncated ? "\u2026" : ""), "body");
    body.title = j.body.text;
    if (j.dead_letter) {
      const from = el("span", "from " + j.dead_letter.origin, "badge dead");
      from.title = j.dead_letter.reason_text;
      body.prepend(from, document.createTextNode(" "));
    }
    tr.append(el("td", j.id), el("td", j.pri), el("td", fmtAge(j.age_seconds)),
      el("td", j.time_left_seconds ? fmtAge(j.time_left_seconds) : "-"), el("td", j.body.size), body);
    const acts = el("td");
    const peek = el("button", "peek", "peek");
    peek.type = "button";
    peek.addEventListener("click", () => peekJob(j.id));
    acts.append(peek);
    if (data.state === "buried" || data.state === "delayed") acts.append(actionButton("kick", "kick-job", () => kickJob(j.id)));
    if (data.state !== "reserved") acts.append(actionButton("delete", "delete-job danger", () => deleteJob(j.id)));
    tr.append(acts);
    return tr;
  });
  replaceRows(document.querySelector("#jobs tbody"), rows);
  const last = Math.min(state.offset + data.jobs.length, data.total);
  $("page").textContent = data.total ? (state.offset + 1) + "\u2013" + last + " of " + data.total : "no " + data.state + " jobs";
  $("prev").disabled = state.offset === 0;
  $("next").disabled = state.offset + PAGE >= data.total;
}

async function peekJob(id) {
  let j;
  try {
    j = await api("GET", "/v1/jobs/" + id);
  } catch (e) {
    setStatus("peek " + id + ": " + e.message, true);
    return;
  }
  $("peek").hidden = false;
  $("peek-id").textContent = String(j.id);
  const stats = [["tube", j.tube], ["state", j.state], ["pri", j.pri], ["age", fmtAge(j.age_seconds)],
    ["ttr", j.ttr_seconds + "s"], ["reserves", j.reserves], ["timeouts", j.timeouts],
    ["releases", j.releases], ["buries", j.buries], ["kicks", j.kicks], ["size", j.body.size + " bytes"]];
  if (j.dead_letter) {
    const d = j.dead_letter;
    stats.push(["dead letter from", d.origin], ["reason", d.reason], ["dead-lettered", fmtAge(d.age_seconds) + " ago"]);
  }
  $("peek-stats").replaceChildren(...stats.flatMap(([k, v]) => {
    const dd = el("dd", v);
    dd.dataset.key = k;
    return [el("dt", k), dd];
  }));
  const notes = [];
  if (j.body.truncated) notes.push("showing the first " + j.body.returned + " of " + j.body.size + " bytes");
  if (!j.body.utf8) notes.push("not valid UTF-8: invalid bytes shown as \uFFFD; see base64 for the exact bytes");
  $("peek-note").textContent = notes.join("; ");
  const acts = [];
  if (j.state === "buried" || j.state === "delayed") acts.push(actionButton("kick", "kick-job", () => kickJob(j.id)));
  if (j.state !== "reserved") acts.push(actionButton("move", "move-job", () => moveJob(j.id)));
  if (j.state !== "reserved") acts.push(actionButton("delete", "delete-job danger", () => deleteJob(j.id)));
  $("peek-actions").replaceChildren(...acts);
  $("peek-body").textContent = j.body.text;
  $("peek-b64").textContent = j.body.base64;
}

// ---- throughput chart (canvas, no library) ----
function drawChart(h) {
  const c = $("chart");
  const dpr = window.devicePixelRatio || 1;
  const w = c.clientWidth || 900, ht = c.clientHeight || 180;
  c.width = w * dpr; c.height = ht * dpr;
  const g = c.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, ht);
  const s = h.samples;
  const series = { puts: [], reserves: [], deletes: [] };
  for (let i = 1; i < s.length; i++) {
    const dt = (s[i].t - s[i - 1].t) / 1000;
    if (dt <= 0) continue;
    for (const k of Object.keys(series)) series[k].push({ t: s[i].t, v: Math.max(0, (s[i][k] - s[i - 1][k]) / dt) });
  }
  const pad = { l: 48, r: 8, t: 8, b: 20 };
  const t1 = s.length ? s[s.length - 1].t : Date.now();
  const t0 = s.length > 1 ? s[0].t : t1 - 60000; // the history kept so far
  let top = 1;
  for (const k of Object.keys(series)) for (const p of series[k]) top = Math.max(top, p.v);
  top = niceCeil(top);
  const x = (t) => pad.l + ((t - t0) / (t1 - t0 || 1)) * (w - pad.l - pad.r);
  const y = (v) => ht - pad.b - (v / top) * (ht - pad.t - pad.b);
  g.strokeStyle = "#e2e5ea"; g.fillStyle = "#6b7385"; g.font = "11px system-ui"; g.lineWidth = 1;
  for (let i = 0; i <= 4; i++) {
    const v = (top * i) / 4;
    g.beginPath(); g.moveTo(pad.l, y(v)); g.lineTo(w - pad.r, y(v)); g.stroke();
    g.fillText(fmtRate(v), 4, y(v) + 4);
  }
  const span = (t1 - t0) / 1000;
  g.fillText("-" + (span < 120 ? Math.round(span) + " s" : Math.round(span / 60) + " min"), pad.l, ht - 4);
  g.fillText("now", w - pad.r - 24, ht - 4);
  for (const k of Object.keys(series)) {
    g.strokeStyle = COLORS[k]; g.lineWidth = 2; g.beginPath();
    series[k].forEach((p, i) => (i ? g.lineTo(x(p.t), y(p.v)) : g.moveTo(x(p.t), y(p.v))));
    g.stroke();
  }
  const last = (k) => (series[k].length ? series[k][series[k].length - 1].v : 0);
  $("legend").replaceChildren(...Object.keys(series).map((k) => {
    const span = el("span");
    const sw = el("i");
    sw.style.background = COLORS[k];
    span.append(sw, document.createTextNode(k + " " + fmtRate(last(k)) + "/s"));
    return span;
  }));
}

function niceCeil(v) {
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}

// ---- every policy, with its counters (from /v1/policies): a policy
// outlives its tube and may come before it, so it is listed here whether
// or not the tube exists ----
function policySummary(p) {
  return policyRows(p).map(([k, v]) => k + " " + v).join(", ");
}

function renderPolicies(data) {
  const names = Object.keys(data.policies).sort();
  const counters = data.counters || {};
  $("policycount").textContent = "(" + names.length + ")";
  const rows = names.map((name) => {
    const c = counters[name] || {};
    const tr = el("tr");
    tr.dataset.tube = name;
    const td = el("td", name);
    if (!c.tube_exists) td.append(el("span", "no tube", "badge"));
    tr.append(td, el("td", policySummary(data.policies[name])));
    for (const k of ["dead_lettered", "refused_full", "overflowed", "rate_limited_waits", "scheduled_puts"]) {
      const n = el("td", c[k] || 0);
      n.dataset.key = k;
      tr.append(n);
    }
    return tr;
  });
  if (!rows.length) rows.push(el("tr", "no policies"));
  replaceRows(document.querySelector("#policies tbody"), rows);
}

// ---- refresh loop ----
async function refresh() {
  try {
    const [st, tubes, hist, pols] = await Promise.all([api("GET", "/v1/stats"), api("GET", "/v1/tubes"),
      api("GET", "/v1/history"), api("GET", "/v1/policies")]);
    renderSummary(st);
    renderTubes(tubes);
    renderPolicies(pols);
    drawChart(hist);
    if (state.tube !== null) await loadJobs();
    document.body.dataset.loaded = "true";
    askToken(false);
  } catch (e) {
    setStatus("refresh failed: " + e.message, true);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("prev").addEventListener("click", () => { state.offset = Math.max(0, state.offset - PAGE); loadJobs(); });
  $("next").addEventListener("click", () => { state.offset += PAGE; loadJobs(); });
  const find = () => {
    const id = $("find-id").value.trim();
    if (/^[0-9]+$/.test(id)) peekJob(id); else setStatus("a job id is a number", true);
  };
  $("find").addEventListener("click", find);
  $("detail-redrive").addEventListener("click", () => { if (state.tube !== null) redriveTube(state.tube); });
  $("find-id").addEventListener("keydown", (e) => { if (e.key === "Enter") find(); });
  $("login").addEventListener("submit", (e) => {
    e.preventDefault();
    const tok = $("token").value.trim();
    if (!tok) return;
    sessionStorage.setItem(TOKEN_KEY, tok);
    $("token").value = "";
    askToken(false);
    refresh();
  });
  refresh();
  setInterval(refresh, REFRESH_MS);
});
