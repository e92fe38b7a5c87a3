// The page the AI SDK tests load: a bundled script behind a small HTML
// shell, served on loopback from another origin than the API.
import http from "node:http";

// servePage serves html at / and script at /page.js on port; the browser's
// favicon request gets an empty 204 so it is no failed request.
export async function servePage(port, html, script) {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    if (path === "/favicon.ico") {
      res.writeHead(204);
      return res.end();
    }
    if (path === "/page.js") {
      res.writeHead(200, { "Content-Type": "text/javascript" });
      return res.end(script);
    }
    res.writeHead(path === "/" ? 200 : 404, { "Content-Type": "text/html" });
    res.end(path === "/" ? html : "");
  });
  await new Promise((ok) => server.listen(port, "127.0.0.1", ok));
  return server;
}
