// The TypeScript types of the API, from the committed OpenAPI document docs/openapi.json,
// which a Python test holds to what the server builds (make docs): so the types cannot
// drift from the routes either.
import { readFileSync } from "node:fs";
import openapiTS, { astToString } from "openapi-typescript";
import { OPENAPI_FILE } from "./paths.ts";

const BANNER = `/**
 * Generated from the ai-memory OpenAPI document by openapi-typescript. Do not edit:
 * regenerate with \`make sdk-ts-generate\` (services/sdk-ts: \`npm run generate\`).
 */

`;

export function openapiDocument(): string {
  return readFileSync(OPENAPI_FILE, "utf8");
}

export async function generatedSchema(document: string = openapiDocument()): Promise<string> {
  // emptyObjectsUnknown: a `meta` object of any members is `Record<string, unknown>`, not `never`.
  const ast = await openapiTS(document, { emptyObjectsUnknown: true });
  return BANNER + astToString(ast);
}
