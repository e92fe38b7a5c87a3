// The demo page: a client of the API like any other, no build step (its
// libraries, marked and DOMPurify, are vendored browser builds). It
// streams answers with fetch (so it can send a bearer token), keeps the
// conversation id the stream names, and reads everything else from the
// conversation routes.
"use strict";

const $ = (sel) => document.querySelector(sel);
const state = { conversationId: null, abort: null, graphAbort: null, lastGraphId: "", retry: null };

// The headers a stage reads the user's token from: Authorization where the
// Function URL is public, X-User-Authorization behind CloudFront (prod),
// where origin access control signs the request and overwrites
// Authorization. The default sends the token in both, so one page works
// with either stage: each stage reads its own header and ignores the other.
const tokenHeaders = ["Authorization", "X-User-Authorization"];
const bothTokenHeaders = "both";

// Settings: ?api=, ?token= and ?tokenHeader= override what was saved (handy
// for a link).
function settings() {
  const saved = JSON.parse(localStorage.getItem("regintel.settings") || "{}");
  const q = new URLSearchParams(location.search);
  const header = q.get("tokenHeader") || saved.tokenHeader || "";
  return {
    baseUrl: (q.get("api") || saved.baseUrl || "").replace(/\/+$/, ""),
    token: q.get("token") || saved.token || "",
    tokenHeader: tokenHeaders.find((h) => h.toLowerCase() === header.toLowerCase()) || bothTokenHeaders,
  };
}

// tokenHeaderNames lists the headers the token goes in for a setting.
function tokenHeaderNames(setting) {
  return setting === bothTokenHeaders ? tokenHeaders : [setting];
}

function initSettings() {
  const form = $("#settings-form");
  const s = settings();
  form.baseUrl.value = s.baseUrl;
  form.token.value = s.token;
  form.tokenHeader.value = s.tokenHeader;
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    localStorage.setItem("regintel.settings", JSON.stringify({
      baseUrl: form.baseUrl.value.trim(), token: form.token.value.trim(), tokenHeader: form.tokenHeader.value,
    }));
    $("#settings").open = false;
    loadConversations();
  });
}

// Behind CloudFront with origin access control, the signed origin request
// needs the SHA-256 of the body from the client: x-amz-content-sha256.
async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function request(path, { method = "GET", body, signal, headers = {} } = {}) {
  const s = settings();
  const h = { ...headers };
  if (s.token) for (const name of tokenHeaderNames(s.tokenHeader)) h[name] = "Bearer " + s.token;
  if (body !== undefined) h["Content-Type"] = "application/json";
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (method !== "GET" && method !== "HEAD") h["x-amz-content-sha256"] = await sha256Hex(payload ?? "");
  return fetch(s.baseUrl + path, { method, headers: h, signal, body: payload });
}

async function json(path, opts) {
  const resp = await request(path, opts);
  if (resp.status === 204) {
    await resp.text(); // read to the end, so the browser does not count it aborted
    return null;
  }
  const data = await resp.json();
  if (!resp.ok) throw new Error(data.error ? data.error.message : "HTTP " + resp.status);
  return data;
}

// readEvents calls onEvent(name, data, id) for each SSE frame of a fetch body.
async function readEvents(resp, onEvent) {
  const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    let end;
    while ((end = buf.indexOf("\n\n")) >= 0) {
      const frame = buf.slice(0, end);
      buf = buf.slice(end + 2);
      let name = "message", data = "", id = "";
      for (const line of frame.split("\n")) {
        if (line.startsWith("event: ")) name = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
        else if (line.startsWith("id: ")) id = line.slice(4);
      }
      if (data) onEvent(name, JSON.parse(data), id);
    }
  }
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  node.append(...children);
  return node;
}

