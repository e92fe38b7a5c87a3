// Contract test in a real browser: headless Chromium (the system's, driven
// by puppeteer-core) loads the demo page from another origin (a small proxy
// on its own port) and uses the API across origins: a two-turn
// conversation whose text arrives incrementally (sent with Enter), a reload
// that restores it, Stop and Retry, keyboard access, rename (PATCH) and
// delete (DELETE), the as-of date and profile controls with what the answer
// rests on, the calculator form (POST /calculate), an unreachable API, and
// axe-core's audit at 390 and 1280 px in light and dark, each screenshot
// kept for review (SCREENSHOT_DIR).
// Usage: node browser.mjs <api base URL> <page port>
import http from "node:http";
import { createRequire } from "node:module";
import { launchChromium } from "./chromium.mjs";
import { askOnPage } from "./demopage.mjs";
import { check, summary } from "./report.mjs";
import { apiFetch, tokenHeader } from "./api-fetch.mjs";

const [api, pagePort] = [process.argv[2], Number(process.argv[3])];

// The page's own origin serves only the page's files, fetched from the API
// server as a static host would hold them.
const pageServer = http.createServer(async (req, res) => {
  const upstream = await fetch(api + new URL(req.url, "http://x").pathname);
  res.writeHead(upstream.status, { "Content-Type": upstream.headers.get("Content-Type") || "text/plain" });
  res.end(Buffer.from(await upstream.arrayBuffer()));
});
await new Promise((ok) => pageServer.listen(pagePort, "127.0.0.1", ok));
// The page sends the token (if any) in the header the stage reads.
const pageURL = `http://127.0.0.1:${pagePort}/?api=${encodeURIComponent(api)}&tokenHeader=${tokenHeader}` +
  (process.env.API_TOKEN ? `&token=${encodeURIComponent(process.env.API_TOKEN)}` : "");

const browser = await launchChromium();
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
// A 404 from the resume route means nothing is running, as documented.
const nothingRunning = (r) => r.status() === 404 && /\/chat\/[^/]+\/stream$/.test(new URL(r.url()).pathname);
// The calculator check sends a negative income on purpose: its 400 is the answer looked for.
const refusedCalculation = (r) => r.status() === 400 && new URL(r.url()).pathname === "/calculate";
page.on("response", (r) => r.status() >= 400 && !r.url().endsWith("/favicon.ico") && !nothingRunning(r) && !refusedCalculation(r) &&
  problems.push(r.status() + " " + r.url()));
const listed = () => page.$$eval("#conversations li", (els) => els.map((e) => e.dataset.id));

const ask = (question) => askOnPage(page, question);

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
  await page.waitForSelector("#conversations li.current", { timeout: 30000 });
  conversationId = await page.$eval("#conversations li.current", (e) => e.dataset.id);
  if ((await listed()).length !== before + 1) throw new Error("the list did not gain the new conversation");
});

await check("Shift+Enter starts a new line instead of sending", async () => {
  const turns = await page.$$eval("#turns .turn", (els) => els.length);
  await page.focus("#question");
  await page.keyboard.type("first line");
  await page.keyboard.down("Shift");
  await page.keyboard.press("Enter");
  await page.keyboard.up("Shift");
  await page.keyboard.type("second line");
  const value = await page.$eval("#question", (e) => e.value);
  if (value !== "first line\nsecond line") throw new Error("question box holds " + JSON.stringify(value));
  if ((await page.$$eval("#turns .turn", (els) => els.length)) !== turns) throw new Error("Shift+Enter sent the question");
  await page.$eval("#question", (e) => { e.value = ""; });
});

await check("the open conversation is in the URL, and a reload restores it", async () => {
  const hash = await page.evaluate(() => location.hash);
  if (hash !== "#c=" + conversationId) throw new Error("URL hash " + hash + ", conversation " + conversationId);
  await page.reload({ waitUntil: "networkidle0" });
  await page.waitForFunction(() => document.querySelectorAll("#turns .answer").length === 2, { timeout: 30000 });
  const answers = await page.$$eval("#turns .answer", (els) => els.map((e) => e.textContent));
  if (!answers.every((a) => a.includes("23%"))) throw new Error("restored answers: " + JSON.stringify(answers));
});

