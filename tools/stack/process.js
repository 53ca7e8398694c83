'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');

/** Runs a command to completion, streaming its output; throws with the command line when it fails. */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    const { fail } = require('./log');
    fail(`\`${[command, ...args].join(' ')}\` exited with status ${result.status}`);
  }
}

function commandExists(command) {
  const result = spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
  return result.status === 0;
}

function isAlive(pid) {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readPid(file) {
  try {
    return Number(fs.readFileSync(file, 'utf8').trim()) || undefined;
  } catch {
    return undefined;
  }
}

/** Resolves true when something accepts TCP connections on host:port within timeoutMs. */
function portOpen(host, port, timeoutMs = 500) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (open) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Polls check() until it returns a truthy value or the deadline passes. */
async function waitFor(description, check, { timeoutMs = 60_000, intervalMs = 250 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  const { fail } = require('./log');
  fail(`timed out after ${timeoutMs / 1000}s waiting for ${description}${lastError ? `: ${lastError.message}` : ''}`);
}

/** Stops a child (or a pid) with SIGTERM, then SIGKILL after graceMs. */
async function stopProcess(childOrPid, graceMs = 10_000) {
  const pid = typeof childOrPid === 'number' ? childOrPid : childOrPid.pid;
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && isAlive(pid)) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/** Spawns a long-running child whose output lines are prefixed with its name. */
function spawnPrefixed(name, command, args, { env, logFile, quiet = false } = {}) {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const sink = logFile ? fs.createWriteStream(logFile, { flags: 'a' }) : undefined;
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream.on('data', (chunk) => {
      sink?.write(chunk);
      if (quiet) return;
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop();
      for (const line of lines) process.stdout.write(`[${name}] ${line}\n`);
    });
  }
  child.on('exit', () => sink?.end());
  return child;
}

module.exports = { run, commandExists, isAlive, readPid, portOpen, waitFor, stopProcess, spawnPrefixed };
