// The server `npm test` started (scripts/run-tests.ts) and clients of it.
import { randomUUID } from "node:crypto";
import { MemoryClient, type MemoryClientOptions } from "../src/index.ts";

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests with npm test, which starts the server`);
  return value;
}

export const url = (): string => env("AIMEM_TEST_URL");
export const adminKey = (): string => env("AIMEM_TEST_ADMIN_KEY");
export const readerKey = (): string => env("AIMEM_TEST_READER_KEY");

export function admin(options: MemoryClientOptions = {}): MemoryClient {
  return new MemoryClient({ baseUrl: url(), apiKey: adminKey(), ...options });
}

/** A scope of its own for each test, so tests do not see each other's memories. */
export function freshScope(kind = "user"): string {
  return `${kind}:ts-${randomUUID().slice(0, 8)}`;
}