// formatValue writes a fact's number with its unit: "13.5%", "€232 per
// week" (a currency, per its period when the unit names one), "12 tonnes".
function formatValue(value, unit = "") {
  if (value === null || value === undefined) return "";
  if (unit === "%") return value.toLocaleString("en-IE") + "%";
  const [currency, per] = unit.split("/");
  if (/^[A-Z]{3}$/.test(currency)) {
    let amount;
    try {
      const cents = Number.isInteger(value) ? 0 : 2;
      amount = new Intl.NumberFormat("en-IE", { style: "currency", currency, minimumFractionDigits: cents }).format(value);
    } catch {
      amount = currency + " " + value.toLocaleString("en-IE");
    }
    return per ? amount + " per " + per.replaceAll("_", " ") : amount;
  }
  return (value.toLocaleString("en-IE") + " " + unit.replaceAll("_", " ")).trim();
}

// validity names a fact's valid time: its dates, "in force" while it has no end.
function validity(c) {
  if (!c.validFrom && !c.validTo) return "no dates recorded";
  return "valid " + (c.validFrom || "…") + " – " + (c.validTo || "in force");
}

const statusWords = { announced: "announced, not yet in force", enacted: "enacted", in_force: "in force", superseded: "superseded" };

function badge(cls, text) { return el("span", { class: "badge " + cls }, text); }

// citationItem shows what the answer rests on: the fact, its value and
// dates, its status, how sure the source is, and a link to the source.
function citationItem(c) {
  const label = c.label || c.nodeId;
  const head = el("div", { class: "citation-head" }, el("span", { class: "citation-label" }, label));
  const value = formatValue(c.value, c.unit);
  if (value) head.append(el("strong", { class: "citation-value" }, value));
  const facts = el("div", { class: "citation-facts" });
  if ("validFrom" in c || "validTo" in c) facts.append(el("span", {}, validity(c)));
  if (c.status) facts.append(badge("status-" + c.status, statusWords[c.status] || c.status));
  if (c.mayBeOutdated) facts.append(badge("stale", "may be out of date"));
  if (c.confidence === "corroborated") facts.append(badge("corroborated", "corroborated: no official page, two secondary sources agree"));
  if (c.lastVerifiedAt) facts.append(el("span", {}, "checked " + c.lastVerifiedAt.slice(0, 10)));
  if (c.url) {
    let host = c.url;
    try { host = new URL(c.url).hostname.replace(/^www\./, ""); } catch { /* keep the URL as written */ }
    facts.append(el("a", { href: c.url, target: "_blank", rel: "noopener", "aria-label": "Source of “" + label + "”: " + host }, host + " ↗"));
  }
  return el("li", { "data-node-id": c.nodeId }, head, facts);
}

function citationList(citations) {
  const list = el("ul", { class: "citations" });
  for (const c of citations || []) list.append(citationItem(c));
  if (!list.children.length) return list;
  return el("details", { class: "sources", open: "" }, el("summary", {}, "What this answer rests on (" + list.children.length + ")"), list);
}

