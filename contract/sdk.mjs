// Contract test with the Vercel AI SDK's own client code: DefaultChatTransport
// sends useChat's requests and parses every chunk with the SDK's schema (a
// chunk it rejects fails the test); readUIMessageStream builds the message
// as useChat would. Usage: node sdk.mjs <api base URL>
import { DefaultChatTransport, readUIMessageStream } from "ai";
import { check, summary } from "./report.mjs";

const base = process.argv[2];
const uiStream = "?protocol=ui-message-stream";

function userMessage(text) {
  return { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text }] };
}

// turn sends messages through the transport and reads the reply to the end.
// It returns the last message snapshot, the errors the stream reported, and
// how many snapshots arrived (text arrives in several).
async function turn({ api = base + "/chat" + uiStream, messages, body, abortAfter }) {
  const transport = new DefaultChatTransport({ api, body, headers: { "X-Request-Id": "contract-" + Date.now() } });
  const abort = new AbortController();
  const stream = await transport.sendMessages({
    trigger: "submit-message", chatId: "contract", messageId: undefined, messages, abortSignal: abort.signal,
  });
  const errors = [];
  let message, snapshots = 0;
  try {
    for await (const m of readUIMessageStream({ stream, onError: (e) => errors.push(e) })) {
      message = m;
      snapshots++;
      if (abortAfter && snapshots >= abortAfter) abort.abort();
    }
  } catch (e) {
    if (!abortAfter || e.name !== "AbortError") throw e;
  }
  return { message, errors, snapshots, aborted: abort.signal.aborted };
}

const text = (m) => (m?.parts || []).filter((p) => p.type === "text").map((p) => p.text).join("");
const getJSON = async (path) => (await fetch(base + path)).json();

// The conversation id: from the start chunk's metadata once the stream
// names it first, else from the finish chunk's.
const conversationOf = (m) => m?.metadata?.conversationId;

await check("two-turn conversation", async () => {
  const history = [userMessage("What VAT rate applies to restaurant meals?")];
  const first = await turn({ messages: history });
  const id = conversationOf(first.message);
  if (!id) throw new Error("no conversationId in the first turn's metadata");
  if (!text(first.message).includes("23%") || first.snapshots < 3) throw new Error("first answer: " + text(first.message));
  history.push(first.message, userMessage("And for takeaway coffee?"));
  const second = await turn({ messages: history, body: { conversationId: id } });
  if (conversationOf(second.message) !== id || second.message.metadata.turnNumber !== 2) {
    throw new Error("second turn metadata " + JSON.stringify(second.message.metadata));
  }
  const stored = await getJSON("/conversations/" + id);
  if (stored.turns.length !== 2) throw new Error("stored turns: " + stored.turns.length);
});

await check("failure mid-stream", async () => {
  const r = await turn({ messages: [userMessage("[fail] Tell me about PAYE.")] });
  if (r.errors.length !== 1) throw new Error("stream errors: " + r.errors.length);
  if (!text(r.message).includes("starts well")) throw new Error("partial text lost: " + text(r.message));
});

await check("stop mid-stream", async () => {
  const started = Date.now();
  const r = await turn({ messages: [userMessage("[slow] Explain the pension rules.")], abortAfter: 5 });
  if (!r.aborted || Date.now() - started > 10000) throw new Error("the stop did not end the stream");
  if (text(r.message).length >= "A long and careful answer. ".length * 100) throw new Error("the whole answer arrived");
  const health = await fetch(base + "/healthz");
  if (!health.ok) throw new Error("server unhealthy after a stop");
});

await check("context-request round trip", async () => {
  const asked = await turn({ messages: [userMessage("[context] Am I due a tax refund for 2024?")] });
  const part = asked.message.parts.find((p) => p.type === "data-context-request");
  if (!part || !part.data.requestId || part.data.items[0].key !== "annual_income") {
    throw new Error("no data-context-request part: " + JSON.stringify(asked.message.parts));
  }
  const id = conversationOf(asked.message);
  if (!id) throw new Error("no conversationId with the context request");
  // The supply route answers the deferred question as the same stream.
  const answered = await turn({
    api: base + "/conversations/" + id + "/context-requests/" + part.data.requestId + uiStream,
    messages: [],
    body: { items: [{ key: "annual_income", content: "My income was 52000 EUR" }] },
  });
  if (!text(answered.message).includes("23%")) throw new Error("deferred answer: " + text(answered.message));
});

summary("sdk");
