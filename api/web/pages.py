"""The pages' HTML: one layout and a small shell per page; ``static/app.js`` fills them in.

No template engine: a handful of shells with escaped values, so the web app adds no dependency.
"""

from __future__ import annotations

from html import escape

#: Bumped when app.js or app.css change, so browsers never run a stale script against new pages.
ASSET_VERSION = "5"

NAV = (("/", "Jobs"), ("/submit", "Submit"), ("/deals", "Deals"), ("/sql", "SQL"), ("/workers", "Workers"),
       ("/docs", "API docs"))


def layout(title: str, page: str, main: str, user: str | None = None, data: dict[str, str] | None = None) -> str:
    """A whole page: head with the app's own assets only, the navigation, ``main``."""
    attrs = "".join(f' data-{k}="{escape(v)}"' for k, v in (data or {}).items())
    nav = "".join(f'<a href="{href}">{escape(label)}</a>' for href, label in NAV) if user else ""
    who = (f'<span class="who">signed in as <b id="who">{escape(user)}</b></span>'
           '<button id="signout" type="button">Sign out</button>') if user else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} · rasklad</title>"
        f'<link rel="stylesheet" href="/static/web/app.css?v={ASSET_VERSION}">'
        '<link rel="icon" href="/static/web/favicon.svg">'
        f'<script src="/static/web/app.js?v={ASSET_VERSION}" defer></script></head>'
        f'<body data-page="{page}"{attrs}><header><a class="brand" href="/">rasklad</a><nav>{nav}</nav>{who}'
        f"</header><main>{main}</main></body></html>"
    )


def signin_page() -> str:
    return layout("Sign in", "signin", """
<h1>Sign in</h1>
<p>Paste your API key (from <code>rasklad keys create --name you</code>). It is checked once and
kept only as a session cookie that scripts cannot read; it never appears in a URL.</p>
<form id="signin-form" autocomplete="off">
  <label for="key">API key</label>
  <input id="key" name="key" type="password" required size="60" autofocus>
  <button type="submit">Sign in</button>
</form>
<p id="signin-error" class="error" role="alert" hidden></p>""")


def jobs_page(user: str) -> str:
    return layout("Jobs", "jobs", """
<h1>Your jobs</h1>
<p class="note"><span id="live">connecting…</span> · <a href="/submit">submit a new job</a></p>
<table id="jobs" class="grid"><thead><tr><th>job</th><th>name</th><th>game</th><th>state</th>
<th>progress</th><th>done</th><th>created</th><th>duration</th></tr></thead><tbody></tbody></table>
<p id="no-jobs" class="note" hidden>No jobs yet: <a href="/submit">submit one</a>.</p>""", user)


def _sql_console(job: str = "") -> str:
    return f"""
<form id="sql-form" class="sql">
  <label for="sql-text">SQL (one SELECT over the views <code>deals</code>, <code>seats</code>, …)</label>
  <textarea id="sql-text" rows="4" spellcheck="false">SELECT bot, count(*) AS n, avg(score) AS mean
FROM seats GROUP BY bot ORDER BY mean DESC</textarea>
  <label for="sql-jobs">jobs (ids or prefixes, comma-separated; empty: your latest job;
  <code>all</code>: every job)</label>
  <input id="sql-jobs" value="{escape(job)}" size="60">
  <button type="submit">Run</button>
</form>
<p id="sql-scope" class="note"></p>
<pre id="sql-error" class="error" hidden></pre>
<p id="sql-downloads" class="note" hidden>Download the result:
<button type="button" data-format="csv">CSV</button> <button type="button" data-format="parquet">Parquet</button>
<button type="button" data-format="jsonl">JSON lines</button> · floats are rounded on this page only (the full value
in each cell's tooltip); the files keep full precision. <span id="sql-dl-note"></span></p>
<div id="sql-result"></div>
<p class="pager" hidden><button id="sql-prev" type="button">◀ previous</button> <span id="sql-page"></span>
<button id="sql-next" type="button">next ▶</button></p>"""


