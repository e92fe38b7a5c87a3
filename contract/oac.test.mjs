// The demo page's own request code (shared/httpapi/web/app.js: request and
// readEvents), run in Node against the CloudFront + origin access control
// stand-in (cloudfront-oac.mjs) and a Function URL with AWS_IAM auth that
// verifies the signature and the payload hash, then, as chat does in prod
// (JWT_HEADER=X-User-Authorization), reads the user's token from
// X-User-Authorization and streams the answer.
// Usage: node --test contract/oac.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import vm from "node:vm";
import { fileURLToPath } from "node:url";
import { startCloudFrontOAC } from "./cloudfront-oac.mjs";
import { verify } from "./sigv4.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const credentials = { accessKeyId: "AKIDCLOUDFRONTOAC", secretAccessKey: "stand-in-secret" };
const region = "eu-west-1";
const token = "user-jwt";

// The origin request policy's headers, as the stack declares them.
function edgeHeaders() {
  const src = fs.readFileSync(path.join(root, "infra", "edge.go"), "utf8");
  const block = /var edgeHeaders = \[\]string\{([^}]*)\}/.exec(src);
  assert.ok(block, "infra/edge.go declares edgeHeaders");
  return [...block[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

// functionURL is the origin: SigV4 checked first (403 as Lambda answers),
// then the app's token header (401), then a streamed answer whose last
// frame waits until the client has read the first: it arrives in parts.
function functionURL(firstFrameRead) {
  const seen = [];
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url, `http://${req.headers.host}`);
    seen.push({ method: req.method, headers: { ...req.headers } });
    const problem = verify({ method: req.method, url, headers: req.headers, body, region, service: "lambda", credentials });
    if (problem) {
      res.writeHead(403, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ Message: "Forbidden: " + problem }));
      return;
    }
    if (req.headers["x-user-authorization"] !== "Bearer " + token) {
      res.writeHead(401, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: { code: "unauthorized", message: "no bearer token in X-User-Authorization" } }));
      return;
    }
    if (url.pathname !== "/chat") {
      res.writeHead(404, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: { code: "not_found", message: "no route" } }));
      return;
    }
    const question = JSON.parse(body.toString()).message;
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    res.write(`event: start\ndata: ${JSON.stringify({ conversationId: "c1" })}\n\n`);
    res.write(`event: text\ndata: ${JSON.stringify({ text: "About " + question + ": " })}\n\n`);
    await firstFrameRead;
    res.write(`event: text\ndata: ${JSON.stringify({ text: "books are zero-rated." })}\n\n`);
    res.end(`event: done\ndata: {}\n\n`);
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok({ url: `http://127.0.0.1:${server.address().port}`, seen, close: () => server.close() })));
}

// page loads app.js as the browser would, with the settings saved, and
// returns its request and readEvents. The DOM is an inert stand-in: only
// the request code is under test.
function page(settings) {
  const inert = () => new Proxy(function () {}, {
    get: (t, p) => (p === "then" ? undefined : p === Symbol.toPrimitive ? () => "" : inert()),
    apply: () => inert(),
    construct: () => inert(),
    set: () => true,
  });
  const ctx = vm.createContext({
    document: inert(), history: inert(), MutationObserver: function () { return inert(); },
    localStorage: { getItem: () => JSON.stringify(settings), setItem() {} },
    location: { search: "", hash: "", pathname: "/", href: "http://page.test/" },
    fetch: (url, init) => (String(url).startsWith(settings.baseUrl + "/chat") ? fetch(url, init) : new Promise(() => {})),
    crypto, TextEncoder, TextDecoderStream, URL, URLSearchParams, AbortController, setTimeout, clearTimeout, console,
  });
  vm.runInContext(fs.readFileSync(path.join(root, "shared", "httpapi", "web", "app.js"), "utf8"), ctx);
  return { request: vm.runInContext("request", ctx), readEvents: vm.runInContext("readEvents", ctx) };
}