// asOfLine says which date the answer is about and where that date came from.
function asOfLine(asOf) {
  if (!asOf || !asOf.date) return null;
  const day = new Date(asOf.date + "T00:00:00Z").toLocaleDateString("en-IE", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
  const why = {
    request: "the date you chose",
    question: asOf.phrase ? "named in your question (“" + asOf.phrase + "”)" : "named in your question",
    today: "today: neither you nor the question named a date",
  }[asOf.source] || asOf.source;
  return el("p", { class: "asof" }, el("strong", {}, "As of " + day), " — " + why);
}

// showMetadata adds a turn's as-of date and citations under its answer.
function showMetadata(li, metadata) {
  const line = asOfLine(metadata && metadata.asOf);
  if (line) li.append(line);
  li.append(citationList(metadata && metadata.citations));
}

// renderMarkdown shows an answer's markdown as HTML, sanitised by DOMPurify
// (the model's text is not trusted: no script, handler or javascript: URL,
// and no image or form, which could call out); links open in a new tab. Without the
// libraries the text is shown as it is.
function renderMarkdown(target, text) {
  if (!window.marked || !window.DOMPurify) {
    target.textContent = text;
    return;
  }
  target.innerHTML = DOMPurify.sanitize(marked.parse(text, { gfm: true }), { FORBID_TAGS: ["img", "form", "input", "style"] });
  for (const a of target.querySelectorAll("a[href]")) {
    a.target = "_blank";
    a.rel = "noopener noreferrer";
  }
}

// addTurn adds a question and its answer, which screen readers hear as it
// arrives (a polite live region, busy while it streams), and scrolls it
// into view. The answer's markdown is kept in text and shown in body.
function addTurn(question) {
  const body = el("div", { class: "markdown" });
  const answer = el("div", { class: "answer", "aria-live": "polite" }, body);
  const li = el("li", { class: "turn" }, el("div", { class: "question" }, question), answer);
  const turn = { li, answer, body, text: "" };
  const copy = el("button", { type: "button", class: "copy", onclick: () => reported(copyAnswer(turn, copy)) });
  labelCopy(copy, "Copy", question);
  li.append(el("div", { class: "turn-actions" }, copy));
  $("#turns").append(li);
  li.scrollIntoView({ block: "nearest" });
  return turn;
}

// copyAnswer puts a turn's answer, as markdown, on the clipboard. Where the
// clipboard API is missing (a page served over plain HTTP from another
// host), a selected text area is copied instead.
async function copyAnswer(turn, button) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(turn.text);
  } else {
    const area = el("textarea", { class: "visually-hidden", "aria-hidden": "true", tabindex: "-1" });
    area.value = turn.text;
    document.body.append(area);
    area.select();
    const copied = document.execCommand("copy");
    area.remove();
    if (!copied) throw new Error("the browser refused to copy");
  }
  labelCopy(button, "Copied", button.dataset.question);
  setStatus("answer copied");
  setTimeout(() => labelCopy(button, "Copy", button.dataset.question), 2000);
}

// labelCopy sets a Copy button's text and its name, which names the turn
// and starts with the visible text (as speech input expects).
function labelCopy(button, text, question) {
  button.dataset.question = question;
  button.textContent = text;
  button.setAttribute("aria-label", text + " the answer to “" + question.slice(0, 60) + "”");
}

// setAnswer replaces a turn's answer text and shows it.
function setAnswer(turn, text) {
  turn.text = text;
  renderMarkdown(turn.body, text);
}

// followAnswer keeps the growing answer in view unless the reader scrolled up.
function followAnswer(turn) {
  const list = $("#turns");
  if (list.scrollHeight - list.scrollTop - list.clientHeight < 80) turn.li.scrollIntoView({ block: "end" });
}

// The open conversation is in the URL (#c=<id>), so a reload restores it.
function conversationFromURL() {
  const id = new URLSearchParams(location.hash.slice(1)).get("c");
  return id && /^[0-9a-f-]{36}$/i.test(id) ? id : null;
}

function setConversation(id) {
  state.conversationId = id;
  const hash = id ? "#c=" + id : "";
  if (location.hash !== hash) history.replaceState(null, "", location.pathname + location.search + hash);
}

// offerRetry shows the Retry button, which sends body again; null hides it.
function offerRetry(body, question) {
  state.retry = body ? { body, question } : null;
  $("#retry").hidden = !body;
}

function setStatus(text) { $("#status").textContent = text; }

// failTurn marks a turn failed with a message the reader sees, never empty.
function failTurn(turn, message) {
  turn.answer.classList.add("failed");
  turn.answer.removeAttribute("aria-busy");
  turn.li.append(el("div", { class: "warning" }, message));
}

function streaming(on) {
  $("#send").disabled = on;
  $("#stop").disabled = !on;
}

