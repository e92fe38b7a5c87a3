// A tiny test reporter: one line per check, a closing count, and a result
// file the shell script adds up.
import { appendFileSync } from "node:fs";

let passed = 0, failed = 0;

export async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log("ok - " + name);
  } catch (e) {
    failed++;
    console.log("not ok - " + name + ": " + (e && e.stack ? e.stack : e));
  }
}

export function summary(suite) {
  console.log(`${suite}: ${passed} passed, ${failed} failed`);
  if (process.env.CONTRACT_RESULTS) appendFileSync(process.env.CONTRACT_RESULTS, `${passed} ${failed}\n`);
  process.exitCode = failed ? 1 : 0;
}
