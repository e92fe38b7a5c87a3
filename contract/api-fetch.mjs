// apiFetch is fetch with the headers a stage expects of every client: the
// user's token (API_TOKEN, none under AUTH_MODE=dev) in TOKEN_HEADER
// (Authorization for a public Function URL; X-User-Authorization behind
// CloudFront, whose origin access control overwrites Authorization; unset
// or "both": in both, as the demo page does, so either stage reads it), and
// for a request with a body its SHA-256 in x-amz-content-sha256 (Lambda
// takes no unsigned payload through OAC).
import { createHash } from "node:crypto";

export const tokenHeader = process.env.TOKEN_HEADER || "both";
const tokenHeaderNames = tokenHeader === "both" ? ["Authorization", "X-User-Authorization"] : [tokenHeader];

export function apiFetch(url, init = {}) {
  const headers = new Headers(init.headers);
  if (process.env.API_TOKEN) for (const name of tokenHeaderNames) headers.set(name, "Bearer " + process.env.API_TOKEN);
  const method = (init.method || "GET").toUpperCase();
  if (method !== "GET" && method !== "HEAD") {
    headers.set("x-amz-content-sha256", createHash("sha256").update(init.body ?? "").digest("hex"));
  }
  return fetch(url, { ...init, headers });
}
