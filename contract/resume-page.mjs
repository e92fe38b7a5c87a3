// The page of the resume contract test (bundled by resume.mjs with
// esbuild): the AI SDK's own chat (AbstractChat, as useChat wraps it) with
// its default transport pointed at the API, and nothing else configured.
// The chat id lives in the URL; on load the page shows the stored turns
// (a turn still streaming shows its question only) and resumes, as
// useChat({resume: true}) does.
import { AbstractChat, DefaultChatTransport } from "ai";

// PageState is the SDK's ChatState, rendering every change.
class PageState {
  constructor(messages) {
    this._messages = messages;
    this.status = "ready";
    this.error = undefined;
    this.experimental_queuedMessages = [];
    render(messages);
  }
  get messages() { return this._messages; }
  set messages(m) { this._messages = m; render(this._messages); }
  pushMessage(m) { this.messages = this._messages.concat(m); }
  popMessage() { this.messages = this._messages.slice(0, -1); }
  replaceMessage(i, m) { this.messages = [...this._messages.slice(0, i), m, ...this._messages.slice(i + 1)]; }
  snapshot(x) { return structuredClone(x); }
}

class PageChat extends AbstractChat {
  constructor({ messages, ...init }) {
    super({ ...init, state: new PageState(messages) });
  }
}

const text = (m) => m.parts.filter((p) => p.type === "text").map((p) => p.text).join("");

function render(messages) {
  const list = document.querySelector("#messages");
  list.replaceChildren(...messages.map((m) => {
    const div = document.createElement("div");
    div.dataset.role = m.role;
    div.textContent = text(m);
    return div;
  }));
}

const textMessage = (id, role, t) => ({ id, role, parts: [{ type: "text", text: t }] });

// apiFetch sends what a stage expects of a client: the token (?token=) in
// ?tokenHeader= (X-User-Authorization behind CloudFront; unset or "both":
// in both headers, as the demo page does), and the SHA-256
// of a body in x-amz-content-sha256 (origin access control needs it).
async function apiFetch(url, init = {}) {
  const q = new URLSearchParams(location.search);
  const headers = new Headers(init.headers);
  const names = !q.get("tokenHeader") || q.get("tokenHeader") === "both" ? ["Authorization", "X-User-Authorization"] : [q.get("tokenHeader")];
  if (q.get("token")) for (const name of names) headers.set(name, "Bearer " + q.get("token"));
  const method = (init.method || "GET").toUpperCase();
  if (method !== "GET" && method !== "HEAD") {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(init.body ?? ""));
    headers.set("x-amz-content-sha256", Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join(""));
  }
  return fetch(url, { ...init, headers });
}

async function storedMessages(api, id) {
  const resp = await apiFetch(`${api}/conversations/${id}`);
  if (resp.status === 404) return [];
  const { turns } = await resp.json();
  return turns.flatMap((t) => t.status === "streaming"
    ? [textMessage("u" + t.turnNumber, "user", t.userText)]
    : [textMessage("u" + t.turnNumber, "user", t.userText), textMessage("a" + t.turnNumber, "assistant", t.assistantText)]);
}

const params = new URLSearchParams(location.search);
const api = params.get("api");
let id = params.get("chat");
if (!id) {
  id = crypto.randomUUID();
  params.set("chat", id);
  history.replaceState(null, "", "?" + params);
}
const chat = new PageChat({ id, messages: await storedMessages(api, id), transport: new DefaultChatTransport({ api: api + "/chat", fetch: apiFetch }) });
window.chat = chat;
window.resumed = chat.resumeStream().then(() => true);
