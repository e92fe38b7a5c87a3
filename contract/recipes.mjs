// The README's recipes, run as written: each tsx block marked
// `<!-- recipe: NAME -->` is extracted from the README, its API address
// (the one line `const API = '...'`) pointed at the server under test, and
// bundled with React by esbuild; headless Chromium then uses it as a
// person would. useChat: a new chat opens without an error, and Stop
// leaves the stored turn interrupted with the text shown.
// WorkflowChatTransport given only its URL answers, twice, in one
// conversation.
// Usage: node recipes.mjs <api base URL> <page port> <README path>
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { build } from "esbuild";
import { launchChromium } from "./chromium.mjs";
import { check, summary } from "./report.mjs";
import { servePage } from "./testpage.mjs";

const [api, pagePort, readme] = [process.argv[2], Number(process.argv[3]), process.argv[4]];
const here = new URL(".", import.meta.url).pathname;
const dir = here + "recipes/";
mkdirSync(dir, { recursive: true });

const apiLine = /^const API = '[^']*';/m;
const recipes = {};
for (const [, name, code] of readFileSync(readme, "utf8").matchAll(/<!-- recipe: (\w+) -->\n```tsx\n([\s\S]*?)\n```/g)) {
  if (!apiLine.test(code)) throw new Error(`recipe ${name}: no line 'const API = ...'`);
  recipes[name] = code.replace(apiLine, `const API = ${JSON.stringify(api)};`);
  writeFileSync(dir + name + ".tsx", recipes[name]);
}
for (const name of ["usechat", "workflow"]) {
  if (!recipes[name]) throw new Error(`the README has no recipe ${name}`);
}
writeFileSync(dir + "main.tsx", `
import { createRoot } from 'react-dom/client';
import { Chat } from './usechat';
import { WorkflowChat } from './workflow';
const params = new URLSearchParams(location.search);
const root = createRoot(document.getElementById('root')!);
root.render(params.get('recipe') === 'usechat' ? <Chat id={params.get('chat')!} initial={[]} /> : <WorkflowChat />);
`);

const bundle = await build({
  entryPoints: [dir + "main.tsx"], bundle: true, format: "esm", platform: "browser", target: "es2022",
  jsx: "automatic", write: false, define: { "process.env.NODE_ENV": '"production"' }, logLevel: "error",
});
const script = bundle.outputFiles[0].text;
const html = `<!doctype html><meta charset="utf-8"><title>recipes</title><div id="root"></div><script type="module" src="/page.js"></script>`;
const pageServer = await servePage(pagePort, html, script);

const browser = await launchChromium();
const page = await browser.newPage();
const problems = [];
page.on("pageerror", (e) => problems.push(String(e)));
page.on("console", (m) => { if (m.type() === "error") problems.push(`${m.text()} (${m.location()?.url ?? ""})`); });
const answers = () => page.$$eval("#root .assistant", (els) => els.map((e) => e.textContent));
const stored = async (id) => {
  const resp = await fetch(`${api}/conversations/${id}`);
  return resp.ok ? (await resp.json()).turns : [];
};
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

const chatId = crypto.randomUUID();

await check("useChat recipe: a new chat opens without an error (resume on mount gets 204)", async () => {
  const resumed = page.waitForResponse((r) => r.url().startsWith(`${api}/chat/${chatId}/stream`) && r.request().method() === "GET", { timeout: 20000 });
  await page.goto(`http://127.0.0.1:${pagePort}/?recipe=usechat&chat=${chatId}`);
  const resp = await resumed;
  await sleep(300);
  if (resp.status() !== 204) throw new Error(`GET /chat/{id}/stream: ${resp.status()}`);
  if (problems.length) throw new Error(problems.join("\n"));
});

await check("useChat recipe: Stop stores the turn interrupted with the text shown", async () => {
  await page.type("#root input", "[resume] What changed in the VAT rules?");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => (document.querySelector("#root .assistant")?.textContent || "").length > 40, { timeout: 20000 });
  const stopped = page.waitForResponse((r) => r.url() === `${api}/chat/${chatId}/stream` && r.request().method() === "DELETE", { timeout: 30000 });
  await page.click("#root button");
  const del = await stopped;
  await sleep(800);
  const shown = (await answers())[0];
  let turns = await stored(chatId);
  for (let i = 0; i < 40 && (turns.length !== 1 || turns[0].status === "streaming"); i++) {
    await sleep(250);
    turns = await stored(chatId);
  }
  const turn = turns[0];
  if (del.status() !== 202 || !turn || turn.status !== "interrupted") {
    throw new Error(`DELETE ${del.status()}; stored ${JSON.stringify(turns.map((t) => t.status))}`);
  }
  // The server notices the stop at its next write: it may hold a word or two the page did not show.
  if (!turn.assistantText.startsWith(shown) || turn.assistantText.length - shown.length > 80) {
    throw new Error(`shown ${shown.length} characters, stored ${turn.assistantText.length}: ${JSON.stringify(turn.assistantText.slice(shown.length))}`);
  }
});

await check("WorkflowChatTransport recipe with only its URL: two turns in one conversation", async () => {
  const runIds = [];
  page.on("response", (r) => {
    if (r.url() === `${api}/chat` && r.request().method() === "POST") runIds.push(r.headers()["x-workflow-run-id"]);
  });
  await page.goto(`http://127.0.0.1:${pagePort}/?recipe=workflow`);
  for (const turn of [1, 2]) {
    await page.waitForFunction(() => !document.querySelector("#root button")?.disabled, { timeout: 20000 });
    await page.click("#root button");
    await page.waitForFunction((n) => document.querySelectorAll("#root .assistant").length === n &&
      !document.querySelector("#root button").disabled, { timeout: 20000 }, turn);
  }
  const texts = await answers();
  if (texts.length !== 2 || texts.some((t) => !t.includes("23%"))) throw new Error(`answers: ${JSON.stringify(texts)}`);
  if (runIds.length !== 2 || !runIds[0] || runIds[0] !== runIds[1]) throw new Error(`run ids: ${JSON.stringify(runIds)}`);
  const turns = await stored(runIds[0]);
  if (turns.length !== 2 || turns.some((t) => t.status !== "ok")) throw new Error(`stored: ${JSON.stringify(turns.map((t) => t.status))}`);
});

await check("no script errors", async () => {
  if (problems.length) throw new Error(problems.join("\n"));
});

await browser.close();
pageServer.close();
summary("recipes");
