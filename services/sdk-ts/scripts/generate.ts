// npm run generate: rewrite src/generated/schema.ts from the current OpenAPI document.
import { writeFileSync } from "node:fs";
import { SCHEMA_FILE } from "./paths.ts";
import { generatedSchema } from "./schema.ts";

writeFileSync(SCHEMA_FILE, await generatedSchema());
console.log(`wrote ${SCHEMA_FILE}`);
