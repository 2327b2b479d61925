// Test support: run a real tablehub hub on a free port (node tests and browser tests),
// on its memory store or on a throwaway redis-server (`startRedis()`).
//
// The hub binary is $TABLEHUB_BIN, else <repo>/.venv/bin/tablehub.  `startHub()` waits
// for /healthz to answer before resolving; `stop()` ends the process it started.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const JS_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = join(JS_ROOT, '..', '..');
export const PROTOCOL_DIR = join(REPO_ROOT, 'protocol', 'v1');

/** `read` for loadProtocol(): the protocol files straight from the repo. */
export const readProtocolFile = async (name) => new Uint8Array(readFileSync(join(PROTOCOL_DIR, name)));

export function tablehubBin() {
  const bin = process.env.TABLEHUB_BIN ?? join(REPO_ROOT, '.venv', 'bin', 'tablehub');
  if (!existsSync(bin)) throw new Error(`tablehub not found at ${bin} (set TABLEHUB_BIN)`);
  return bin;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Poll `probe` (async, truthy = ready) until it succeeds or `timeoutMs` passes. */
export async function until(probe, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await probe()) return;
    } catch {
      // not ready yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Start a hub (on `port`, else a free one; on `store`, e.g. a startRedis() url, else its
 * memory store); resolves with {port, http, ws, stop, output()}.
 */
export async function startHub({ timeoutMs = 20000, port: wanted, store } = {}) {
  const port = wanted ?? (await freePort());
  const args = ['serve', '--port', String(port), '--log-level', 'warning', ...(store ? ['--store', store] : [])];
  const proc = spawn(tablehubBin(), args, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout.on('data', (d) => (output += d));
  proc.stderr.on('data', (d) => (output += d));
  if (process.env.HUB_LOG) proc.stderr.on('data', (d) => process.stderr.write(d)); // debugging aid
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  const http = `http://127.0.0.1:${port}`;
  let dead = false;
  exited.then(() => (dead = true));
  await until(
    async () => {
      if (dead) throw Object.assign(new Error(`hub exited:\n${output}`), { fatal: true });
      return (await fetch(`${http}/healthz`)).ok;
    },
    timeoutMs,
    `the hub on port ${port} (/healthz)`,
  ).catch((err) => {
    proc.kill('SIGKILL');
    throw new Error(`${err.message}\n${output}`);
  });
  return {
    port,
    http,
    ws: `ws://127.0.0.1:${port}/ws`,
    output: () => output,
    stop: () => stopProcess(proc, exited),
  };
}

async function stopProcess(proc, exited) {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** A throwaway redis-server (no persistence) on a free port: {url, stop}. $REDIS_SERVER, else redis-server on PATH. */
export async function startRedis({ timeoutMs = 10000 } = {}) {
  const port = await freePort();
  const proc = spawn(process.env.REDIS_SERVER ?? 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  proc.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  await until(
    () =>
      new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.end();
          resolve(true);
        });
        socket.on('error', reject);
      }),
    timeoutMs,
    `redis-server on port ${port}`,
  ).catch((err) => {
    proc.kill('SIGKILL');
    throw new Error(`${err.message}\n${output}`);
  });
  return { url: `redis://127.0.0.1:${port}/0`, stop: () => stopProcess(proc, exited) };
}
