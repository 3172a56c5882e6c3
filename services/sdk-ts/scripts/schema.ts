// The TypeScript types of the API, from the OpenAPI document the server itself builds
// (ai_memory.entrypoints.cli.openapi_dump), so they cannot drift from the routes.
import { execFileSync } from "node:child_process";
import openapiTS, { astToString } from "openapi-typescript";
import { python } from "./paths.ts";

const BANNER = `/**
 * Generated from the ai-memory OpenAPI document by openapi-typescript. Do not edit:
 * regenerate with \`make sdk-ts-generate\` (services/sdk-ts: \`npm run generate\`).
 */

`;

export function openapiDocument(): string {
  return execFileSync(python(), ["-m", "ai_memory.entrypoints.cli.openapi_dump"], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "inherit"],
  });
}

export async function generatedSchema(document: string = openapiDocument()): Promise<string> {
  // emptyObjectsUnknown: a `meta` object of any members is `Record<string, unknown>`, not `never`.
  const ast = await openapiTS(document, { emptyObjectsUnknown: true });
  return BANNER + astToString(ast);
}
