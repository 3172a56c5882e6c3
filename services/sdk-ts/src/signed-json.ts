// The JSON of a signed document, read and written exactly as the server's
// `ai_memory.core.receipt_format` does, so a receipt verifies here iff it verifies there.
//
// Reading is strict, because what a lenient parser does differs between parsers: with a
// key twice (`"tenant":"evil","tenant":"t4"`) JSON.parse keeps the last value while an
// auditor's tool may keep the first, so one signed text would say two things. Refused: a
// duplicated key, trailing data, NaN/Infinity, a number not written as canonical JSON
// writes it (`1.0e0`, `01`, `-0`), a control character inside a string. Numbers are kept
// as their text, because the signature covers Python's spelling of them, which a JS
// number cannot always reproduce (1.0 vs 1, 1e-05 vs 0.00001, integers beyond 2^53).
//
// Writing is the canonical form the signature covers: keys sorted by code point, no
// whitespace, UTF-8, strings escaped as Python's json.dumps(ensure_ascii=False) does.

/** A number as it was written in the signed text (canonical: see `parseSigned`). */
export class JsonNumber {
  constructor(readonly text: string) {}
  valueOf(): number {
    return Number(this.text);
  }
  toJSON(): number {
    return Number(this.text);
  }
}

export type SignedValue =
  | null
  | boolean
  | string
  | JsonNumber
  | SignedValue[]
  | { [key: string]: SignedValue };

export class SignedJsonError extends Error {
  override name = "SignedJsonError";
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;

/** Parse a signed document's JSON text strictly (`SignedJsonError` says why not). */
export function parseSigned(text: string): SignedValue {
  let at = 0;
  const fail = (why: string): never => {
    throw new SignedJsonError(`${why} at offset ${at}`);
  };
  const skip = (): void => {
    while (at < text.length && WHITESPACE.has(text[at] as string)) at++;
  };
  const expect = (word: string): void => {
    if (text.startsWith(word, at)) at += word.length;
    else fail(`expected ${word}`);
  };

  const string = (): string => {
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

  const number = (): JsonNumber => {
    NUMBER.lastIndex = at;
    const match = NUMBER.exec(text);
    if (match === null) return fail("unexpected character");
    const raw = match[0];
    const isFloat = match[1] !== undefined || match[2] !== undefined;
    const canonical = isFloat ? pythonFloatRepr(Number(raw)) : pythonInt(raw);
    if (canonical !== raw) fail(`non-canonical number ${raw}`);
    at += raw.length;
    return new JsonNumber(raw);
  };

  const value = (depth: number): SignedValue => {
    if (depth > 512) fail("nested too deeply");
    skip();
    const c = text[at];
    if (c === "{") {
      at++;
      const out: { [key: string]: SignedValue } = Object.create(null) as { [key: string]: SignedValue };
      const seen = new Set<string>();
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
      const out: SignedValue[] = [];
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

/** Python's `str(int(text))`: refuses `-0` and leading zeros as the server's parser does. */
function pythonInt(text: string): string {
  const value = BigInt(text);
  return value.toString();
}

/** Python's `repr(float)` (what json.dumps writes): the shortest round-trip digits, in
 * exponent form below 1e-4 or from 1e16 on, `.0` on integral values. */
export function pythonFloatRepr(value: number): string {
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

/** Code point order, as Python sorts str keys (UTF-16 order differs above U+FFFF). */
function byCodePoint(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i] as string).codePointAt(0)! - (y[i] as string).codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

function canonicalString(value: string): string {
  if (!value.isWellFormed()) throw new SignedJsonError("a lone surrogate cannot be encoded as UTF-8");
  // JSON.stringify escapes exactly what json.dumps(ensure_ascii=False) escapes: the
  // quote, the backslash and U+0000–U+001F (\b \f \n \r \t by name, others as \u00xx).
  return JSON.stringify(value);
}

type Canonicalisable = SignedValue | number | undefined | { [key: string]: Canonicalisable } | Canonicalisable[];

/** The canonical JSON text of a value: a parsed signed document (numbers as written) or
 * plain JS values (an integral number is written as an integer, as the server writes
 * every number of a receipt). */
export function canonicalJson(value: Canonicalisable): string {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "string") return canonicalString(value);
  if (value instanceof JsonNumber) return value.text;
  if (typeof value === "number") {
    if (Number.isSafeInteger(value)) return String(value);
    return pythonFloatRepr(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object") {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort(byCodePoint);
    return `{${keys.map((k) => `${canonicalString(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  throw new SignedJsonError(`${typeof value} is not JSON`);
}
