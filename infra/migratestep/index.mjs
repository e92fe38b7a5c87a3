// The migrate step's custom resource handler (Custom::MigrateStep).
// CloudFormation sends Create, Update and Delete; the handler invokes the
// migrate function's version named by HandlerArn synchronously (an error
// fails the deploy) and answers CloudFormation at the request's
// ResponseURL itself.
//
// It runs forward only. Lambda numbers a function's versions upward, so an
// Update whose version is older than the one it replaces is a rollback:
// CloudFormation restoring the previous properties. That Update is
// answered SUCCESS without running migrate, so a rollback never re-runs
// the step (an older migrate against a newer schema, or the step that just
// failed). Delete runs nothing.

// versionOf splits a version ARN (arn:...:function:NAME:7) into the
// function and its number; null for anything else ($LATEST, an alias).
export function versionOf(arn) {
  const m = /^(arn:[^:]+:lambda:[^:]+:[^:]+:function:[^:]+):(\d+)$/.exec(arn || "");
  return m ? { fn: m[1], n: Number(m[2]) } : null;
}

// decide says what a request calls for: "run", or why not.
export function decide(event) {
  if (event.RequestType === "Delete") return "delete: nothing to undo";
  if (event.RequestType !== "Update") return "run";
  const now = versionOf(event.ResourceProperties?.HandlerArn);
  const before = versionOf(event.OldResourceProperties?.HandlerArn);
  if (!now || !before || now.fn !== before.fn) return "run";
  if (now.n < before.n) return `rollback: version ${now.n} replaces ${before.n}, not run again`;
  if (now.n === before.n) return "same version: already run";
  return "run";
}

// handle answers one request; invoke(arn) returns {error, payload} and
// respond(url, body) sends the answer.
export async function handle(event, { invoke, respond, log = console.log }) {
  let status = "SUCCESS";
  let reason = "";
  try {
    reason = decide(event);
    if (reason === "run") {
      const out = await invoke(event.ResourceProperties.HandlerArn);
      if (out.error) {
        status = "FAILED";
        reason = `migrate failed (${out.error}): ${out.payload}`;
      } else {
        reason = "migrate ran";
      }
    }
  } catch (e) {
    status = "FAILED";
    reason = "migrate could not be invoked: " + (e && e.message ? e.message : String(e));
  }
  log(JSON.stringify({ requestType: event.RequestType, logicalResourceId: event.LogicalResourceId, status, reason: reason.slice(0, 300) }));
  await respond(event.ResponseURL, {
    Status: status,
    Reason: reason.slice(0, 1000),
    PhysicalResourceId: event.PhysicalResourceId || event.LogicalResourceId,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
  });
  return status;
}

async function lambdaInvoke(arn) {
  const { LambdaClient, InvokeCommand } = await import("@aws-sdk/client-lambda");
  const out = await new LambdaClient({}).send(new InvokeCommand({
    FunctionName: arn, InvocationType: "RequestResponse", Payload: Buffer.from("{}"),
  }));
  return { error: out.FunctionError, payload: Buffer.from(out.Payload ?? []).toString() };
}

// putResponse sends the answer to the pre-signed URL: a byte body, so no
// Content-Type is added (the URL was signed without one).
export async function putResponse(url, body) {
  const resp = await fetch(url, { method: "PUT", body: Buffer.from(JSON.stringify(body)) });
  if (!resp.ok) throw new Error(`CloudFormation response: HTTP ${resp.status}`);
}

export const handler = (event) => handle(event, { invoke: lambdaInvoke, respond: putResponse });
