// rasklad web app: small vanilla JS over the /v1 API (the session cookie authenticates).
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
};

// Every request that changes something carries this header (see api/web/session.py). With ``accept``
// (a file's media type) a successful answer is returned as {blob, headers}; errors are read as JSON.
async function api(method, path, body, type, accept) {
  const opts = { method, headers: { "X-Rasklad-Web": "1" }, credentials: "same-origin" };
  if (body !== undefined) {
    opts.body = typeof body === "string" ? body : JSON.stringify(body);
    opts.headers["Content-Type"] = type || "application/json";
  }
  if (accept) opts.headers.Accept = accept;
  const r = await fetch(path, opts);
  if (accept && r.ok) return { blob: await r.blob(), headers: r.headers };
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) {
    const detail = (data && data.detail) || [{ field: "", message: r.statusText }];
    const err = new Error(detail.map((d) => (d.field ? d.field + ": " : "") + d.message).join("\n"));
    err.status = r.status; err.detail = detail;
    if (r.status === 401 && document.body.dataset.page !== "signin") location.href = "/signin";
    throw err;
  }
  return data;
}

// Save a blob as a file through the browser's own download (an object URL, freed after the click).
function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el("a", { href: url, download: name, hidden: "" });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

const fmt = {
  num: (x, d = 4) => (x === null || x === undefined ? "–" : (x >= 0 ? "+" : "") + Number(x).toFixed(d)),
  int: (x) => (x === null || x === undefined ? "–" : Number(x).toLocaleString("en")),
  when: (s) => (s ? new Date(s).toISOString().replace("T", " ").slice(0, 19) : "–"),
  secs: (s) => {
    if (s === null || s === undefined) return "–";
    s = Math.round(s);
    return s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${Math.floor(s / 3600)} h ${Math.floor(s % 3600 / 60)} min`;
  },
  // A rate with the precision it needs (as the CLI's rate_text): 12,345 · 45.6 · 0.0213 (a slow unit
  // such as a Raspisnoy match would otherwise read 0).
  // A query cell: floats rounded for display only (4 decimals; 3 significant digits below 0.001),
  // the value itself in the cell's title; the downloads keep full precision.
  cell: (v) => {
    if (v === null || v === undefined) return { text: "–" };
    if (typeof v === "number" && !Number.isInteger(v) && Number.isFinite(v)) {
      return { text: Math.abs(v) >= 1e-3 ? v.toFixed(4) : Number(v.toPrecision(3)).toString(), title: String(v) };
    }
    return { text: typeof v === "object" ? JSON.stringify(v) : String(v) };
  },
  rate: (x) => (x >= 100 ? Math.round(x).toLocaleString("en") : x >= 1 ? x.toFixed(1) : Number(x.toPrecision(3)).toString()),
};

function duration(j) {
  if (!j.started_at) return null;
  const end = j.finished_at ? new Date(j.finished_at) : new Date();
  return (end - new Date(j.started_at)) / 1000;
}

// ------------------------------------------------------------------------------ sign in / out
function signin() {
  $("#signin-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const box = $("#signin-error");
    box.hidden = true;
    try {
      await api("POST", "/web/session", { key: $("#key").value });
      location.href = "/";
    } catch (e) {
      box.textContent = e.status === 401 ? "That key is unknown or revoked." : e.message;
      box.hidden = false;
    }
  });
}

function signoutButton() {
  const b = $("#signout");
  if (b) b.addEventListener("click", async () => { await api("POST", "/web/session/end"); location.href = "/signin"; });
}

// ------------------------------------------------------------------------------------ jobs list
function jobsList() {
  const tbody = $("#jobs tbody");
  const live = $("#live");
  const src = new EventSource("/web/api/events");
  src.addEventListener("jobs", (ev) => {
    const jobs = JSON.parse(ev.data);
    live.textContent = `live · updated ${new Date().toLocaleTimeString()}`;
    $("#no-jobs").hidden = jobs.length > 0;
    tbody.replaceChildren(...jobs.map((j) => {
      const pct = j.shards_total ? Math.round(100 * j.shards_done / j.shards_total) : 0;
      const bar = el("div", { class: "bar small" }, el("div", { style: `width:${pct}%` }));
      return el("tr", { "data-job": j.id, "data-state": j.state },
        el("td", {}, el("a", { href: `/jobs/${j.id}`, text: j.id })),
        el("td", { text: j.name || "" }), el("td", { text: j.game || j.kind }),
        el("td", { class: `state ${j.state}`, text: j.state }),
        el("td", {}, bar, el("span", { text: ` ${j.shards_done}/${j.shards_total}` })),
        el("td", { text: `${fmt.int(j.deals_done)} ${j.unit || "deals"}` }), el("td", { text: fmt.when(j.created_at) }),
        el("td", { text: fmt.secs(duration(j)) }));
    }));
  });
  src.onerror = () => { live.textContent = "reconnecting…"; };
}

// -------------------------------------------------------------------------------------- job page
function jobPage() {
  const id = document.body.dataset.job;
  let interimTimer = null;
  const show = (j) => {
    // Units, not shards, fill the bar: a shard of Preferans pulkas takes minutes, and its units are
    // counted as they are played (deals_done includes the running shards' units).
    const pct = j.deals_total ? 100 * j.deals_done / j.deals_total : j.shards_total ? 100 * j.shards_done / j.shards_total : 0;
    $("#bar-fill").style.width = `${pct}%`;
    const unit = j.unit || "deals";
    const rate = j.deals_per_s ? ` · ${fmt.rate(j.deals_per_s)} ${unit}/s` : "";
    const eta = j.eta_s !== null && j.eta_s !== undefined && !["succeeded", "failed", "cancelled"].includes(j.state)
      ? ` · ETA ${fmt.secs(j.eta_s)}` : "";
    $("#progress-text").textContent = `${j.state}: ${j.shards_done}/${j.shards_total} shards, ` +
      `${fmt.int(j.deals_done)}/${fmt.int(j.deals_total)} ${unit}${rate}${eta}`;
    $("#progress-text").dataset.state = j.state;
    $("#job-meta").textContent = `${j.kind} · ${j.game || ""} · created ${fmt.when(j.created_at)}` +
      (j.finished_at ? ` · took ${fmt.secs(duration(j))}` : "");
    $("#cancel").hidden = !["queued", "running"].includes(j.state);
    $("#resume").hidden = !["cancelled", "failed"].includes(j.state);
    $("#job-error").hidden = !j.error;
    $("#job-error").textContent = j.error || "";
    $("#deal-open").hidden = j.kind !== "tournament";
  };
  const interim = async () => {
    const r = await api("GET", `/web/api/jobs/${id}/interim`);
    if (!r.rows.length) return;
    $("#interim").hidden = false;
    $("#interim-shards").textContent = `(${r.job.shards_done} of ${r.job.shards_total} shards)`;
    document.querySelectorAll("#interim .unit-many").forEach((e) => { e.textContent = r.job.unit || "deals"; });
    document.querySelectorAll("#interim .unit-one").forEach((e) => { e.textContent = r.unit_one || "deal"; });
    $("#interim-table tbody").replaceChildren(...r.rows.map((x, i) => el("tr", {},
      el("td", { text: String(i + 1) }), el("td", { text: x.bot }), el("td", { text: fmt.int(x.deals) }),
      el("td", { text: fmt.num(x.mean) }), el("td", { text: x.lo === null ? "–" : `[${fmt.num(x.lo)}, ${fmt.num(x.hi)}]` }))));
  };
  const downloads = async () => {
    const r = await api("GET", `/web/api/jobs/${id}/tables`);
    $("#download-list").replaceChildren(...r.tables.map((t) => el("li", {}, el("b", { text: t }), " ",
      ...["parquet", "csv", "jsonl"].map((f) => el("a", {
        href: `/v1/jobs/${id}/tables/${t}?format=${f}`, download: `${id}-${t}.${f}`, class: "dl", "data-format": f,
        text: f })).flatMap((a) => [" ", a])))); 
    if (!r.tables.length) $("#download-list").replaceChildren(el("li", { text: "no table yet" }));
  };
  const finished = async (j) => {
    show(j);
    if (interimTimer) clearInterval(interimTimer);
    await downloads();
    if (j.state === "succeeded") {
      $("#interim").hidden = true;
      $("#report").hidden = false;
      $("#report-page").href = `/v1/jobs/${id}/report.html`;
      // Laid out in the page (no fixed-height frame): the server renders the report's fragment, its
      // styles scoped to it, every user string escaped; the page's CSP runs no script from it.
      const r = await fetch(`/web/api/jobs/${id}/report`, { headers: { "X-Rasklad-Web": "1" }, credentials: "same-origin" });
      if (r.ok) {
        const doc = new DOMParser().parseFromString(await r.text(), "text/html");
        $("#report-body").replaceChildren(...doc.body.childNodes);
      }
    } else if (j.kind === "tournament") await interim();
  };
  const follow = () => {
    const src = new EventSource(`/v1/jobs/${id}/events`);
    src.addEventListener("progress", (ev) => { const j = JSON.parse(ev.data); show(j); });
    src.addEventListener("end", (ev) => { src.close(); finished(JSON.parse(ev.data)); });
  };
  api("GET", `/v1/jobs/${id}`).then((j) => {
    if (["succeeded", "failed", "cancelled"].includes(j.state)) { finished(j); return; }
    show(j);
    downloads();
    if (j.kind === "tournament") { interim(); interimTimer = setInterval(() => { interim(); downloads(); }, 2000); }
    follow();
  });
  $("#cancel").addEventListener("click", async () => { await api("POST", `/v1/jobs/${id}/cancel`); });
  $("#resume").addEventListener("click", async () => { await api("POST", `/v1/jobs/${id}/resume`); location.reload(); });
  $("#deal-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    location.href = `/deals?job=${id}&deal=${$("#deal-no").value}&rotation=${$("#deal-rot").value}`;
  });
  sqlConsole();
}

// ------------------------------------------------------------------------------------ SQL console
const PAGE_ROWS = 50;
function sqlConsole() {
  let result = null;
  let page = 0;
  const draw = () => {
    const rows = result.rows.slice(page * PAGE_ROWS, (page + 1) * PAGE_ROWS);
    const table = el("table", { class: "grid", id: "sql-table" },
      el("thead", {}, el("tr", {}, ...result.columns.map((c) => el("th", { text: c })))),
      el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((v) => el("td", fmt.cell(v)))))));
    $("#sql-result").replaceChildren(table);
    const pages = Math.max(1, Math.ceil(result.rows.length / PAGE_ROWS));
    document.querySelector(".pager").hidden = pages <= 1;
    $("#sql-page").textContent = `page ${page + 1} of ${pages} (${result.rows.length} rows${result.truncated ? ", cut at the row limit" : ""})`;
    $("#sql-prev").disabled = page === 0;
    $("#sql-next").disabled = page >= pages - 1;
  };
  $("#sql-prev").addEventListener("click", () => { page -= 1; draw(); });
  $("#sql-next").addEventListener("click", () => { page += 1; draw(); });
  let ran = null;  // the body of the query shown: its downloads run it again, with the same limits
  $("#sql-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const jobs = $("#sql-jobs").value.trim();
    const body = { sql: $("#sql-text").value };
    if (jobs === "all") body.all_jobs = true; else if (jobs) body.jobs = jobs.split(",").map((s) => s.trim()).filter(Boolean);
    $("#sql-error").hidden = true;
    try {
      result = await api("POST", "/v1/query", body);
      // The downloads name the jobs the query ran over, so a new job between run and download
      // does not change what "your latest job" means.
      ran = { ...body, jobs: result.jobs, all_jobs: undefined };
      page = 0;
      const partial = (result.partial || []).map((p) => ` · partial data: ${p.job} has ${p.shards_done}/${p.shards_total} shards`).join("");
      $("#sql-scope").textContent = `over ${result.jobs.length === 1 ? "job " + result.jobs[0] : result.jobs.length + " jobs"}${partial}`;
      $("#sql-downloads").hidden = false;
      draw();
    } catch (e) {
      ran = null;
      $("#sql-downloads").hidden = true;
      $("#sql-result").replaceChildren();
      $("#sql-error").textContent = e.message;  // in full, with DuckDB's hints
      $("#sql-error").hidden = false;
    }
  });
  // The result as a file: POST /v1/query with the format's Accept (the API's encoder and limits).
  document.querySelectorAll("#sql-downloads button[data-format]").forEach((b) => b.addEventListener("click", async () => {
    if (!ran) return;
    const f = b.dataset.format;
    const name = `query-${ran.jobs.length === 1 ? ran.jobs[0] : ran.jobs.length + "-jobs"}.${f}`;
    $("#sql-error").hidden = true;
    b.disabled = true;
    try {
      const r = await api("POST", "/v1/query", ran, undefined, SQL_FILES[f]);
      saveBlob(r.blob, name);
      $("#sql-dl-note").textContent = r.headers.get("X-Rasklad-Truncated") ? "the file was cut at the row limit, as the table above" : "";
    } catch (e) {
      $("#sql-error").textContent = e.message;
      $("#sql-error").hidden = false;
    } finally {
      b.disabled = false;
    }
  }));
}
const SQL_FILES = { csv: "text/csv", parquet: "application/vnd.apache.parquet", jsonl: "application/x-ndjson" };

// ---------------------------------------------------------------------------------- workers page
function workersPage() {
  const draw = async () => {
    let r;
    try { r = await api("GET", "/web/api/workers"); } catch (e) { $("#workers-live").textContent = e.message; return; }
    $("#workers-live").textContent = `updated ${fmt.when(new Date().toISOString())}` +
      (r.broker_answered ? "" : " · the broker did not answer the ping");
    const shard = (x) => x.job ? `${x.job} shard ${x.shard}` : `a ${x.game} shard of another key`;
    $("#workers-table tbody").replaceChildren(...r.workers.map((w) => el("tr", { "data-worker": w.name },
      el("td", {}, el("code", { text: w.name })),
      el("td", { class: w.alive ? "state succeeded" : "state failed", text: w.alive === null ? "?" : w.alive ? "yes" : "no" }),
      el("td", { text: w.running.length ? w.running.map((x) => `${shard(x)} (${fmt.int(x.units)} units${x.committing ? ", committing" : ""})`).join("; ") : "idle" }),
      el("td", { text: fmt.int(w.committed) }))));
    if (!r.workers.length) $("#workers-table tbody").replaceChildren(el("tr", {}, el("td", { colspan: "4", text: "no worker seen" })));
    $("#queue-broker").textContent = `${fmt.int(r.broker_queue)} shard tasks waiting in the broker`;
    $("#queue-table tbody").replaceChildren(...r.keys.map((k) => el("tr", { "data-key": k.key },
      el("td", { text: k.key }), el("td", { text: fmt.int(k.jobs) }), el("td", { text: fmt.int(k.running) }),
      el("td", { text: fmt.int(k.queued) }), el("td", { text: fmt.int(k.not_queued) }))));
    if (!r.keys.length) $("#queue-table tbody").replaceChildren(el("tr", {}, el("td", { colspan: "5", text: "no active job" })));
  };
  draw();
  setInterval(draw, 3000);
}

// ----------------------------------------------------------------------------------- submit page
function submitPage() {
  const spec = $("#spec");
  const check = $("#check");
  let timer = null;
  let examples = [];
  const toYaml = (o) => Object.entries(o).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join("\n") + "\n";
  // Every problem of the spec, each with its field, in one place: the check box (a refused submit
  // shows its problems there too, not a second time below the button).
  const problems = (detail, source) => {
    check.replaceChildren();
    check.className = "check bad";
    check.dataset.source = source;
    const n = detail.length;
    check.append(el("p", { class: "count", text: n === 1 ? "1 problem" : `${n} problems` }),
      el("ul", {}, ...detail.map((d) => el("li", { "data-field": d.field || "" }, el("code", { text: d.field || "spec" }), " ", d.message))));
  };
  const validate = async () => {
    const r = await api("POST", "/web/api/validate", { text: spec.value, format: $("#format").value });
    check.replaceChildren();
    if (r.ok) {
      check.className = "check ok";
      check.dataset.source = "check";
      const what = r.plan.kind === "tournament" ? (r.plan.unit || "deals") : "samples";
      check.textContent = `✓ valid: ${r.plan.kind} ${r.plan.game || ""}, ${fmt.int(r.plan.deals)} ${what} in ${r.plan.shards} shards`;
    } else {
      problems(r.detail, "check");
    }
  };
  spec.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(validate, 250); });
  $("#format").addEventListener("change", validate);
  api("GET", "/web/api/examples").then((r) => {
    examples = r.examples;
    $("#example").append(...examples.map((x, i) => el("option", { value: String(i), text: x.title })));
  });
  Promise.all([api("GET", "/v1/games"), api("GET", "/v1/bots")]).then(([g, b]) => {
    const param = ([name, sch]) => el("li", {}, el("code", { text: name }),
      ` ${[].concat(sch.type || sch.enum || "").join("|")}` + ("default" in sch ? `, default ${JSON.stringify(sch.default)}` : "") +
      (sch.description ? ` — ${sch.description}` : ""));
    $("#catalog-body").replaceChildren(...g.games.map((game) => el("div", { class: "game", "data-game": game.name },
      el("h3", {}, el("code", { text: game.name }), ` ${game.title || ""}`),
      el("ul", {}, ...b.bots.filter((x) => (x.games || [x.name.split("/")[0]]).includes(game.name)).map((x) =>
        el("li", { "data-bot": x.name }, el("code", { text: x.name }), ` ${x.description || ""}`,
          el("ul", {}, ...Object.entries((x.params_schema || {}).properties || {}).map(param))))))));
  });
  $("#example").addEventListener("change", () => {
    const x = examples[Number($("#example").value)];
    if (!x) return;
    spec.value = $("#format").value === "json" ? JSON.stringify(x.spec, null, 2) : toYaml(x.spec);
    validate();
  });
  $("#submit").addEventListener("click", async () => {
    const errs = $("#submit-errors");
    errs.hidden = true;
    try {
      const type = $("#format").value === "json" ? "application/json" : "application/yaml";
      const job = await api("POST", "/v1/jobs", spec.value, type);
      location.href = `/jobs/${job.id}`;
    } catch (e) {
      if (e.status === 422 && e.detail) {
        problems(e.detail, "submit");
        return;
      }
      errs.replaceChildren(...(e.detail || [{ field: "", message: e.message }]).map((d) =>
        el("li", {}, el("code", { text: d.field || "spec" }), " ", d.message)));
      errs.hidden = false;
    }
  });
}

// ----------------------------------------------------------------------------------- deal viewer
const SUITS = { c: ["♣", "black"], d: ["♦", "red"], h: ["♥", "red"], s: ["♠", "black"] };
const DICE = ["", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
function card(c) {
  if (typeof c !== "string" || c.length < 2) return el("span", { class: "card", text: String(c) });
  if (c.startsWith("Jk")) return el("span", { class: "card joker", title: c, "data-card": c, text: "🃏" });
  const [sym, color] = SUITS[c[1]] || ["?", "black"];
  const rank = c[0] === "T" ? "10" : c[0];
  return el("span", { class: `card ${color}`, title: c, "data-card": c, text: rank + sym });
}
const cardRow = (cards) => el("span", { class: "cards" }, ...cards.map(card));

// A game's scene (games/core/scene.py): zones on the table, a box per seat, small tables. Every card is
// an element with data-card (its id as records write it), every die data-die (1-6), every note data-note.
function sceneItems(g) {
  const item = (node, i) => {
    if (g.down && g.down[i]) node.classList.add("down");
    if (g.hot && g.hot[i]) node.classList.add("hot");
    const mark = g.marks && g.marks[i];
    return mark ? el("span", { class: "item" }, node, el("small", { text: mark })) : node;
  };
  if (g.cards && g.cards.length) return el("span", { class: "cards" }, ...g.cards.map((c, i) => item(card(c), i)));
  if (g.dice) return el("span", { class: "dice-row" }, ...g.dice.map((d, i) =>
    item(el("span", { class: "die", title: String(d), "data-die": String(d), text: DICE[d] || String(d) }), i)));
  if (g.notes) return el("span", { class: "notes" }, ...g.notes.map((n, i) =>
    item(el("span", { class: "note-bill", title: n, "data-note": n, text: n }), i)));
  return null;
}
function sceneGroup(g) {
  return el("div", { class: "group" }, el("span", { class: "label", text: g.label }), sceneItems(g) || "",
    g.text ? el("span", { class: "gtext", text: g.text }) : "");
}
function drawScene(sc, actingSeat) {
  const seats = el("div", { class: "seats" }, ...sc.seats.map((s) => el("div",
    { class: `seatbox${s.acting ? " acting" : ""}`, "data-seat": String(s.seat) },
    el("div", { class: "seathead" }, el("b", { text: `seat ${s.seat}` }),
      ...s.tags.map((t) => el("span", { class: "tag", text: t })), s.text ? el("span", { class: "gtext", text: s.text }) : ""),
    ...s.groups.map(sceneGroup))));
  const tables = sc.tables.map((t) => el("details", { class: "scene-table", open: "" }, el("summary", { text: t.label }),
    el("table", { class: "grid" }, el("thead", {}, el("tr", {}, ...t.columns.map((c) => el("th", { text: c })))),
      el("tbody", {}, ...t.rows.map((r) => el("tr", {}, ...r.map((c) => el("td", { text: c }))))))));
  return [el("div", { class: "pile zones" }, ...sc.zones.map(sceneGroup)), seats, ...tables];
}

function dealsPage() {
  let data = null;
  const slider = $("#v-step");
  const draw = (i) => {
    const f = data.frames[i];
    slider.value = String(i);
    $("#v-count").textContent = `step ${i} of ${data.frames.length - 1}`;
    $("#v-text").textContent = f.seat === null || f.seat === undefined ? f.text : `${f.text}`;
    $("#v-action").replaceChildren(...(f.action_cards || []).map((a) => el("div", { class: "pile" },
      el("span", { class: "label", text: a.field }), ...a.cards.map(cardRow))),
      ...(f.action_dice || []).map((a) => el("div", { class: "pile" }, el("span", { class: "label", text: a.field }),
        el("span", { class: "dice", text: (a.dice || []).map((d) => DICE[d] || d).join(" ") }))));
    $("#v-scene").replaceChildren(...(f.scene ? drawScene(f.scene, f.seat) : []));
    $("#v-piles").replaceChildren(...(f.piles || []).map((p) => p.seats
      ? el("div", { class: "pile" }, el("span", { class: "label", text: p.label }),
        ...p.seats.map((h, s) => el("div", { class: `seat${f.seat === s ? " acting" : ""}` },
          el("span", { class: "label", text: `seat ${s}` }), cardRow(h))))
      : el("div", { class: "pile" }, el("span", { class: "label", text: p.label }), cardRow(p.cards))));
    const lastPart = !data.parts || data.part === data.parts.length - 1; // a match's scores come at its end
    $("#v-scores").textContent = i === data.frames.length - 1 && lastPart ? data.scores : "";
  };
  const open = (d) => {
    data = d;
    $("#viewer").hidden = false;
    $("#v-error").hidden = true;
    $("#v-title").textContent = data.title;
    $("#v-header").textContent = data.header + (data.described ? "" : " (this game has no render description: actions as text)");
    slider.max = String(data.frames.length - 1);
    // A match shows one deal at a time (data.parts: every deal and its action count): jump to deal N.
    $("#v-nav").hidden = !data.parts;
    $("#viewer").dataset.part = String(data.part ?? 0);
    if (data.parts) {
      $("#v-part").max = String(data.parts.length);
      $("#v-part").value = String(data.part + 1);
      $("#v-part-count").textContent = `of ${data.parts.length} (${data.parts[data.part].actions} actions)`;
    }
    draw(0);
  };
  const fail = (e) => { $("#viewer").hidden = true; $("#v-error").textContent = e.message; $("#v-error").hidden = false; };
  const step = (k) => { if (data) draw(Math.max(0, Math.min(data.frames.length - 1, Number(slider.value) + k))); };
  $("#v-first").addEventListener("click", () => data && draw(0));
  $("#v-last").addEventListener("click", () => data && draw(data.frames.length - 1));
  $("#v-prev").addEventListener("click", () => step(-1));
  $("#v-next").addEventListener("click", () => step(1));
  slider.addEventListener("input", () => data && draw(Number(slider.value)));
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT" && ev.target.type !== "range") return;
    if (ev.key === "ArrowRight") step(1); else if (ev.key === "ArrowLeft") step(-1);
  });
  let source = null; // how the open record is fetched again for another deal of a match
  const fetchPart = (part) => (source.file !== undefined
    ? api("POST", `/web/api/deal?part=${part}`, source.file)
    : api("GET", `/web/api/jobs/${encodeURIComponent(source.job)}/deals/${source.deal}?rotation=${source.rot}&part=${part}`));
  const load = (job, deal, rot) => { source = { job, deal, rot }; fetchPart(0).then(open, fail); };
  const goPart = (k) => {
    if (!data || !data.parts) return;
    fetchPart(Math.max(0, Math.min(data.parts.length - 1, k))).then(open, fail);
  };
  $("#v-nav").addEventListener("submit", (ev) => { ev.preventDefault(); goPart(Number($("#v-part").value) - 1); });
  $("#v-part-prev").addEventListener("click", () => data && goPart(data.part - 1));
  $("#v-part-next").addEventListener("click", () => data && goPart(data.part + 1));
  $("#deal-pick").addEventListener("submit", (ev) => {
    ev.preventDefault();
    load($("#v-job").value.trim(), $("#v-deal").value, $("#v-rot").value);
  });
  $("#v-file").addEventListener("change", async () => {
    const f = $("#v-file").files[0];
    if (f) { source = { file: await f.text() }; fetchPart(0).then(open, fail); }
  });
  const q = new URLSearchParams(location.search);
  if (q.get("job")) {
    $("#v-job").value = q.get("job"); $("#v-deal").value = q.get("deal") || "0"; $("#v-rot").value = q.get("rotation") || "0";
    load(q.get("job"), q.get("deal") || 0, q.get("rotation") || 0);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  signoutButton();
  const pages = { signin, jobs: jobsList, job: jobPage, submit: submitPage, deals: dealsPage, sql: sqlConsole, workers: workersPage };
  const run = pages[document.body.dataset.page];
  if (run) run();
});