// streamTurn posts a turn and renders its events; JSON answers (errors, a
// partial supply) are shown in the turn. A failure (the network, the model,
// Stop) leaves a status and a Retry button, never an empty turn.
async function streamTurn(path, body, question, turn = addTurn(question)) {
  state.abort = new AbortController();
  offerRetry(null);
  streaming(true);
  setStatus("thinking…");
  turn.answer.setAttribute("aria-busy", "true");
  const progress = { started: false, status: "" };
  try {
    const resp = await request(path, { method: "POST", body, signal: state.abort.signal });
    if (!(resp.headers.get("Content-Type") || "").startsWith("text/event-stream")) {
      const data = await resp.json();
      failTurn(turn, data.missing ? "Still missing: " + data.missing.map((m) => m.key).join(", ") : data.error.message);
      if (data.contextRequest) showContextForm(data.contextRequest);
      setStatus("not answered");
      if (resp.status >= 500 || resp.status === 409) offerRetry(body, question);
      return;
    }
    const id = resp.headers.get("X-Conversation-Id");
    if (id) setConversation(id);
    await readEvents(resp, (name, data) => onTurnEvent(turn, name, data, progress));
    if (!progress.status) throw new Error("the answer was cut off");
    if (progress.status === "interrupted") turn.answer.append(el("div", { class: "warning" }, "Stopped."));
    if (progress.status === "error" || progress.status === "interrupted") offerRetry(retryBody(body, progress), question);
  } catch (err) {
    const stopped = err.name === "AbortError";
    if (!stopped) failTurn(turn, "Could not reach the API: " + err.message);
    else turn.answer.append(el("div", { class: "warning" }, "Stopped."));
    setStatus(stopped ? "stopped" : "failed");
    offerRetry(retryBody(body, progress), question);
  } finally {
    turn.answer.removeAttribute("aria-busy");
    streaming(false);
    state.abort = null;
    await loadConversations();
    if (state.conversationId) await loadConcepts(state.conversationId);
  }
}

// retryBody asks a stored turn again in place; a turn never stored is sent again.
function retryBody(body, progress) {
  return progress.started && state.conversationId ? { conversationId: state.conversationId, retry: true } : body;
}

function onTurnEvent(turn, name, data, progress) {
  switch (name) {
    case "start":
      progress.started = data.turnNumber !== null;
      if (data.conversationId) setConversation(data.conversationId);
      break;
    case "message":
      setStatus("answering…");
      setAnswer(turn, turn.text + data.text);
      followAnswer(turn);
      break;
    case "warning":
      for (const w of data.warnings) turn.li.append(el("div", { class: "warning" }, w));
      break;
    case "disclaimer":
      turn.li.append(el("div", { class: "small" }, data.text));
      break;
    case "context_request":
      showContextForm(data);
      break;
    case "metadata":
      if (data.conversationId) setConversation(data.conversationId);
      showMetadata(turn.li, data);
      break;
    case "error":
      failTurn(turn, data.message);
      break;
    case "done":
      progress.status = data.status;
      setStatus({ ok: "", error: "failed", interrupted: "stopped", context_required: "needs context" }[data.status] ?? data.status);
      break;
  }
}

function showContextForm(req) {
  const form = $("#context-form");
  const items = $("#context-items");
  items.replaceChildren();
  for (const it of req.items) {
    const input = it.kind === "document" ? el("textarea", { rows: 3 }) : el("input");
    input.name = it.key;
    input.dataset.kind = it.kind;
    if (it.required) input.required = true;
    items.append(el("label", {}, it.description + (it.required ? " *" : ""), input));
  }
  form.dataset.requestId = req.requestId;
  form.hidden = false;
}

function initContextForm() {
  const form = $("#context-form");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const items = [...form.querySelectorAll("input, textarea")]
      .filter((i) => i.value.trim() !== "")
      .map((i) => ({ key: i.name, kind: i.dataset.kind, content: i.value }));
    form.hidden = true;
    const path = "/conversations/" + state.conversationId + "/context-requests/" + form.dataset.requestId;
    await streamTurn(path, { items }, "(context supplied: " + items.map((i) => i.key).join(", ") + ")");
  });
}

