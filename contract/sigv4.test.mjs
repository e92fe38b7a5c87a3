// sigv4.mjs against AWS's Signature Version 4 test suite (first published
// at https://docs.aws.amazon.com/general/latest/gr/signature-v4-test-suite.html,
// now kept in awslabs/aws-c-auth under tests/aws-signing-test-suite/v4):
// the suite's credentials, date, region and service, each case's request,
// and the signature its header-signed-request.txt gives.
// Usage: node --test contract/sigv4.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { sign, verify } from "./sigv4.mjs";

const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
const now = new Date("2015-08-30T12:36:00Z");
const region = "us-east-1";
const service = "service";

const cases = [
  { name: "get-vanilla", method: "GET", target: "/", headers: {}, signed: "host;x-amz-date",
    signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31" },
  { name: "get-vanilla-query-order-key-case", method: "GET", target: "/?Param2=value2&Param1=value1", headers: {}, signed: "host;x-amz-date",
    signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500" },
  { name: "get-vanilla-query-unreserved", method: "GET",
    target: "/?-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    headers: {}, signed: "host;x-amz-date", signature: "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197" },
  { name: "get-header-value-trim", method: "GET", target: "/", headers: { "my-header1": " value1", "my-header2": ' "a   b   c"' },
    signed: "host;my-header1;my-header2;x-amz-date", signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736" },
  { name: "get-utf8", method: "GET", target: "/ሴ", headers: {}, signed: "host;x-amz-date",
    signature: "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85" },
  { name: "post-vanilla", method: "POST", target: "/", headers: {}, signed: "host;x-amz-date",
    signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b" },
];

for (const c of cases) {
  test("AWS SigV4 test suite: " + c.name, () => {
    const url = new URL(c.target, "https://example.amazonaws.com");
    const got = sign({ method: c.method, url, headers: c.headers, region, service, credentials, now });
    assert.equal(got["x-amz-date"], "20150830T123600Z");
    assert.equal(got.authorization,
      `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=${c.signed}, Signature=${c.signature}`);
    assert.equal(verify({ method: c.method, url, headers: got, region, service, credentials }), "");
    const tampered = { ...got, authorization: got.authorization.replace(/.$/, (d) => (d === "0" ? "1" : "0")) };
    assert.equal(verify({ method: c.method, url, headers: tampered, region, service, credentials }), "signature does not match");
  });
}
