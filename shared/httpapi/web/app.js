// The demo page: a client of the API like any other, no build step. It
// streams answers with fetch (so it can send a bearer token), keeps the
// conversation id the stream names, and reads everything else from the
// conversation routes.
"use strict";

const $ = (sel) => document.querySelector(sel);
const state = { conversationId: null, abort: null, graphAbort: null, lastGraphId: "" };

// Settings: ?api= and ?token= override what was saved (handy for a link).
function settings() {
  const saved = JSON.parse(localStorage.getItem("regintel.settings") || "{}");
  const q = new URLSearchParams(location.search);
  return {
    baseUrl: (q.get("api") || saved.baseUrl || "").replace(/\/+$/, ""),
    token: q.get("token") || saved.token || "",
  };
}

function initSettings() {
  const form = $("#settings-form");
  const s = settings();
  form.baseUrl.value = s.baseUrl;
  form.token.value = s.token;
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    localStorage.setItem("regintel.settings", JSON.stringify({ baseUrl: form.baseUrl.value.trim(), token: form.token.value.trim() }));
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
  if (s.token) h.Authorization = "Bearer " + s.token;
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

function citationList(citations) {
  const list = el("ul", { class: "citations" });
  for (const c of citations || []) {
    const when = c.lastVerifiedAt ? " (verified " + c.lastVerifiedAt.slice(0, 10) + ")" : "";
    const label = c.url ? el("a", { href: c.url, target: "_blank", rel: "noopener" }, c.label || c.nodeId) : c.label || c.nodeId;
    list.append(el("li", { "data-node-id": c.nodeId }, label, when));
  }
  return list;
}

function addTurn(question) {
  const answer = el("div", { class: "answer" });
  const li = el("li", { class: "turn" }, el("div", { class: "question" }, question), answer);
  $("#turns").append(li);
  return { li, answer };
}

function setStatus(text) { $("#status").textContent = text; }

function streaming(on) {
  $("#send").disabled = on;
  $("#stop").disabled = !on;
}

// streamTurn posts a turn and renders its events; JSON answers (errors, a
// partial supply) are shown as status.
async function streamTurn(path, body, question) {
  const turn = addTurn(question);
  state.abort = new AbortController();
  streaming(true);
  setStatus("thinking…");
  try {
    const resp = await request(path, { method: "POST", body, signal: state.abort.signal });
    if (!(resp.headers.get("Content-Type") || "").startsWith("text/event-stream")) {
      const data = await resp.json();
      turn.answer.classList.add("failed");
      turn.answer.textContent = data.missing ? "Still missing: " + data.missing.map((m) => m.key).join(", ") : data.error.message;
      if (data.contextRequest) showContextForm(data.contextRequest);
      return;
    }
    const id = resp.headers.get("X-Conversation-Id");
    if (id) state.conversationId = id;
    await readEvents(resp, (name, data) => onTurnEvent(turn, name, data));
  } catch (err) {
    if (err.name !== "AbortError") throw err;
    turn.answer.append(el("div", { class: "warning" }, "Stopped."));
  } finally {
    streaming(false);
    state.abort = null;
    await loadConversations();
    if (state.conversationId) await loadConcepts(state.conversationId);
  }
}

function onTurnEvent(turn, name, data) {
  switch (name) {
    case "start":
      if (data.conversationId) state.conversationId = data.conversationId;
      break;
    case "message":
      setStatus("answering…");
      turn.answer.append(document.createTextNode(data.text));
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
      if (data.conversationId) state.conversationId = data.conversationId;
      turn.li.append(citationList(data.citations));
      break;
    case "error":
      turn.answer.classList.add("failed");
      turn.li.append(el("div", { class: "warning" }, data.message));
      break;
    case "done":
      setStatus(data.status === "ok" ? "" : data.status);
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
  $("#ask").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const message = $("#question").value.trim();
    if (!message) return;
    $("#question").value = "";
    const body = { message };
    if (state.conversationId) body.conversationId = state.conversationId;
    await streamTurn("/chat", body, message);
  });
  $("#stop").addEventListener("click", () => {
    // Leaving the stream no longer stops the answer: the stop is asked for.
    if (state.conversationId) json("/chat/" + state.conversationId + "/stream", { method: "DELETE" }).catch(() => {});
    if (state.abort) state.abort.abort();
  });
  $("#new-conversation").addEventListener("click", () => {
    state.conversationId = null;
    $("#turns").replaceChildren();
    $("#concepts").replaceChildren();
    $("#context-form").hidden = true;
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
    setStatus("conversations: " + err.message);
    return;
  }
  const list = $("#conversations");
  list.replaceChildren();
  for (const c of page.conversations) {
    const actions = el("span", { class: "actions" },
      el("button", { type: "button", class: "rename", onclick: () => rename(c) }, "Rename"),
      el("button", { type: "button", class: "archive", onclick: () => archive(c) }, c.archived ? "Unarchive" : "Archive"),
      el("button", { type: "button", class: "delete", onclick: () => remove(c) }, "Delete"),
      el("button", { type: "button", class: "export", onclick: () => exportConversation(c) }, "Export"));
    const li = el("li", { "data-id": c.id, class: c.id === state.conversationId ? "current" : "" },
      el("span", { class: "title", onclick: () => openConversation(c.id) }, c.title || "(untitled)"), actions);
    list.append(li);
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
  state.conversationId = id;
  $("#turns").replaceChildren();
  for (const t of d.turns || []) {
    const turn = addTurn(t.userText);
    turn.answer.textContent = t.assistantText;
    if (t.status !== "ok") turn.answer.classList.add(t.status === "error" ? "failed" : "pending");
    turn.li.append(citationList(t.metadata.citations));
  }
  const pending = (d.pendingContextRequests || [])[0];
  if (pending) showContextForm({ requestId: pending.id, items: pending.items });
  else $("#context-form").hidden = true;
  renderConcepts(d.activeConcepts);
  await loadConversations();
}

async function loadConcepts(id) {
  try {
    renderConcepts((await json("/conversations/" + id)).activeConcepts);
  } catch (err) {
    setStatus("concepts: " + err.message);
  }
}

function renderConcepts(concepts) {
  const list = $("#concepts");
  list.replaceChildren();
  for (const c of concepts || []) {
    list.append(el("li", { title: c.id, "data-id": c.id }, c.label || c.id));
  }
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
          $("#graph-changes").prepend(el("li", { title: n.id }, verb + ": " + (n.prefLabel || n.id)));
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

initSettings();
initAsk();
initContextForm();
$("#watch-graph").addEventListener("click", watchGraph);
loadConversations();
