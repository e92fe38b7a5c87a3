// Contract test of resumable turns with the AI SDK in headless Chromium:
// the page (resume-page.mjs, bundled here with esbuild) asks a question,
// is reloaded mid-answer, and resumes the running turn; the whole answer
// must be on the page once and stored with status ok.
// Usage: node resume.mjs <api base URL> <page port>
import { build } from "esbuild";
import { launchChromium } from "./chromium.mjs";
import { check, summary } from "./report.mjs";
import { servePage } from "./testpage.mjs";
import { apiFetch, tokenHeader } from "./api-fetch.mjs";

const [api, pagePort] = [process.argv[2], Number(process.argv[3])];
// The fake model's [resume] answer (contract/fakellm).
const answer = "The resumed answer goes on. ".repeat(12);

const bundle = await build({ entryPoints: [new URL("./resume-page.mjs", import.meta.url).pathname], bundle: true, format: "esm", platform: "browser", target: "es2022", write: false });
const script = bundle.outputFiles[0].text;
const html = `<!doctype html><meta charset="utf-8"><title>resume</title><div id="messages"></div><script type="module" src="/page.js"></script>`;
const pageServer = await servePage(pagePort, html, script);

const browser = await launchChromium();
const page = await browser.newPage();
const problems = [];
page.on("pageerror", (e) => problems.push(String(e)));
const assistantTexts = () => page.$$eval('#messages [data-role="assistant"]', (els) => els.map((e) => e.textContent));
const chatReady = () => page.waitForFunction(() => window.chat && window.resumed, { timeout: 30000 });

async function storedTurns(id) {
  const resp = await apiFetch(`${api}/conversations/${id}`);
  return (await resp.json()).turns;
}

await check("reload mid-answer: the answer is resumed, whole, once, and stored ok", async () => {
  await page.goto(`http://127.0.0.1:${pagePort}/?api=${encodeURIComponent(api)}&tokenHeader=${tokenHeader}` +
    (process.env.API_TOKEN ? `&token=${encodeURIComponent(process.env.API_TOKEN)}` : ""));
  await chatReady();
  await page.evaluate(() => { window.sent = window.chat.sendMessage({ text: "[resume] What changed in the VAT rules?" }); });
  await page.waitForFunction(() => (document.querySelector('#messages [data-role="assistant"]')?.textContent || "").length > 0, { timeout: 30000 });
  const before = (await assistantTexts())[0];
  if (before.length >= answer.length) throw new Error("the answer was whole before the reload");
  const id = new URL(page.url()).searchParams.get("chat");
  await page.reload();
  await chatReady();
  await page.evaluate(() => window.resumed);
  await page.waitForFunction(() => window.chat.status === "ready", { timeout: 20000 });
  const texts = await assistantTexts();
  if (texts.length !== 1 || texts[0] !== answer) throw new Error(`assistant messages after the reload: ${JSON.stringify(texts)}`);
  const error = await page.evaluate(() => window.chat.error && String(window.chat.error));
  if (error) throw new Error("chat error: " + error);
  const turns = await storedTurns(id);
  if (turns.length !== 1 || turns[0].status !== "ok" || turns[0].assistantText !== answer) {
    throw new Error("stored: " + JSON.stringify(turns.map((t) => [t.status, t.assistantText.length])));
  }
});

await check("reload after the answer: nothing to resume, nothing doubled", async () => {
  await page.reload();
  await chatReady();
  if ((await page.evaluate(() => window.resumed)) !== true) throw new Error("resume did not settle");
  const texts = await assistantTexts();
  const error = await page.evaluate(() => window.chat.error && String(window.chat.error));
  if (texts.length !== 1 || texts[0] !== answer || error) throw new Error(`after the second reload: ${JSON.stringify(texts)} ${error}`);
});

await check("the same chat id continues the conversation", async () => {
  const id = new URL(page.url()).searchParams.get("chat");
  await page.evaluate(() => window.chat.sendMessage({ text: "And for takeaway coffee?" }));
  const turns = await storedTurns(id);
  if (turns.length !== 2 || turns[1].status !== "ok") throw new Error("stored: " + JSON.stringify(turns.map((t) => t.status)));
});

await check("regenerate() replaces the last answer in place", async () => {
  const id = new URL(page.url()).searchParams.get("chat");
  await page.evaluate(() => window.chat.regenerate());
  const turns = await storedTurns(id);
  const texts = await assistantTexts();
  if (turns.length !== 2 || turns[1].status !== "ok" || texts.length !== 2) {
    throw new Error(`after regenerate: ${turns.length} stored turns, ${texts.length} answers on the page`);
  }
});

await check("no script errors", async () => {
  if (problems.length) throw new Error(problems.join("\n"));
});

await browser.close();
pageServer.close();
summary("resume");