def job_page(user: str, job_id: str) -> str:
    return layout(f"Job {job_id}", "job", f"""
<h1>Job <code>{escape(job_id)}</code> <span id="job-name"></span></h1>
<p id="job-meta" class="note"></p>
<section id="progress"><div class="bar"><div id="bar-fill"></div></div>
<p id="progress-text" aria-live="polite"></p>
<p><button id="cancel" type="button" hidden>Cancel</button> <button id="resume" type="button" hidden>Resume</button></p>
<p id="job-error" class="error" hidden></p></section>
<section id="interim" hidden><h2>Leaderboard so far <small id="interim-shards"></small></h2>
<p class="note">Interim: mean score per <span class="unit-one">deal</span> (each once, its rotations
averaged) over the shards committed so far, with a normal 95% interval over <span class="unit-many">deals</span>;
the full report (paired differences, verdicts) comes when the job has succeeded.</p>
<table id="interim-table" class="grid"><thead><tr><th>#</th><th>bot</th><th class="unit-many">deals</th><th>mean</th>
<th>95% interval</th></tr></thead><tbody></tbody></table></section>
<section id="report" hidden><h2>Report</h2>
<p class="note"><a id="report-page" href="#">the report as a page of its own</a></p>
<div id="report-body"></div></section>
<section id="downloads"><h2>Downloads</h2><ul id="download-list"></ul></section>
<section id="deal-open" hidden><h2>Deals</h2>
<form id="deal-form">deal <input id="deal-no" type="number" min="0" value="0">
rotation <input id="deal-rot" type="number" min="0" value="0"> <button type="submit">Open in the viewer</button></form>
</section>
<section><h2>SQL</h2>{_sql_console(job_id)}</section>""", user, {"job": job_id})


def workers_page(user: str) -> str:
    return layout("Workers", "workers", """
<h1>Workers and queue</h1>
<p class="note"><span id="workers-live">loading…</span> · what the service tracks: the workers that answer a
ping, the shards they hold a lease on (with the units played so far), the shards each committed, and per API
key the shards waiting. Refreshed every few seconds.</p>
<h2>Workers</h2>
<table id="workers-table" class="grid"><thead><tr><th>worker</th><th>alive</th><th>running now</th>
<th>shards committed</th></tr></thead><tbody></tbody></table>
<h2>Queue</h2>
<p id="queue-broker"></p>
<table id="queue-table" class="grid"><thead><tr><th>API key</th><th>active jobs</th><th>shards running</th>
<th>shards queued</th><th>shards not yet queued</th></tr></thead><tbody></tbody></table>""", user)


def submit_page(user: str) -> str:
    return layout("Submit", "submit", """
<h1>Submit a job</h1>
<p><label for="example">Start from an example</label> <select id="example"><option value="">—</option></select>
<label for="format">format</label> <select id="format"><option>yaml</option><option>json</option></select></p>
<textarea id="spec" rows="18" spellcheck="false" aria-describedby="check"></textarea>
<div id="check" class="check" aria-live="polite"></div>
<p><button id="submit" type="button">Submit</button></p>
<ul id="submit-errors" class="error" hidden></ul>
<details id="catalog"><summary>Games and bots (from the registry)</summary><div id="catalog-body"></div></details>""",
                  user)


def deals_page(user: str) -> str:
    return layout("Deals", "deals", """
<h1>Deal viewer</h1>
<form id="deal-pick">job <input id="v-job" size="22" placeholder="j-… or a prefix"> deal
<input id="v-deal" type="number" min="0" value="0" size="5"> rotation
<input id="v-rot" type="number" min="0" value="0" size="3"> <button type="submit">Open</button>
· or a record file <input id="v-file" type="file" accept=".json,application/json"></form>
<pre id="v-error" class="error" hidden></pre>
<section id="viewer" hidden><h2 id="v-title"></h2><p id="v-header" class="note"></p>
<p class="steps"><button id="v-first" type="button" title="first">|◀</button>
<button id="v-prev" type="button">◀</button>
<input id="v-step" type="range" min="0" value="0"><button id="v-next" type="button">▶</button>
<button id="v-last" type="button" title="last">▶|</button> <span id="v-count"></span></p>
<form id="v-nav" class="steps" hidden><button id="v-part-prev" type="button">◀ deal</button>
<label for="v-part">deal</label> <input id="v-part" type="number" min="1" value="1" size="5">
<span id="v-part-count"></span> <button type="submit">Go</button>
<button id="v-part-next" type="button">deal ▶</button></form>
<p id="v-text" class="steptext" aria-live="polite"></p>
<div id="v-action"></div><div id="v-piles"></div><div id="v-scene"></div>
<p id="v-scores" class="note"></p></section>""", user)


def sql_page(user: str) -> str:
    return layout("SQL", "sql", f"<h1>SQL over your jobs</h1>{_sql_console()}", user)


def not_found(user: str, message: str) -> str:
    return layout("Not found", "none", f'<h1>Not found</h1><p class="error">{escape(message)}</p>', user)
