// The JSON of a signed document, read and written exactly as the server's
// `ai_memory.core.receipt_format` does (and the SDKs' verifiers: `ai_memory.sdk.receipts`,
// services/sdk-ts/src/signed-json.ts), so a receipt verifies here iff it verifies there.
//
// Reading is strict: a duplicated key, trailing data, NaN/Infinity, a number not written
// as canonical JSON writes it, or a control character inside a string is refused, because
// lenient parsers disagree on such text and one signed text must not say two things.
// Numbers are kept as their text: the signature covers Python's spelling of them.
// Writing is the canonical form the signature covers: keys sorted by code point, no
// whitespace, strings escaped as Python's json.dumps(ensure_ascii=False) does.

/** A number as it was written in the signed text. */
export class JsonNumber {
  /** @param {string} text */
  constructor(text) {
    this.text = text;
  }
  toJSON() {
    return Number(this.text);
  }
}

export class SignedJsonError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "SignedJsonError";
  }
}

// (JSDoc cannot name a recursive type: the members of arrays and objects are SignedValue too.)
/** @typedef {null | boolean | string | JsonNumber | any[] | {[key: string]: any}} SignedValue */

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
/** @type {Record<string, string>} */
const ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;

/**
 * Parse a signed document's JSON text strictly.
 * @param {string} text
 * @returns {SignedValue}
 */
export function parseSigned(text) {
  let at = 0;
  /** @param {string} why @returns {never} */
  const fail = (why) => {
    throw new SignedJsonError(`${why} at offset ${at}`);
  };
  const skip = () => {
    while (at < text.length && WHITESPACE.has(text[at])) at++;
  };
  /** @param {string} word */
  const expect = (word) => {
    if (text.startsWith(word, at)) at += word.length;
    else fail(`expected ${word}`);
  };
  /** @returns {string} */
  const string = () => {
    expect('"');
    let out = "";
    for (;;) {
      const c = text[at];
      if (c === undefined) return fail("unterminated string");
      at++;
      if (c === '"') return out;
      if (c < " ") fail("control character in a string");
      if (c !== "\\") {
        out += c;
        continue;
      }
      const e = text[at++];
      if (e === "u") {
        const hex = text.slice(at, at + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("bad \\u escape");
        out += String.fromCharCode(parseInt(hex, 16));
        at += 4;
      } else if (e !== undefined && e in ESCAPES) {
        out += ESCAPES[e];
      } else {
        fail("bad escape");
      }
    }
  };
  /** @returns {JsonNumber} */
  const number = () => {
    NUMBER.lastIndex = at;
    const match = NUMBER.exec(text);
    if (match === null) return fail("unexpected character");
    const raw = match[0];
    const isFloat = match[1] !== undefined || match[2] !== undefined;
    const canonical = isFloat ? pythonFloatRepr(Number(raw)) : BigInt(raw).toString();
    if (canonical !== raw) fail(`non-canonical number ${raw}`);
    at += raw.length;
    return new JsonNumber(raw);
  };
  /** @param {number} depth @returns {SignedValue} */
  const value = (depth) => {
    if (depth > 512) fail("nested too deeply");
    skip();
    const c = text[at];
    if (c === "{") {
      at++;
      /** @type {{[key: string]: SignedValue}} */
      const out = Object.create(null);
      const seen = new Set();
      skip();
      if (text[at] === "}") {
        at++;
        return out;
      }
      for (;;) {
        skip();
        const key = string();
        if (seen.has(key)) fail(`duplicate key ${JSON.stringify(key)}`);
        seen.add(key);
        skip();
        expect(":");
        out[key] = value(depth + 1);
        skip();
        if (text[at] === ",") at++;
        else if (text[at] === "}") {
          at++;
          return out;
        } else fail("expected , or }");
      }
    }
    if (c === "[") {
      at++;
      /** @type {SignedValue[]} */
      const out = [];
      skip();
      if (text[at] === "]") {
        at++;
        return out;
      }
      for (;;) {
        out.push(value(depth + 1));
        skip();
        if (text[at] === ",") at++;
        else if (text[at] === "]") {
          at++;
          return out;
        } else fail("expected , or ]");
      }
    }
    if (c === '"') return string();
    if (text.startsWith("true", at)) return (at += 4), true;
    if (text.startsWith("false", at)) return (at += 5), false;
    if (text.startsWith("null", at)) return (at += 4), null;
    return number();
  };
  const out = value(0);
  skip();
  if (at !== text.length) fail("trailing data");
  return out;
}

/**
 * Python's repr(float), which json.dumps writes: the shortest round-trip digits, in
 * exponent form below 1e-4 or from 1e16 on, ".0" on integral values.
 * @param {number} value
 */
export function pythonFloatRepr(value) {
  if (!Number.isFinite(value)) throw new SignedJsonError(`${value} is not JSON`);
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const [mantissa = "", exp = "0"] = value.toExponential().split("e");
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace("-", "").replace(".", "");
  const exponent = Number(exp);
  if (exponent < -4 || exponent >= 16) {
    const frac = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exponent).toString().padStart(2, "0");
    return `${sign}${frac}e${exponent < 0 ? "-" : "+"}${e}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  const frac = digits.slice(exponent + 1);
  return `${sign}${whole}.${frac || "0"}`;
}

/**
 * Code point order, as Python sorts str keys (UTF-16 order differs above U+FFFF).
 * @param {string} a
 * @param {string} b
 */
function byCodePoint(a, b) {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = /** @type {number} */ (x[i].codePointAt(0)) - /** @type {number} */ (y[i].codePointAt(0));
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** @param {string} value */
function canonicalString(value) {
  if (!value.isWellFormed()) throw new SignedJsonError("a lone surrogate cannot be encoded as UTF-8");
  // JSON.stringify escapes exactly what json.dumps(ensure_ascii=False) escapes.
  return JSON.stringify(value);
}

/**
 * The canonical JSON text of a parsed signed document.
 * @param {SignedValue} value
 * @returns {string}
 */
export function canonicalJson(value) {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "string") return canonicalString(value);
  if (value instanceof JsonNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const object = value;
  const keys = Object.keys(object).sort(byCodePoint);
  return `{${keys.map((k) => `${canonicalString(k)}:${canonicalJson(object[k])}`).join(",")}}`;
}