function initAsk() {
  // Enter sends; Shift+Enter (or an input method composing) adds a line.
  $("#question").addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" || ev.shiftKey || ev.isComposing) return;
    ev.preventDefault();
    if (!$("#send").disabled) $("#ask").requestSubmit();
  });
  $("#retry").addEventListener("click", async () => {
    const { body, question } = state.retry || {};
    if (!body) return;
    // A retry in place replaces the last turn's answer.
    if (body.retry) $("#turns").lastElementChild?.remove();
    await streamTurn("/chat", body, question);
  });
  $("#ask").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const message = $("#question").value.trim();
    if (!message) return;
    $("#question").value = "";
    $("#options").open = false; // its summary still names the choices; the answer gets the room
    const body = { message, ...askOptions() };
    if (state.conversationId) body.conversationId = state.conversationId;
    await streamTurn("/chat", body, message);
  });
  $("#stop").addEventListener("click", async () => {
    // Leaving the stream no longer stops the answer, so the stop is asked
    // for and the stream then ends by itself, stored as interrupted. Before
    // the turn has a conversation, or if the ask fails or the stream does
    // not end soon, the page leaves the stream instead.
    const abort = state.abort;
    if (!abort) return;
    if (state.conversationId) {
      try {
        await json("/chat/" + state.conversationId + "/stream", { method: "DELETE" });
        setTimeout(() => abort.abort(), 3000);
        return;
      } catch {
        // fall through: leave the stream
      }
    }
    abort.abort();
  });
  $("#new-conversation").addEventListener("click", () => {
    setConversation(null);
    offerRetry(null);
    setStatus("");
    $("#turns").replaceChildren();
    $("#concepts").replaceChildren();
    $("#context-form").hidden = true;
    showProfile(null);
    loadConversations();
  });
  $("#show-archived").addEventListener("change", loadConversations);
}

async function loadConversations() {
  const archived = $("#show-archived").checked;
  let page;
  try {
    page = await json("/conversations?limit=50&archived=" + archived);
  } catch (err) {
    // Shown in the list, so a turn's own status stays readable.
    $("#conversations").replaceChildren(el("li", { class: "warning" }, "Could not load conversations: " + err.message));
    return;
  }
  const list = $("#conversations");
  list.replaceChildren();
  for (const c of page.conversations) {
    const title = c.title || "(untitled)";
    const action = (cls, text, fn) =>
      el("button", { type: "button", class: cls, "aria-label": text + " “" + title + "”", onclick: () => reported(fn(c)) }, text);
    const actions = el("span", { class: "actions" },
      action("rename", "Rename", rename), action("archive", c.archived ? "Unarchive" : "Archive", archive),
      action("delete", "Delete", remove), action("export", "Export", exportConversation));
    const current = c.id === state.conversationId;
    const open = el("button", { type: "button", class: "title", onclick: () => reported(openConversation(c.id)) }, title);
    if (current) open.setAttribute("aria-current", "true");
    list.append(el("li", { "data-id": c.id, class: current ? "current" : "" }, open, actions));
  }
}

// reported shows a failed action in the status instead of an uncaught error.
async function reported(action) {
  try {
    await action;
  } catch (err) {
    setStatus(err.message);
  }
}

async function rename(c) {
  const title = prompt("New title", c.title);
  if (title === null) return;
  await json("/conversations/" + c.id, { method: "PATCH", body: { title } });
  await loadConversations();
}

async function archive(c) {
  await json("/conversations/" + c.id, { method: "PATCH", body: { archived: !c.archived } });
  await loadConversations();
}

async function remove(c) {
  if (!confirm("Delete this conversation and everything held about it?")) return;
  await json("/conversations/" + c.id, { method: "DELETE" });
  if (state.conversationId === c.id) $("#new-conversation").click();
  await loadConversations();
}

async function exportConversation(c) {
  const data = await json("/conversations/" + c.id + "/export");
  const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }));
  el("a", { href: url, download: "conversation-" + c.id + ".json" }).click();
  URL.revokeObjectURL(url);
}