await check("answers sit in a polite live region and scroll into view", async () => {
  const live = await page.$$eval("#turns .answer", (els) => els.map((e) => e.getAttribute("aria-live")));
  if (!live.length || !live.every((v) => v === "polite")) throw new Error("aria-live of the answers: " + live);
});

await check("Stop leaves the status stopped and a Retry that answers in place", async () => {
  await page.type("#question", "[slow] Tell me everything about VAT.");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.querySelector("#turns .turn:last-child .answer").textContent.length > 20, { timeout: 30000 });
  await page.click("#stop");
  await page.waitForFunction(() => document.querySelector("#status").textContent === "stopped", { timeout: 30000 });
  if (await page.$eval("#retry", (b) => b.hidden)) throw new Error("no Retry after Stop");
  const turns = await page.$$eval("#turns .turn", (els) => els.length);
  await page.click("#retry");
  await page.waitForFunction(() => !document.querySelector("#stop").disabled, { timeout: 30000 });
  await page.click("#stop");
  await page.waitForFunction(() => document.querySelector("#stop").disabled, { timeout: 30000 });
  if ((await page.$$eval("#turns .turn", (els) => els.length)) !== turns) throw new Error("the retry added a turn instead of replacing it");
  const stored = await (await apiFetch(api + "/conversations/" + conversationId)).json();
  if (stored.turns.length !== 3 || stored.turns[2].status !== "interrupted") {
    throw new Error("stored turns: " + JSON.stringify(stored.turns.map((t) => t.status)));
  }
});

await check("a failed answer shows its error, the status and Retry", async () => {
  await page.type("#question", "[fail-once] What is the VAT on books?");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.querySelector("#status").textContent === "failed", { timeout: 30000 });
  if (await page.$eval("#retry", (b) => b.hidden)) throw new Error("no Retry after an error");
  await page.click("#retry");
  await page.waitForFunction(() => document.querySelector("#status").textContent === "" && document.querySelector("#stop").disabled, { timeout: 30000 });
  const last = await page.$eval("#turns .turn:last-child .answer", (e) => e.textContent);
  if (!last.includes("23%")) throw new Error("retried answer: " + last);
});

await check("conversation titles are reachable by keyboard, each row named", async () => {
  const rows = await page.$$eval("#conversations li", (els) => els.map((li) => ({
    title: li.querySelector(".title")?.tagName,
    names: [...li.querySelectorAll(".actions button")].map((b) => b.getAttribute("aria-label")),
  })));
  if (!rows.length || rows.some((r) => r.title !== "BUTTON" || r.names.some((n) => !n || !n.includes("“")))) {
    throw new Error("rows: " + JSON.stringify(rows));
  }
  await pressUntil("#conversations li:not(.current) .title", (id) => !location.hash.includes(id));
  await pressUntil(`#conversations li[data-id="${conversationId}"] .title`, (id) => location.hash === "#c=" + id);
});

// pressUntil focuses selector and presses Enter until done(conversationId)
// holds, as a person presses again: the list is drawn anew when a
// conversation opens, and a key pressed on a row being replaced is lost.
async function pressUntil(selector, done) {
  for (let attempt = 1; ; attempt++) {
    await page.focus(selector);
    await page.keyboard.press("Enter");
    try {
      await page.waitForFunction(done, { timeout: 3000 }, conversationId);
      return;
    } catch (e) {
      if (attempt === 10) throw e;
    }
  }
}

await check("the graph panel names nodes by label, not by id", async () => {
  const named = await page.evaluate(() => [
    nodeLabel({ id: "TAX:IE:VAT:RATE:ZERO", labels: ["Rate"] }),
    nodeLabel({ id: "TAX:IE:VRT", prefLabel: "Vehicle Registration Tax" }),
  ]);
  if (named.some((n) => /[A-Z]+:[A-Z]/.test(n)) || named[1] !== "Vehicle Registration Tax") throw new Error("labels: " + named);
});

