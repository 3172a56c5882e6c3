import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalJson, parseSigned, SignedJsonError } from "../src/index.ts";
import { pythonFloatRepr } from "../src/signed-json.ts";

test("floats are written as Python's json.dumps writes them", () => {
  // Each right-hand side is Python's repr of the float.
  const cases: [number, string][] = [
    [1, "1.0"],
    [-0, "-0.0"],
    [0.1, "0.1"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [1.5e-7, "1.5e-07"],
    [123456789.25, "123456789.25"],
    [1e15, "1000000000000000.0"],
    [1e16, "1e+16"],
    [1.2345e22, "1.2345e+22"],
    [5e-324, "5e-324"],
    [1.7976931348623157e308, "1.7976931348623157e+308"],
  ];
  for (const [value, python] of cases) assert.equal(pythonFloatRepr(value), python, String(value));
});

test("canonical JSON: keys by code point, no whitespace, Python's escapes", () => {
  const text = '{"b":1,"a":[true,null,"\\u00e9\\n\\u0001"],"\\ud83d\\ude00":2,"\\uffff":3,"é":0.5}';
  assert.equal(canonicalJson(parseSigned(text)), '{"a":[true,null,"é\\n\\u0001"],"b":1,"é":0.5,"\uffff":3,"😀":2}');
});

test("strict parsing refuses what a lenient parser would read otherwise", () => {
  const bad: [string, RegExp][] = [
    ['{"a":1,"a":2}', /duplicate key "a"/],
    ['{"a":1} x', /trailing data/],
    ['{"a":1}{"a":1}', /trailing data/],
    ['{"a":NaN}', /unexpected character/],
    ['{"a":Infinity}', /unexpected character/],
    ['{"a":1.50}', /non-canonical number 1.50/],
    ['{"a":1e2}', /non-canonical number/],
    ['{"a":-0}', /non-canonical number -0/],
    ['{"a":01}', /expected , or }/],
    ['{"a":"tab\there"}', /control character/],
    ['{"a":1,}', /expected "/],
    ['\ufeff{"a":1}', /unexpected character/],
  ];
  for (const [text, why] of bad) {
    assert.throws(() => parseSigned(text), (e: unknown) => e instanceof SignedJsonError && why.test(e.message), text);
  }
  // 1.0 is canonical (Python writes a float so) and stays a float: not the integer 1.
  assert.equal(canonicalJson(parseSigned('{"a":1.0}')), '{"a":1.0}');
  // Big integers keep their digits.
  assert.equal(canonicalJson(parseSigned('{"n":123456789012345678901234567890}')), '{"n":123456789012345678901234567890}');
});