async function openConversation(id) {
  const d = await json("/conversations/" + id);
  setConversation(id);
  offerRetry(null);
  setStatus("");
  $("#turns").replaceChildren();
  let last = null;
  for (const t of d.turns || []) {
    last = addTurn(t.userText);
    setAnswer(last, t.assistantText || "");
    if (t.status !== "ok") last.answer.classList.add(t.status === "error" ? "failed" : "pending");
    showMetadata(last.li, t.metadata);
  }
  const lastTurn = (d.turns || []).at(-1);
  if (lastTurn && lastTurn.status === "streaming") await resume(id, last);
  else if (lastTurn && (lastTurn.status === "error" || lastTurn.status === "interrupted")) {
    offerRetry({ conversationId: id, retry: true }, lastTurn.userText);
  }
  const pending = (d.pendingContextRequests || [])[0];
  if (pending) showContextForm({ requestId: pending.id, items: pending.items });
  else $("#context-form").hidden = true;
  renderConcepts(d.activeConcepts);
  showProfile(d.profile);
  await loadConversations();
}

// resume follows an answer still being written, from its first chunk;
// 204 or 404 means nothing is running any more.
async function resume(id, turn) {
  state.abort = new AbortController();
  streaming(true);
  const progress = { started: true, status: "" };
  try {
    const resp = await request("/chat/" + id + "/stream", { signal: state.abort.signal });
    if (resp.status === 204 || resp.status === 404 || !resp.ok) {
      await resp.text();
      return;
    }
    setAnswer(turn, "");
    turn.answer.classList.remove("pending");
    await readEvents(resp, (name, data) => onTurnEvent(turn, name, data, progress));
  } catch (err) {
    if (err.name !== "AbortError") setStatus("could not follow the answer: " + err.message);
  } finally {
    streaming(false);
    state.abort = null;
  }
}

async function loadConcepts(id) {
  try {
    renderConcepts((await json("/conversations/" + id)).activeConcepts);
  } catch (err) {
    $("#concepts").replaceChildren(el("li", { class: "warning" }, "Could not load concepts: " + err.message));
  }
}

function renderConcepts(concepts) {
  const list = $("#concepts");
  list.replaceChildren();
  for (const c of concepts || []) {
    list.append(el("li", { title: c.id, "data-id": c.id }, c.label || c.id));
  }
}

// nodeLabel names a node for people: its label, else its id's last part
// in words (TAX:IE:VAT:RATE:ZERO → "Rate zero").
function nodeLabel(n) {
  const p = n.properties || {};
  const named = n.prefLabel || p.prefLabel || p.label || p.name || p.title;
  if (named) return String(named);
  const parts = n.id.split(":").slice(-2).join(" ").toLowerCase().replaceAll("_", " ");
  return parts.charAt(0).toUpperCase() + parts.slice(1);
}

// watchGraph follows /graph/changes, reconnecting from the last patch id.
async function watchGraph() {
  const button = $("#watch-graph");
  if (state.graphAbort) {
    state.graphAbort.abort();
    return;
  }
  state.graphAbort = new AbortController();
  button.textContent = "Stop watching";
  let nodes = 0, edges = 0;
  try {
    while (!state.graphAbort.signal.aborted) {
      const headers = state.lastGraphId ? { "Last-Event-ID": state.lastGraphId } : {};
      const resp = await request("/graph/changes", { signal: state.graphAbort.signal, headers });
      if (!resp.ok) throw new Error("HTTP " + resp.status);
      await readEvents(resp, (name, patch, id) => {
        if (id) state.lastGraphId = id;
        nodes += patch.nodes.added.length;
        edges += patch.edges.added.length;
        $("#graph-summary").textContent = nodes + " nodes and " + edges + " edges seen";
        if (patch.meta.snapshot) return;
        for (const n of [...patch.nodes.added, ...patch.nodes.updated]) {
          const verb = patch.nodes.added.includes(n) ? "added" : "updated";
          $("#graph-changes").prepend(el("li", { "data-id": n.id }, verb + ": " + nodeLabel(n)));
        }
      });
    }
  } catch (err) {
    if (err.name !== "AbortError") $("#graph-summary").textContent = "graph feed: " + err.message;
  } finally {
    state.graphAbort = null;
    button.textContent = "Watch";
  }
}

