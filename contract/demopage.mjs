// What the page tests do on the demo page.

// askOnPage types a question into the demo page, sends it, and waits for
// the turn to finish. It returns the distinct lengths the answer had as
// it grew (a streamed answer shows several).
export async function askOnPage(page, question) {
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
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => !document.querySelector("#stop").disabled, { timeout: 30000 });
  await page.waitForFunction(() => document.querySelector("#stop").disabled, { timeout: 30000 });
  return page.evaluate(() => [...new Set(window.__lengths)]);
}
