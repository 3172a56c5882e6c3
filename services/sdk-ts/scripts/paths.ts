// Where the package finds the server it is generated from and tested against: the
// repository's virtualenv (`make install` makes it), or AIMEM_VENV when it lives elsewhere.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const REPO_DIR = resolve(PACKAGE_DIR, "../..");
export const SCHEMA_FILE = join(PACKAGE_DIR, "src", "generated", "schema.ts");
export const OPENAPI_FILE = join(REPO_DIR, "docs", "openapi.json");
export const REGENERATE = "make docs sdk-ts-generate (or: cd services/sdk-ts && npm run generate)";

const VENV = resolve(PACKAGE_DIR, process.env.AIMEM_VENV ?? join(REPO_DIR, ".venv"));

function venvBinary(name: string): string {
  const path = join(VENV, "bin", name);
  if (!existsSync(path)) {
    throw new Error(`${path} not found: run make install, or set AIMEM_VENV to a virtualenv with ai-memory`);
  }
  return path;
}

export const python = (): string => venvBinary("python");
export const aiMemory = (): string => venvBinary("ai-memory");