// askOptions are the chosen as-of date and profile as POST /chat fields;
// nothing chosen sends neither, so the conversation's remembered profile
// stays.
function askOptions() {
  const out = {};
  const asOf = $("#as-of").value;
  if (asOf) out.asOf = asOf;
  const jurisdictions = [...document.querySelectorAll("input[name=jurisdiction]:checked")].map((i) => i.value);
  const personaType = $("#persona").value;
  if (jurisdictions.length || personaType) {
    out.profile = {};
    if (jurisdictions.length) out.profile.jurisdictions = jurisdictions;
    if (personaType) out.profile.personaType = personaType;
  }
  return out;
}

// showProfile sets the controls to a conversation's remembered profile.
function showProfile(profile) {
  const p = profile || {};
  const chosen = new Set((p.jurisdictions || []).map((j) => j.toUpperCase()));
  for (const box of document.querySelectorAll("input[name=jurisdiction]")) box.checked = chosen.has(box.value);
  const persona = (p.personaType || "").toLowerCase().replace(/[ -]/g, "_");
  $("#persona").value = [...$("#persona").options].some((o) => o.value === persona) ? persona : "";
  summariseOptions();
}

// summariseOptions repeats the choices in the closed options' summary.
function summariseOptions() {
  const asOf = $("#as-of").value;
  const parts = [asOf ? "as of " + asOf : "the question's date or today"];
  const jurisdictions = [...document.querySelectorAll("input[name=jurisdiction]:checked")].map((i) => i.value);
  if (jurisdictions.length) parts.push(jurisdictions.join(", "));
  const persona = $("#persona");
  if (persona.value) parts.push(persona.selectedOptions[0].textContent.toLowerCase());
  $("#options-summary").textContent = parts.join("; ");
}

function initOptions() {
  $("#options").addEventListener("change", summariseOptions);
  summariseOptions();
}

// The skip link focuses the question box without touching the URL's hash,
// which names the open conversation.
function initSkipLink() {
  $(".skip-link").addEventListener("click", (ev) => {
    ev.preventDefault();
    $("#question").focus();
  });
}

// The calculators of POST /calculate: a worked example each (valid inputs
// and the date they apply to) and their input fields, required ones
// starred, as the calculator's input schema names them.
const calculators = {
  ie_income_tax: {
    when: { taxYear: "2024" }, inputs: { status: "single", income: "52000" },
    fields: "status* (single, married_one_income, married_two_incomes, single_parent, widowed), income*, spouseIncome, paye, age, spouseAge, extraCredits",
  },
  ie_usc: { when: { taxYear: "2024" }, inputs: { income: "52000" }, fields: "income*, age, medicalCard" },
  ie_prsi: { when: { taxYear: "2024" }, inputs: { earnings: "52000", period: "annual" }, fields: "earnings*, period (weekly, monthly, annual), class (A, S)" },
  ie_net_pay: {
    when: { taxYear: "2024" }, inputs: { status: "single", income: "52000" },
    fields: "status*, income or earnings with period, benefitInKind, and the income tax, USC and PRSI inputs",
  },
  ie_cat: { when: { taxYear: "2024" }, inputs: { group: "A", value: "400000" }, fields: "group* (A, B, C), value*, priorInGroup, date" },
  ie_vrt: { when: { asOf: "2024-06-01" }, inputs: { omsp: "35000", co2: 120, nox: 30 }, fields: "omsp*, co2* (g/km), nox* (mg/km), category (A), date" },
  uk_income_tax: { when: { taxYear: "2024/25" }, inputs: { income: "35000", region: "rUK" }, fields: "income*, region (rUK, scotland)" },
  uk_ni: { when: { taxYear: "2024/25" }, inputs: { earnings: "35000", period: "annual" }, fields: "earnings*, period (weekly, monthly, annual), category (A)" },
};

