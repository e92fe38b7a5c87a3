// The browser every page test drives: Debian's chromium (or $CHROMIUM),
// headless, through puppeteer-core.
import puppeteer from "puppeteer-core";

export function launchChromium() {
  return puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
}
