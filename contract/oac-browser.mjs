// The prod hop in a real browser: headless Chromium loads the demo page
// through the CloudFront + origin access control stand-in
// (cloudfront-oac.mjs) from a Function URL stand-in with AWS_IAM auth
// (SigV4 and the body hash checked as Lambda checks them, else 403) in
// front of the chat server in prod mode (AUTH_MODE=jwt,
// JWT_HEADER=X-User-Authorization). The page keeps its default settings
// but for the token, asks a question, and the answer must stream in.
// Usage: node oac-browser.mjs <chat server URL>
// with JWT_HS256_SECRET, JWT_ISSUER and JWT_AUDIENCE as the server has them.
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "./chromium.mjs";
import { askOnPage } from "./demopage.mjs";
import { check, summary } from "./report.mjs";
import { startCloudFrontOAC } from "./cloudfront-oac.mjs";
import { verify } from "./sigv4.mjs";

const chat = process.argv[2];
const region = "eu-west-1";
const credentials = { accessKeyId: "AKIDCLOUDFRONTOAC", secretAccessKey: "stand-in-secret" };

// The origin request policy's headers, as infra/edge.go declares them
// (EDGE_GO names the file when this script runs from a copy).
function edgeHeaders() {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const src = fs.readFileSync(process.env.EDGE_GO || path.join(here, "..", "infra", "edge.go"), "utf8");
  const block = /var edgeHeaders = \[\]string\{([^}]*)\}/.exec(src);
  if (!block) throw new Error("infra/edge.go declares no edgeHeaders");
  return [...block[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

// hs256 mints the user's token as the identity provider would.
function hs256(claims) {
  const b64 = (v) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const unsigned = b64({ alg: "HS256", typ: "JWT" }) + "." + b64(claims);
  return unsigned + "." + crypto.createHmac("sha256", process.env.JWT_HS256_SECRET).update(unsigned).digest("base64url");
}

// The Function URL: Lambda verifies the signature before the function
// runs; the function (the chat server) then sees the request's headers.
const originSeen = [];
const functionURL = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = Buffer.concat(chunks);
  const url = new URL(req.url, `http://${req.headers.host}`);
  originSeen.push({ method: req.method, path: url.pathname, headers: { ...req.headers } });
  const problem = verify({ method: req.method, url, headers: req.headers, body, region, service: "lambda", credentials });
  if (problem) {
    res.writeHead(403, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ Message: "Forbidden: " + problem }));
    return;
  }
  const headers = { ...req.headers };
  delete headers.host;
  delete headers["content-length"];
  const upstream = await fetch(chat + url.pathname + url.search, { method: req.method, headers, body: body.length ? body : undefined });
  const out = {};
  upstream.headers.forEach((v, k) => { if (k !== "content-length" && k !== "transfer-encoding") out[k] = v; });
  res.writeHead(upstream.status, out);
  if (upstream.body) for await (const c of upstream.body) res.write(c);
  res.end();
});
await new Promise((ok) => functionURL.listen(0, "127.0.0.1", ok));
const edge = await startCloudFrontOAC({
  origin: `http://127.0.0.1:${functionURL.address().port}`, allowedHeaders: edgeHeaders(), region, credentials,
});

const now = Math.floor(Date.now() / 1000);
const token = hs256({
  iss: process.env.JWT_ISSUER, aud: process.env.JWT_AUDIENCE, sub: "user-oac", tenant_id: "tenant-oac", iat: now, exp: now + 600,
});

const browser = await launchChromium();
const page = await browser.newPage();
const problems = [];
page.on("pageerror", (e) => problems.push(String(e)));
page.on("response", (r) => r.status() >= 400 && !r.url().endsWith("/favicon.ico") && problems.push(r.status() + " " + r.url()));

await check("prod mode: a turn from the demo page streams through CloudFront with OAC", async () => {
  // The page as the distribution serves it; only the token is set (?token=),
  // the token header is the page's default.
  await page.goto(`${edge.url}/?token=${encodeURIComponent(token)}`, { waitUntil: "networkidle0" });
  const lengths = (await askOnPage(page, "What VAT rate applies to restaurant meals?")).filter((n) => n > 0);
  if (lengths.length < 3) throw new Error("the answer did not arrive in parts; lengths seen: " + lengths);
  const answer = await page.$eval("#turns .answer", (e) => e.textContent);
  if (!answer.includes("23%")) throw new Error("answer: " + JSON.stringify(answer));
  if (problems.length) throw new Error("failed requests or script errors: " + problems.join("; "));
  const post = originSeen.find((r) => r.method === "POST" && r.path === "/chat");
  if (!post) throw new Error("no POST /chat reached the Function URL");
  if (!/^AWS4-HMAC-SHA256 Credential=AKIDCLOUDFRONTOAC\//.test(post.headers.authorization)) {
    throw new Error("the origin request's Authorization is not CloudFront's signature: " + post.headers.authorization);
  }
  if (post.headers["x-user-authorization"] !== "Bearer " + token) throw new Error("the user's token did not reach X-User-Authorization");
  if (!/^[0-9a-f]{64}$/.test(post.headers["x-amz-content-sha256"] || "")) throw new Error("the POST carried no body hash");
});

await check("prod mode: without the token the page's turn is refused 401, not served", async () => {
  const resp = await page.evaluate(async () => {
    const r = await fetch("/chat", { method: "POST", headers: { "Content-Type": "application/json", "x-amz-content-sha256": "" }, body: "{}" });
    return r.status;
  });
  // An empty hash is not the body's: Lambda refuses it before the function.
  if (resp !== 403) throw new Error("a POST whose hash is not its body's got " + resp);
  const body = JSON.stringify({ message: "What VAT rate applies to restaurant meals?" });
  const status = await page.evaluate(async (b) => {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(b));
    const hash = Array.from(new Uint8Array(digest), (x) => x.toString(16).padStart(2, "0")).join("");
    const r = await fetch("/chat", { method: "POST", headers: { "Content-Type": "application/json", "x-amz-content-sha256": hash }, body: b });
    await r.text();
    return r.status;
  }, body);
  if (status !== 401) throw new Error("a signed POST without the user's token got " + status);
});

await browser.close();
edge.close();
functionURL.close();
summary("oac-browser");