// calculate fills the calculator form and submits it, returning what the
// result area then shows.
async function calculate(calculator, taxYear, inputs) {
  await page.select("#calc-name", calculator);
  await page.$eval("#calc-tax-year", (e, v) => { e.value = v; }, taxYear);
  await page.$eval("#calc-as-of", (e) => { e.value = ""; });
  await page.$eval("#calc-inputs", (e, v) => { e.value = v; }, JSON.stringify(inputs));
  await page.$eval("#calc-result", (e) => e.replaceChildren());
  await page.click("#calculate");
  await page.waitForFunction(() => document.querySelector("#calc-result").children.length > 0, { timeout: 30000 });
  return page.$eval("#calc-result", (e) => ({
    total: e.querySelector(".calc-total")?.textContent,
    lines: [...e.querySelectorAll("tbody tr")].map((tr) => [...tr.cells].map((c) => c.textContent)),
    error: e.querySelector(".warning")?.textContent,
    citations: [...e.querySelectorAll(".citations li")].map((c) => ({
      value: c.querySelector(".citation-value")?.textContent, facts: c.querySelector(".citation-facts")?.textContent,
      link: c.querySelector(".citation-facts a")?.href,
    })),
  }));
}

await check("the calculator form: IE income tax 2024, single, €52,000 is 8650.00; a negative income names inputs.income", async () => {
  const sent = [];
  const onRequest = (r) => r.method() === "POST" && new URL(r.url()).pathname === "/calculate" && sent.push(JSON.parse(r.postData()));
  page.on("request", onRequest);
  const refused = await calculate("ie_income_tax", "2024", { status: "single", income: "-52000" });
  if (!refused.error?.includes("inputs.income") || refused.total !== undefined) throw new Error("negative income shown as " + JSON.stringify(refused));
  const shown = await calculate("ie_income_tax", "2024", { status: "single", income: "52000" });
  page.off("request", onRequest);
  const body = sent.at(-1);
  if (body?.calculator !== "ie_income_tax" || body.taxYear !== "2024" || body.inputs?.income !== "52000" || "asOf" in body) {
    throw new Error("POST /calculate body: " + JSON.stringify(body));
  }
  if (shown.error || shown.total !== "8650.00") throw new Error("shown: " + JSON.stringify(shown));
  if (!shown.lines.length || shown.lines.some((l) => l.length !== 3 || !/^-?\d+\.\d{2}$/.test(l[1]) || !l[2])) throw new Error("lines: " + JSON.stringify(shown.lines));
  const valued = shown.citations.filter((c) => /\d/.test(c.value || "") && /valid /.test(c.facts) && c.link?.startsWith("https://"));
  if (!valued.length) throw new Error("no citation with its value, dates and source: " + JSON.stringify(shown.citations));
  // Each calculator's example is one the API accepts.
  const names = await page.$$eval("#calc-name option", (os) => os.map((o) => o.value));
  for (const name of names) {
    await page.select("#calc-name", name);
    await page.$eval("#calc-result", (e) => e.replaceChildren());
    await page.click("#calculate");
    await page.waitForFunction(() => document.querySelector("#calc-result").children.length > 0, { timeout: 30000 });
    const total = await page.$eval("#calc-result", (e) => e.querySelector(".calc-total")?.textContent || e.textContent);
    if (!/^\d+\.\d{2}$/.test(total)) throw new Error(name + "'s example: " + total);
  }
  await calculate("ie_income_tax", "2024", { status: "single", income: "52000" });
});

const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
async function axeViolations() {
  if (!(await page.evaluate(() => !!window.axe))) await page.addScriptTag({ path: axePath });
  return page.evaluate(async () => (await window.axe.run(document)).violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(" ")) })));
}

await check("axe-core finds no accessibility violation", async () => {
  const result = await axeViolations();
  if (result.length) throw new Error(JSON.stringify(result, null, 1));
});

await check("rename (PATCH) across origins", async () => {
  page.once("dialog", (d) => d.accept("Renamed in the browser"));
  await page.click("#conversations li.current .rename");
  await page.waitForFunction(() => document.querySelector("#conversations li.current .title")?.textContent === "Renamed in the browser", { timeout: 30000 });
});

await check("delete (DELETE) across origins", async () => {
  // As above: a click on a row being drawn anew is lost; click again.
  const accept = (d) => d.accept();
  page.on("dialog", accept);
  for (let attempt = 1; ; attempt++) {
    await page.click(`#conversations li[data-id="${conversationId}"] .delete`).catch(() => {});
    try {
      await page.waitForFunction((id) => !document.querySelector(`#conversations li[data-id="${id}"]`), { timeout: 3000 }, conversationId);
      break;
    } catch (e) {
      if (attempt === 10) throw e;
    }
  }
  page.off("dialog", accept);
  const gone = await apiFetch(api + "/conversations/" + conversationId);
  if (gone.status !== 404) throw new Error("the server still has it: " + gone.status);
});

