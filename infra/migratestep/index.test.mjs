// The migrate step's handler against a local stand-in of CloudFormation's
// response URL, with migrate's invocation recorded.
// Usage: node --test infra/migratestep/index.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { handle, putResponse as respond } from "./index.mjs";

const arn = (fn, n) => `arn:aws:lambda:eu-west-1:123456789012:function:${fn}:${n}`;

// cloudFormation is the response URL: it records each answer's body and
// content type.
async function cloudFormation(t) {
  const answers = [];
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    answers.push({ method: req.method, contentType: req.headers["content-type"], body: JSON.parse(Buffer.concat(chunks).toString()) });
    res.end();
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  t.after(() => server.close());
  return { url: `http://127.0.0.1:${server.address().port}/signed?X-Amz-Signature=x`, answers };
}

function event(url, type, handler, oldHandler) {
  const e = {
    RequestType: type, ResponseURL: url, StackId: "stack", RequestId: "req-1", LogicalResourceId: "MigrateStep",
    ResourceType: "Custom::MigrateStep", ResourceProperties: { ServiceToken: "x", HandlerArn: handler },
  };
  if (type !== "Create") e.PhysicalResourceId = "MigrateStep";
  if (oldHandler) e.OldResourceProperties = { ServiceToken: "x", HandlerArn: oldHandler };
  return e;
}

async function run(t, e, invokeResult = { payload: "{}" }) {
  const cf = await cloudFormation(t);
  const invoked = [];
  const invoke = async (a) => {
    invoked.push(a);
    if (invokeResult instanceof Error) throw invokeResult;
    return invokeResult;
  };
  const status = await handle(e(cf.url), { invoke, respond, log: () => {} });
  assert.equal(cf.answers.length, 1, "exactly one answer to CloudFormation");
  return { status, invoked, answer: cf.answers[0] };
}

test("Create runs migrate and answers SUCCESS", async (t) => {
  const { invoked, answer } = await run(t, (u) => event(u, "Create", arn("migrate", 3)));
  assert.deepEqual(invoked, [arn("migrate", 3)]);
  assert.equal(answer.method, "PUT");
  assert.equal(answer.contentType, undefined, "the pre-signed URL is signed without a content type");
  assert.equal(answer.body.Status, "SUCCESS");
  assert.equal(answer.body.PhysicalResourceId, "MigrateStep");
  assert.equal(answer.body.RequestId, "req-1");
});

test("a migrate error fails the request with its message", async (t) => {
  const { answer } = await run(t, (u) => event(u, "Create", arn("migrate", 3)), { error: "Unhandled", payload: '{"errorMessage":"goose: no database"}' });
  assert.equal(answer.body.Status, "FAILED");
  assert.match(answer.body.Reason, /goose: no database/);
});

test("an invoke that throws fails the request instead of leaving CloudFormation waiting", async (t) => {
  const { answer } = await run(t, (u) => event(u, "Create", arn("migrate", 3)), new Error("AccessDenied"));
  assert.equal(answer.body.Status, "FAILED");
  assert.match(answer.body.Reason, /AccessDenied/);
});

test("a forward Update (a newer version) runs migrate", async (t) => {
  const { invoked, answer } = await run(t, (u) => event(u, "Update", arn("migrate", 8), arn("migrate", 7)));
  assert.deepEqual(invoked, [arn("migrate", 8)]);
  assert.equal(answer.body.Status, "SUCCESS");
});

test("a rollback's Update (an older version) answers SUCCESS without running migrate", async (t) => {
  const { invoked, answer } = await run(t, (u) => event(u, "Update", arn("migrate", 7), arn("migrate", 8)),
    { error: "Unhandled", payload: "would fail: an old migrate against a newer schema" });
  assert.deepEqual(invoked, []);
  assert.equal(answer.body.Status, "SUCCESS");
  assert.match(answer.body.Reason, /rollback/);
});

test("Delete runs nothing", async (t) => {
  const { invoked, answer } = await run(t, (u) => event(u, "Delete", arn("migrate", 8)));
  assert.deepEqual(invoked, []);
  assert.equal(answer.body.Status, "SUCCESS");
});

test("versions of another function cannot be ordered: the Update runs", async (t) => {
  const { invoked } = await run(t, (u) => event(u, "Update", arn("migrate-new", 1), arn("migrate", 8)));
  assert.deepEqual(invoked, [arn("migrate-new", 1)]);
});