// showCalculatorExample fills the form with the chosen calculator's example.
function showCalculatorExample() {
  const calc = calculators[$("#calc-name").value] || calculators.ie_income_tax;
  $("#calc-tax-year").value = calc.when.taxYear || "";
  $("#calc-as-of").value = calc.when.asOf || "";
  $("#calc-inputs").value = JSON.stringify(calc.inputs, null, 1);
  $("#calc-inputs-help").textContent = "Fields: " + calc.fields + ". Amounts as strings, e.g. \"52000\".";
}

// calculationRequest reads the form as a POST /calculate body; inputs that
// are not a JSON object throw, naming the field as the API would.
function calculationRequest() {
  const body = { calculator: $("#calc-name").value };
  const taxYear = $("#calc-tax-year").value.trim();
  const asOf = $("#calc-as-of").value;
  if (taxYear) body.taxYear = taxYear;
  if (asOf) body.asOf = asOf;
  let inputs;
  try {
    inputs = JSON.parse($("#calc-inputs").value || "{}");
  } catch (err) {
    throw new Error("inputs: not valid JSON (" + err.message + ")");
  }
  if (!inputs || typeof inputs !== "object" || Array.isArray(inputs)) throw new Error("inputs: must be a JSON object");
  body.inputs = inputs;
  return body;
}

// calculationView shows a result: one row per line with its rule, the
// total, assumptions, warnings and the facts it rests on. Amounts are the
// API's exact decimal strings.
function calculationView(r) {
  const rows = (r.lines || []).map((l) => el("tr", {}, el("td", { class: "line-name" }, ...wordBreaks(l.name)), el("td", { class: "amount" }, l.amount), el("td", {}, l.rule)));
  const table = el("table", { class: "calc-lines" },
    el("caption", {}, r.calculator + ", as of " + r.asOf + ", in " + r.currency),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Line"), el("th", { scope: "col" }, "Amount"), el("th", { scope: "col" }, "Rule"))),
    el("tbody", {}, ...rows),
    el("tfoot", {}, el("tr", {}, el("th", { scope: "row" }, "Total"), el("td", { class: "amount calc-total" }, r.total), el("td", {}, r.currency))));
  const out = [el("div", { class: "calc-table" }, table)];
  if (r.assumptions?.length) out.push(el("ul", { class: "calc-notes small", "aria-label": "Assumptions" }, ...r.assumptions.map((a) => el("li", {}, a))));
  for (const w of r.warnings || []) out.push(el("div", { class: "warning" }, w));
  out.push(citationList(r.citations));
  return out;
}

// wordBreaks lets a line name such as incomeTax.taxAtStandardRate wrap
// between its words (before a capital or after a dot), not mid-word.
function wordBreaks(name) {
  return name.split(/(?=[A-Z])|(?<=\.)/).flatMap((part, i) => (i ? [el("wbr"), part] : [part]));
}

function initCalculator() {
  $("#calc-name").addEventListener("change", showCalculatorExample);
  showCalculatorExample();
  $("#calc-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const result = $("#calc-result");
    const button = $("#calculate");
    button.disabled = true;
    result.setAttribute("aria-busy", "true");
    try {
      const r = await json("/calculate", { method: "POST", body: calculationRequest() });
      result.replaceChildren(...calculationView(r));
    } catch (err) {
      result.replaceChildren(el("p", { class: "warning", role: "alert" }, "Not calculated: " + err.message));
    } finally {
      result.removeAttribute("aria-busy");
      button.disabled = false;
    }
  });
}

initSettings();
initSkipLink();
initOptions();
initAsk();
initContextForm();
initCalculator();
$("#watch-graph").addEventListener("click", () => reported(watchGraph()));
const opened = conversationFromURL();
reported(opened ? openConversation(opened) : loadConversations());
