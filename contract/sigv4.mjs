// AWS Signature Version 4 for a request with headers (the Authorization
// header form), written from AWS's "Create a signed AWS API request" steps:
// canonical request, string to sign, derived key, signature. The payload
// hash is x-amz-content-sha256 when the request has it (what CloudFront's
// origin access control signs with for Lambda), else the empty body's hash.
import crypto from "node:crypto";

export const sha256Hex = (data) => crypto.createHash("sha256").update(data).digest("hex");
const hmac = (key, data) => crypto.createHmac("sha256", key).update(data).digest();
const emptyHash = sha256Hex("");

// RFC 3986 encoding of one URI component, as SigV4 wants it.
const encode = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());

function canonicalQuery(search) {
  const pairs = [...new URLSearchParams(search)].map(([k, v]) => [encode(k), encode(v)]);
  pairs.sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1));
  return pairs.map(([k, v]) => k + "=" + v).join("&");
}

// canonicalRequest: headers is a plain object of lower-case names.
function canonicalRequest(method, url, headers, signed) {
  const path = url.pathname.split("/").map((seg) => encode(decodeURIComponent(seg))).join("/") || "/";
  const lines = signed.map((h) => h + ":" + String(headers[h]).trim().replace(/\s+/g, " "));
  return [method, path, canonicalQuery(url.search), lines.join("\n") + "\n", signed.join(";"), headers["x-amz-content-sha256"] || emptyHash].join("\n");
}

function signature({ method, url, headers, signed, date, region, service, secretAccessKey }) {
  const day = date.slice(0, 8);
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", date, scope, sha256Hex(canonicalRequest(method, url, headers, signed))].join("\n");
  let key = hmac("AWS4" + secretAccessKey, day);
  for (const part of [region, service, "aws4_request"]) key = hmac(key, part);
  return { scope, signature: hmac(key, toSign).toString("hex") };
}

// sign adds x-amz-date and Authorization to headers (lower-case names),
// signing host, x-amz-* and every other header given.
export function sign({ method, url, headers, region, service, credentials, now = new Date() }) {
  const date = now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
  const h = { ...headers, host: url.host, "x-amz-date": date };
  delete h.authorization;
  const signed = Object.keys(h).sort();
  const { scope, signature: sig } = signature({ method, url, headers: h, signed, date, region, service, secretAccessKey: credentials.secretAccessKey });
  h.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signed.join(";")}, Signature=${sig}`;
  return h;
}

// verify checks a received request's signature and, when the request has a
// body, that x-amz-content-sha256 is its hash: what a Function URL with
// AWS_IAM auth does before it invokes the function. It returns an error
// message, or "" when the request is good.
export function verify({ method, url, headers, body, region, service, credentials }) {
  const auth = headers.authorization || "";
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]+)$/.exec(auth);
  if (!m) return "missing or malformed SigV4 Authorization";
  if (m[1] !== credentials.accessKeyId) return "unknown access key";
  const signed = m[3].split(";");
  if (!signed.includes("host") || !signed.includes("x-amz-date")) return "host and x-amz-date must be signed";
  const hasBody = body && body.length > 0;
  if (hasBody && !headers["x-amz-content-sha256"]) return "unsigned payload: x-amz-content-sha256 is required with a body";
  if (hasBody && headers["x-amz-content-sha256"] !== sha256Hex(body)) return "x-amz-content-sha256 is not the body's hash";
  const { signature: want } = signature({ method, url, headers, signed, date: headers["x-amz-date"], region, service, secretAccessKey: credentials.secretAccessKey });
  return crypto.timingSafeEqual(Buffer.from(want), Buffer.from(m[4].padEnd(want.length).slice(0, want.length))) ? "" : "signature does not match";
}