await check("as-of date, jurisdictions and persona are sent; the answer shows its date and the values it rests on", async () => {
  const sent = [];
  const onRequest = (r) => r.method() === "POST" && new URL(r.url()).pathname === "/chat" && sent.push(JSON.parse(r.postData()));
  page.on("request", onRequest);
  await page.click("#options summary");
  await page.$eval("#as-of", (e) => { e.value = "2025-03-01"; e.dispatchEvent(new Event("change", { bubbles: true })); });
  await page.click("input[name=jurisdiction][value=IE]");
  await page.select("#persona", "employee");
  await ask("What VAT rate applies to restaurant meals?");
  page.off("request", onRequest);
  const body = sent.at(-1);
  if (body?.asOf !== "2025-03-01" || body.profile?.personaType !== "employee" || body.profile?.jurisdictions?.join() !== "IE") {
    throw new Error("POST /chat body: " + JSON.stringify(body));
  }
  const shown = await page.$eval("#turns .turn:last-child", (li) => ({
    asOf: li.querySelector(".asof")?.textContent,
    citations: [...li.querySelectorAll(".citations li")].map((c) => ({
      value: c.querySelector(".citation-value")?.textContent, facts: c.querySelector(".citation-facts")?.textContent,
      link: c.querySelector(".citation-facts a")?.href,
    })),
  }));
  if (shown.asOf !== "As of 1 March 2025 — the date you chose") throw new Error("as-of line: " + shown.asOf);
  const valued = shown.citations.filter((c) => /\d/.test(c.value || "") && /no dates recorded|valid /.test(c.facts) && c.link?.startsWith("https://"));
  if (!valued.length) throw new Error("no citation with its value, dates and source: " + JSON.stringify(shown.citations));
});

await check("answers are markdown, sanitised; Copy copies the answer", async () => {
  const html = await page.evaluate(() => {
    const t = addTurn("markdown");
    setAnswer(t, "**bold** [x](javascript:alert(1)) <img src=x onerror=alert(1)><script>alert(1)</script>");
    const out = t.body.innerHTML;
    t.li.remove();
    return out;
  });
  if (!html.includes("<strong>bold</strong>") || /script|onerror|javascript:|<img/.test(html)) throw new Error("rendered: " + html);
  await browser.defaultBrowserContext().overridePermissions(`http://127.0.0.1:${pagePort}`, ["clipboard-read", "clipboard-write", "clipboard-sanitized-write"]);
  await page.click("#turns .turn:last-child .copy");
  await page.waitForFunction(() => document.querySelector("#status").textContent === "answer copied", { timeout: 30000 });
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  const answer = await page.$eval("#turns .turn:last-child .answer", (e) => e.textContent);
  if (!copied.includes("23%") || !answer.includes(copied.trim().slice(0, 40))) throw new Error("copied: " + JSON.stringify(copied));
});

await check("a citation shows its value with its unit, dates or in force, status, staleness, confidence and source", async () => {
  const shown = await page.evaluate(() => [
    citationItem({ nodeId: "A", label: "Weekly rate", value: 244, unit: "EUR/week", validFrom: "2025-01-01", validTo: null, status: "in_force",
      url: "https://www.gov.ie/x", lastVerifiedAt: "2024-01-02T00:00:00Z", mayBeOutdated: true, confidence: "corroborated" }),
    citationItem({ nodeId: "B", label: "Old rate", value: 13.5, unit: "%", validFrom: "2023-09-01", validTo: "2025-06-30", status: "superseded",
      url: "https://www.revenue.ie/y", lastVerifiedAt: null, mayBeOutdated: false }),
  ].map((li) => li.innerText.replace(/\s+/g, " ")));
  const want = [
    ["Weekly rate", "€244 per week", "valid 2025-01-01 – in force", "in force", "may be out of date", "corroborated", "checked 2024-01-02", "gov.ie"],
    ["Old rate", "13.5%", "valid 2023-09-01 – 2025-06-30", "superseded", "revenue.ie"],
  ];
  want.forEach((parts, i) => {
    const missing = parts.filter((p) => !shown[i].includes(p));
    if (missing.length) throw new Error(`citation ${i}: ${shown[i]} lacks ${missing.join(", ")}`);
  });
  if (shown[1].includes("may be out of date") || shown[1].includes("corroborated")) throw new Error("badges on a current, official value: " + shown[1]);
});

