// A local stand-in for the prod hop browser -> CloudFront -> Function URL,
// in the shape AWS documents for origin access control with a Lambda
// function URL origin (signing behavior "always", the stack's setting):
//   - CloudFront forwards only the headers of the origin request policy
//     (allowedHeaders: infra/edge.go's edgeHeaders) and every query string;
//   - it signs the origin request with SigV4 (service lambda), overwriting
//     any Authorization the viewer sent;
//   - the payload hash it signs is the viewer's x-amz-content-sha256: a
//     POST or PUT without it reaches the origin unsigned and is refused
//     there ("Lambda doesn't support unsigned payloads");
//   - nothing is cached or compressed: the answer streams through.
import http from "node:http";
import { sign } from "./sigv4.mjs";

export function startCloudFrontOAC({ origin, allowedHeaders, region, credentials }) {
  const allowed = new Set(allowedHeaders.map((h) => h.toLowerCase()));
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    const viewerURL = new URL(req.url, "http://viewer");
    const url = new URL(viewerURL.pathname + viewerURL.search, origin);
    const headers = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (allowed.has(name)) headers[name] = value;
    }
    const signed = sign({ method: req.method, url, headers, region, service: "lambda", credentials });
    let upstream;
    try {
      upstream = await fetch(url, { method: req.method, headers: signed, body: body.length ? body : undefined });
    } catch (e) {
      res.writeHead(502, { "Content-Type": "text/plain" });
      res.end("origin unreachable: " + e.message);
      return;
    }
    const out = {};
    upstream.headers.forEach((v, k) => { if (k !== "content-length" && k !== "transfer-encoding") out[k] = v; });
    res.writeHead(upstream.status, out);
    if (upstream.body) {
      for await (const c of upstream.body) res.write(c);
    }
    res.end();
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok({ url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() })));
}
