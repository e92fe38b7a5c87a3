// Contract test with the Vercel AI SDK's own client code: DefaultChatTransport
// sends useChat's requests and parses every chunk with the SDK's schema (a
// chunk it rejects fails the test); readUIMessageStream builds the message
// as useChat would. Usage: node sdk.mjs <api base URL>
import { DefaultChatTransport, readUIMessageStream } from "ai";
import { check, summary } from "./report.mjs";
import { apiFetch } from "./api-fetch.mjs";

const base = process.argv[2];
const uiStream = "?protocol=ui-message-stream";

function userMessage(text) {
  return { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text }] };
}

// turn sends messages through the transport and reads the reply to the end.
// It returns the last message snapshot, the first snapshot's metadata (what
// useChat knows before any text), the start and finish chunks as the SDK
// parsed them, the errors the stream reported, and how many snapshots
// arrived (text arrives in several).
async function turn({ api = base + "/chat" + uiStream, messages, body, abortAfter, trigger = "submit-message", chatId = crypto.randomUUID() }) {
  const transport = new DefaultChatTransport({ api, body, fetch: apiFetch, headers: { "X-Request-Id": "contract-" + Date.now() } });
  const abort = new AbortController();
  const parsed = await transport.sendMessages({
    trigger, chatId, messageId: undefined, messages, abortSignal: abort.signal,
  });
  const chunks = {};
  const stream = parsed.pipeThrough(new TransformStream({
    transform(chunk, out) {
      if (chunk.type === "start" || chunk.type === "finish") chunks[chunk.type] = chunk;
      out.enqueue(chunk);
    },
  }));
  const errors = [];
  let message, firstMetadata, snapshots = 0;
  try {
    for await (const m of readUIMessageStream({ stream, onError: (e) => errors.push(e) })) {
      message = m;
      if (snapshots++ === 0) firstMetadata = structuredClone(m.metadata);
      if (abortAfter && snapshots >= abortAfter) abort.abort();
    }
  } catch (e) {
    if (!abortAfter || e.name !== "AbortError") throw e;
  }
  return { message, firstMetadata, start: chunks.start, finish: chunks.finish, errors, snapshots, aborted: abort.signal.aborted };
}

const text = (m) => (m?.parts || []).filter((p) => p.type === "text").map((p) => p.text).join("");
const getJSON = async (path) => (await apiFetch(base + path)).json();

// conversationOf is the conversation the stream named first: the start
// chunk's metadata, which useChat holds before any text.
function conversationOf(r) {
  const id = r.start?.messageMetadata?.conversationId;
  if (!id) throw new Error("no conversationId in the start chunk: " + JSON.stringify(r.start));
  if (r.firstMetadata?.conversationId !== id) throw new Error("first snapshot's metadata: " + JSON.stringify(r.firstMetadata));
  return id;
}

function expectFinish(r, reason) {
  if (r.finish?.finishReason !== reason) throw new Error(`finishReason ${r.finish?.finishReason}, want ${reason}`);
}