// Each layout and colour scheme is audited and kept as a screenshot.
for (const width of [390, 1280]) {
  for (const scheme of ["light", "dark"]) {
    await check(`at ${width} px, ${scheme}: the chat is usable, axe finds no violation, screenshot kept`, async () => {
      await page.setViewport({ width, height: width === 390 ? 844 : 800 });
      await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
      const chat = await page.$eval("#chat", (e) => e.getBoundingClientRect().width);
      if (chat < width * 0.5) throw new Error(`the chat column is ${chat} px wide`);
      await page.$eval("#turns .turn:last-child", (e) => e.scrollIntoView({ block: "start" }));
      const result = await axeViolations();
      await page.screenshot({ path: `${process.env.SCREENSHOT_DIR || "."}/demo-page-${width}-${scheme}.png` });
      await page.$eval("#calculator", (e) => e.scrollIntoView({ block: "start" }));
      await page.screenshot({ path: `${process.env.SCREENSHOT_DIR || "."}/demo-page-${width}-${scheme}-calculator.png` });
      if (result.length) throw new Error(JSON.stringify(result, null, 1));
    });
  }
}
await page.setViewport({ width: 1280, height: 800 });
await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "light" }]);

await check("the skip link is the first Tab stop and focuses the question box", async () => {
  await page.reload({ waitUntil: "networkidle0" });
  await page.keyboard.press("Tab");
  const first = await page.evaluate(() => document.activeElement.className);
  if (first !== "skip-link") throw new Error("first Tab stop: " + first);
  const hash = await page.evaluate(() => location.hash);
  await page.keyboard.press("Enter");
  const focused = await page.evaluate(() => document.activeElement.id);
  if (focused !== "question") throw new Error("focused after the skip link: " + focused);
  if ((await page.evaluate(() => location.hash)) !== hash) throw new Error("the skip link changed the URL's hash");
});

// The page's own script may read X-Conversation-Id across origins (the
// server exposes it), and it names the conversation the start event names.
await check("X-Conversation-Id readable across origins", async () => {
  // The page's own request helper: apiFetch is Node's, not the page's.
  const seen = await page.evaluate(async () => {
    const resp = await request("/chat", { method: "POST", body: { message: "Is there VAT on books?" } });
    const body = await resp.text();
    // A frame's fields come in any order (a recorded turn's have an id first).
    const start = body.split("\n\n").find((f) => f.split("\n").includes("event: start"));
    return { header: resp.headers.get("X-Conversation-Id"), start: start && JSON.parse(start.split("\ndata: ")[1]) };
  });
  if (!seen.header) throw new Error("X-Conversation-Id not readable from " + pageURL);
  if (seen.start?.conversationId !== seen.header) throw new Error("start event " + JSON.stringify(seen.start) + ", header " + seen.header);
  await apiFetch(api + "/conversations/" + seen.header, { method: "DELETE" });
});

await check("no script errors or failed requests (CORS included)", async () => {
  if (problems.length) throw new Error(problems.join("\n"));
});

// An API that cannot be reached: the turn says so, nothing is left empty,
// and no error escapes the page's script.
await check("an unreachable API is shown, with no uncaught error", async () => {
  const offline = await browser.newPage();
  const uncaught = [];
  offline.on("pageerror", (e) => uncaught.push(String(e)));
  await offline.goto(`http://127.0.0.1:${pagePort}/?api=${encodeURIComponent("http://127.0.0.1:9")}`, { waitUntil: "load" });
  await offline.type("#question", "Is anyone there?");
  await offline.keyboard.press("Enter");
  await offline.waitForFunction(() => document.querySelector("#status").textContent === "failed", { timeout: 30000 });
  const turn = await offline.$eval("#turns .turn:last-child", (li) => li.textContent);
  if (!turn.includes("Could not reach the API")) throw new Error("turn: " + turn);
  if (await offline.$eval("#retry", (b) => b.hidden)) throw new Error("no Retry after a network error");
  if (uncaught.length) throw new Error(uncaught.join("\n"));
  await offline.close();
});

await browser.close();
pageServer.close();
summary("browser");