async function setup(t) {
  let firstRead;
  const firstFrameRead = new Promise((ok) => { firstRead = ok; });
  const origin = await functionURL(firstFrameRead);
  const edge = await startCloudFrontOAC({ origin: origin.url, allowedHeaders: edgeHeaders(), region, credentials });
  t.after(() => { edge.close(); origin.close(); firstRead(); });
  return { origin, edge, firstRead };
}

test("a turn from the demo page streams through CloudFront with OAC in prod", async (t) => {
  const { origin, edge, firstRead } = await setup(t);
  const { request, readEvents } = page({ baseUrl: edge.url, token, tokenHeader: "X-User-Authorization" });
  const resp = await request("/chat", { method: "POST", body: { message: "VAT on books" }, headers: { "X-Custom-Debug": "1" } });
  assert.equal(resp.status, 200);
  const events = [];
  await readEvents(resp, (name, data) => {
    events.push([name, data]);
    if (name === "text") firstRead();
  });
  assert.deepEqual(events.map(([n]) => n), ["start", "text", "text", "done"]);
  assert.equal(events.filter(([n]) => n === "text").map(([, d]) => d.text).join(""), "About VAT on books: books are zero-rated.");
  const got = origin.seen.at(-1).headers;
  assert.match(got.authorization, /^AWS4-HMAC-SHA256 Credential=AKIDCLOUDFRONTOAC\//, "CloudFront's signature owns Authorization");
  assert.equal(got["x-custom-debug"], undefined, "a header outside the origin request policy reached the origin");
});

test("the page's default settings send the token in both headers: through CloudFront and to a public URL", async (t) => {
  const { origin, edge, firstRead } = await setup(t);
  firstRead();
  const viaEdge = page({ baseUrl: edge.url, token });
  const resp = await viaEdge.request("/chat", { method: "POST", body: { message: "VAT on books" } });
  assert.equal(resp.status, 200, "through CloudFront the token reached X-User-Authorization");
  await resp.text();
  // A public Function URL (no CloudFront) reads Authorization: the same page sends it there too.
  const seen = [];
  const publicURL = http.createServer((req, res) => {
    seen.push(req.headers);
    res.end();
  });
  await new Promise((ok) => publicURL.listen(0, "127.0.0.1", ok));
  t.after(() => publicURL.close());
  const direct = page({ baseUrl: `http://127.0.0.1:${publicURL.address().port}`, token });
  await (await direct.request("/chat", { method: "POST", body: { message: "VAT on books" } })).text();
  assert.equal(seen[0].authorization, "Bearer " + token);
  assert.equal(seen[0]["x-user-authorization"], "Bearer " + token);
  assert.equal(origin.seen.at(-1).headers["x-user-authorization"], "Bearer " + token);
});

test("the page with the public URL's header gets 401 through CloudFront", async (t) => {
  const { edge } = await setup(t);
  const { request } = page({ baseUrl: edge.url, token, tokenHeader: "Authorization" });
  const resp = await request("/chat", { method: "POST", body: { message: "VAT on books" } });
  assert.equal(resp.status, 401, "the token sent in Authorization was overwritten by the signature");
});

test("a POST without x-amz-content-sha256 is refused at the origin", async (t) => {
  const { edge } = await setup(t);
  const body = JSON.stringify({ message: "VAT on books" });
  const resp = await fetch(edge.url + "/chat", { method: "POST", body, headers: { "Content-Type": "application/json", "X-User-Authorization": "Bearer " + token } });
  assert.equal(resp.status, 403);
  assert.match(await resp.text(), /unsigned payload/);
  const wrong = await fetch(edge.url + "/chat", { method: "POST", body, headers: { "Content-Type": "application/json", "X-User-Authorization": "Bearer " + token, "x-amz-content-sha256": "0".repeat(64) } });
  assert.equal(wrong.status, 403, "a hash that is not the body's");
});
