// npm test: start a real `ai-memory serve` on a free port and a temporary data directory,
// with an admin key (AIMEM_ADMIN_KEY, valid from the first request) and a reader key,
// private webhook destinations allowed (a receiver on loopback),
// run every test file against it with node's test runner, then stop it.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { aiMemory, PACKAGE_DIR } from "./paths.ts";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

const cli = aiMemory();
const work = mkdtempSync(join(tmpdir(), "aimem-sdk-ts-"));
const data = join(work, "data");
const run = (...args: string[]): string =>
  execFileSync(cli, args, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();

const adminKey = run("keys", "generate");
const readerKey = run("keys", "create", "--data-dir", data, "--tenant", "default", "--role", "reader", "--scopes", "user:*", "--name", "sdk-ts-reader");
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const logPath = join(work, "server.log");
// A log file, not a pipe: nobody reads a pipe while tests run, and a full one blocks the server.
const log = openSync(logPath, "w");
const server = spawn(cli, ["serve"], {
  env: {
    ...process.env,
    AIMEM_PORT: String(port),
    AIMEM_HOST: "127.0.0.1",
    AIMEM_DATA_DIR: data,
    AIMEM_ADMIN_KEY: adminKey,
    // The webhook tests' receiver listens on loopback, which the address policy refuses
    // by default (no server-side request forgery): this server allows it.
    AIMEM_WEBHOOK_ALLOW_PRIVATE: "true",
  },
  stdio: ["ignore", log, log],
});
const exited = new Promise<number | null>((done) => server.once("exit", (code) => done(code)));

async function stop(): Promise<void> {
  if (server.exitCode === null && server.signalCode === null) {
    server.kill("SIGTERM");
    const timer = setTimeout(() => server.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
  }
}

async function waitHealthy(): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) break;
    try {
      if ((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) })).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`ai-memory serve did not become healthy:\n${readFileSync(logPath, "utf8")}`);
}

let status = 1;
try {
  await waitHealthy();
  const files = readdirSync(join(PACKAGE_DIR, "test"))
    .filter((name) => name.endsWith(".test.ts"))
    .sort()
    .map((name) => join("test", name));
  const tests = spawn(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=1", ...files], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, AIMEM_TEST_URL: url, AIMEM_TEST_ADMIN_KEY: adminKey, AIMEM_TEST_READER_KEY: readerKey },
    stdio: "inherit",
  });
  status = await new Promise<number>((done) => tests.once("exit", (code) => done(code ?? 1)));
} finally {
  await stop();
  const serverLog = readFileSync(logPath, "utf8");
  if (status !== 0 || serverLog.includes("Traceback")) console.error(`--- server log (${logPath})\n${serverLog}`);
  if (serverLog.includes("Traceback")) status = status || 1;
  if (status === 0) rmSync(work, { recursive: true, force: true });
}
process.exit(status);
