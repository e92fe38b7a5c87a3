// Contract test in a real browser: headless Chromium (the system's, driven
// by puppeteer-core) loads the demo page from another origin (a small proxy
// on its own port) and uses the API across origins: a two-turn
// conversation whose text arrives incrementally, then rename (PATCH) and
// delete (DELETE). Usage: node browser.mjs <api base URL> <page port>
import http from "node:http";
import puppeteer from "puppeteer-core";
import { check, summary } from "./report.mjs";

const [api, pagePort] = [process.argv[2], Number(process.argv[3])];

// The page's own origin serves only the page's files, fetched from the API
// server as a static host would hold them.
const pageServer = http.createServer(async (req, res) => {
  const upstream = await fetch(api + new URL(req.url, "http://x").pathname);
  res.writeHead(upstream.status, { "Content-Type": upstream.headers.get("Content-Type") || "text/plain" });
  res.end(Buffer.from(await upstream.arrayBuffer()));
});
await new Promise((ok) => pageServer.listen(pagePort, "127.0.0.1", ok));
const pageURL = `http://127.0.0.1:${pagePort}/?api=${encodeURIComponent(api)}`;

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-dev-shm-usage"],
});
const page = await browser.newPage();
await page.setViewport({ width: 1280, height: 800 });
// Script errors and failed requests (a CORS refusal is one); the browser's
// own favicon probe is not the page's.
const problems = [];
page.on("pageerror", (e) => problems.push(String(e)));
page.on("requestfailed", (r) => {
  // A body-less answer (204) can be reported as aborted once it is done.
  if (r.failure()?.errorText === "net::ERR_ABORTED" && r.response()?.ok()) return;
  problems.push(r.method() + " " + r.url() + ": " + r.failure()?.errorText);
});
page.on("response", (r) => r.status() >= 400 && !r.url().endsWith("/favicon.ico") && problems.push(r.status() + " " + r.url()));
const listed = () => page.$$eval("#conversations li", (els) => els.map((e) => e.dataset.id));

// ask types a question, sends it, and waits for the turn to finish. It
// returns the lengths the answer had as it grew.
async function ask(question) {
  await page.evaluate(() => {
    window.__lengths = [];
    const turns = document.querySelector("#turns");
    new MutationObserver(() => {
      const answers = turns.querySelectorAll(".answer");
      const last = answers[answers.length - 1];
      if (last) window.__lengths.push(last.textContent.length);
    }).observe(turns, { childList: true, subtree: true, characterData: true });
  });
  await page.type("#question", question);
  await page.click("#send");
  await page.waitForFunction(() => !document.querySelector("#stop").disabled, { timeout: 5000 });
  await page.waitForFunction(() => document.querySelector("#stop").disabled, { timeout: 20000 });
  return page.evaluate(() => [...new Set(window.__lengths)]);
}

await check("demo page loads from another origin", async () => {
  await page.goto(pageURL, { waitUntil: "networkidle0" });
  const origin = await page.evaluate(() => location.origin);
  if (origin === new URL(api).origin) throw new Error("page and API share an origin");
});

let conversationId;
await check("two-turn conversation, text arriving incrementally", async () => {
  const before = (await listed()).length;
  const first = await ask("What VAT rate applies to restaurant meals?");
  if (first.filter((n) => n > 0).length < 3) throw new Error("answer lengths seen: " + first);
  const second = await ask("And for takeaway coffee?");
  if (second.filter((n) => n > 0).length < 3) throw new Error("second answer lengths seen: " + second);
  const answers = await page.$$eval("#turns .answer", (els) => els.map((e) => e.textContent));
  if (answers.length !== 2 || !answers.every((a) => a.includes("23%"))) throw new Error("answers: " + JSON.stringify(answers));
  await page.waitForSelector("#conversations li.current", { timeout: 5000 });
  conversationId = await page.$eval("#conversations li.current", (e) => e.dataset.id);
  if ((await listed()).length !== before + 1) throw new Error("the list did not gain the new conversation");
  await page.screenshot({ path: process.env.SCREENSHOT || "demo-page.png" });
});

await check("rename (PATCH) across origins", async () => {
  page.once("dialog", (d) => d.accept("Renamed in the browser"));
  await page.click("#conversations li.current .rename");
  await page.waitForFunction(() => document.querySelector("#conversations li.current .title")?.textContent === "Renamed in the browser", { timeout: 5000 });
});

await check("delete (DELETE) across origins", async () => {
  page.once("dialog", (d) => d.accept());
  await page.click("#conversations li.current .delete");
  await page.waitForFunction((id) => !document.querySelector(`#conversations li[data-id="${id}"]`), { timeout: 5000 }, conversationId);
  const gone = await fetch(api + "/conversations/" + conversationId);
  if (gone.status !== 404) throw new Error("the server still has it: " + gone.status);
});

// The page's own script may read X-Conversation-Id across origins (the
// server exposes it), and it names the conversation the start event names.
await check("X-Conversation-Id readable across origins", async () => {
  const seen = await page.evaluate(async (api) => {
    const resp = await fetch(api + "/chat", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ message: "Is there VAT on books?" }),
    });
    const body = await resp.text();
    // A frame's fields come in any order (a recorded turn's have an id first).
    const start = body.split("\n\n").find((f) => f.split("\n").includes("event: start"));
    return { header: resp.headers.get("X-Conversation-Id"), start: start && JSON.parse(start.split("\ndata: ")[1]) };
  }, api);
  if (!seen.header) throw new Error("X-Conversation-Id not readable from " + pageURL);
  if (seen.start?.conversationId !== seen.header) throw new Error("start event " + JSON.stringify(seen.start) + ", header " + seen.header);
  await fetch(api + "/conversations/" + seen.header, { method: "DELETE" });
});

await check("no script errors or failed requests (CORS included)", async () => {
  if (problems.length) throw new Error(problems.join("\n"));
});

await browser.close();
pageServer.close();
summary("browser");