// storedTurn is the conversation's turn by number, once it has left
// `streaming` (a stopped turn is finished after its client left).
async function storedTurn(id, number) {
  for (let i = 0; ; i++) {
    const stored = await getJSON("/conversations/" + id);
    const t = stored.turns?.find((x) => x.turnNumber === number);
    if ((t && t.status !== "streaming") || i === 50) return { stored, turn: t };
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

async function expectStatus(id, number, status) {
  const { stored, turn: t } = await storedTurn(id, number);
  if (t?.status !== status) throw new Error(`turn ${number} status ${t?.status}, want ${status}: ${JSON.stringify(stored.turns)}`);
  return stored;
}

await check("two-turn conversation", async () => {
  const history = [userMessage("What VAT rate applies to restaurant meals?")];
  const first = await turn({ messages: history });
  const id = conversationOf(first);
  if (first.start.messageMetadata.turnNumber !== 1) throw new Error("first start chunk: " + JSON.stringify(first.start));
  if (!text(first.message).includes("23%") || first.snapshots < 3) throw new Error("first answer: " + text(first.message));
  expectFinish(first, "stop");
  history.push(first.message, userMessage("And for takeaway coffee?"));
  const second = await turn({ messages: history, body: { conversationId: id } });
  if (conversationOf(second) !== id || second.start.messageMetadata.turnNumber !== 2 || second.message.metadata.turnNumber !== 2) {
    throw new Error("second turn metadata " + JSON.stringify(second.message.metadata));
  }
  expectFinish(second, "stop");
  const stored = await expectStatus(id, 2, "ok");
  if (stored.turns.length !== 2) throw new Error("stored turns: " + stored.turns.length);
});

await check("failure mid-stream", async () => {
  const r = await turn({ messages: [userMessage("[fail] Tell me about PAYE.")] });
  if (r.errors.length !== 1) throw new Error("stream errors: " + r.errors.length);
  if (!text(r.message).includes("starts well")) throw new Error("partial text lost: " + text(r.message));
  expectFinish(r, "error");
  const stored = await expectStatus(conversationOf(r), 1, "error");
  if (!stored.turns[0].assistantText.includes("starts well")) throw new Error("stored partial answer: " + stored.turns[0].assistantText);
});

await check("stop mid-stream (DELETE /chat/{id}/stream)", async () => {
  const started = Date.now();
  const r = await turn({ messages: [userMessage("[slow] Explain the pension rules.")], abortAfter: 5 });
  if (!r.aborted || Date.now() - started > 10000) throw new Error("leaving did not end the stream");
  if (text(r.message).length >= "A long and careful answer. ".length * 100) throw new Error("the whole answer arrived");
  // Leaving the stream does not stop the answer; this does.
  const stop = await apiFetch(base + "/chat/" + conversationOf(r) + "/stream", { method: "DELETE" });
  if (stop.status !== 202) throw new Error("DELETE answered " + stop.status);
  const health = await apiFetch(base + "/healthz");
  if (!health.ok) throw new Error("server unhealthy after a stop");
  const stored = await expectStatus(conversationOf(r), 1, "interrupted");
  if (!stored.turns[0].assistantText.startsWith(text(r.message))) throw new Error("partial answer not kept: " + stored.turns[0].assistantText);
});

await check("a dropped connection does not stop the answer", async () => {
  const r = await turn({ messages: [userMessage("[resume] Tell me about VAT.")], abortAfter: 3 });
  if (!r.aborted) throw new Error("the stream was not left");
  const stored = await expectStatus(conversationOf(r), 1, "ok");
  if (stored.turns[0].assistantText !== "The resumed answer goes on. ".repeat(12)) throw new Error("stored: " + stored.turns[0].assistantText);
});

await check("retry in place (regenerate with retry: true)", async () => {
  const question = userMessage("[fail-once] How is PAYE calculated?");
  const failed = await turn({ messages: [question] });
  const id = conversationOf(failed);
  expectFinish(failed, "error");
  await expectStatus(id, 1, "error");
  // useChat's regenerate(): the messages without the failed answer.
  const retried = await turn({ messages: [question], body: { conversationId: id, retry: true }, trigger: "regenerate-message" });
  if (conversationOf(retried) !== id || retried.start.messageMetadata.turnNumber !== 1) {
    throw new Error("retry start chunk: " + JSON.stringify(retried.start));
  }
  if (retried.errors.length || !text(retried.message).includes("23%")) throw new Error("retried answer: " + text(retried.message));
  expectFinish(retried, "stop");
  const stored = await expectStatus(id, 1, "ok");
  if (stored.turns.length !== 1) throw new Error("stored turns after the retry: " + stored.turns.length);
  // The last turn is answered now: another retry is refused.
  const again = await apiFetch(base + "/chat" + uiStream, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ conversationId: id, retry: true }),
  });
  const refused = await again.json();
  if (again.status !== 409 || refused.error?.code !== "not_retryable") throw new Error(`second retry: ${again.status} ${JSON.stringify(refused)}`);
});

await check("context-request round trip", async () => {
  const asked = await turn({ messages: [userMessage("[context] Am I due a tax refund for 2024?")] });
  const part = asked.message.parts.find((p) => p.type === "data-context-request");
  if (!part || !part.data.requestId || part.data.items[0].key !== "annual_income") {
    throw new Error("no data-context-request part: " + JSON.stringify(asked.message.parts));
  }
  const id = conversationOf(asked);
  expectFinish(asked, "other");
  await expectStatus(id, 1, "context_required");
  // The supply route answers the deferred question as the same stream.
  const answered = await turn({
    api: base + "/conversations/" + id + "/context-requests/" + part.data.requestId + uiStream,
    messages: [],
    body: { items: [{ key: "annual_income", content: "My income was 52000 EUR" }] },
  });
  if (!text(answered.message).includes("23%")) throw new Error("deferred answer: " + text(answered.message));
  if (conversationOf(answered) !== id) throw new Error("the deferred answer names another conversation");
  expectFinish(answered, "stop");
});

summary("sdk");
