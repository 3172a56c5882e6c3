// The committed types are what the server's current OpenAPI document generates.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { REGENERATE, SCHEMA_FILE } from "../scripts/paths.ts";
import { generatedSchema } from "../scripts/schema.ts";

test("src/generated/schema.ts matches the OpenAPI document", async () => {
  const fresh = await generatedSchema();
  const committed = readFileSync(SCHEMA_FILE, "utf8");
  assert.ok(fresh.includes('"/v1/memories/search"'), "the document was really read");
  if (fresh !== committed) {
    assert.fail(`src/generated/schema.ts is out of date with the server's OpenAPI document; regenerate it: ${REGENERATE}`);
  }
});
