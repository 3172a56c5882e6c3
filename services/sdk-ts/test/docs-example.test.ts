// The example of docs/SDK.md ("TypeScript SDK"), run as written against the test server:
// the package name points at this source, the URL and the key at the server npm test started.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { PACKAGE_DIR, REPO_DIR } from "../scripts/paths.ts";
import { adminKey, url } from "./server.ts";

test("the TypeScript example of docs/SDK.md works", async () => {
  const doc = readFileSync(join(REPO_DIR, "docs", "SDK.md"), "utf8");
  const section = doc.slice(doc.indexOf("## TypeScript SDK"));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, "docs/SDK.md has a ts block in its TypeScript section");
  const source = block
    .replace('"@ai-memory/sdk"', JSON.stringify(pathToFileURL(join(PACKAGE_DIR, "src", "index.ts")).href))
    .replace('"http://127.0.0.1:8080"', JSON.stringify(url()));
  const dir = mkdtempSync(join(PACKAGE_DIR, "test", ".docs-example-"));
  const file = join(dir, "example.ts");
  writeFileSync(file, source);
  const printed: unknown[][] = [];
  const log = console.log;
  const key = process.env.AIMEM_API_KEY;
  process.env.AIMEM_API_KEY = adminKey();
  console.log = (...args: unknown[]) => void printed.push(args);
  try {
    await import(pathToFileURL(file).href);
  } finally {
    console.log = log;
    if (key === undefined) delete process.env.AIMEM_API_KEY;
    else process.env.AIMEM_API_KEY = key;
    rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(printed[0]?.[0], "Alice edits code in Neovim.");
  assert.ok(printed.some((args) => args[0] === "written"), "the change feed showed the write");
  assert.deepEqual(printed.find((args) => args[0] === 410), [410, "memory_forgotten"]);
  assert.deepEqual(printed.at(-1), [true], "the receipt verified");
});
