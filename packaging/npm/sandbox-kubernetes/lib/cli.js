'use strict';
// One run of sandbox-local or sandbox-kubernetes: arguments, the
// connection's flags and variables, stdin, and an AbortSignal that sends the
// CLI SIGTERM (it then stops what it runs inside the sandbox and exits 143).
const {spawn} = require('node:child_process');
const {programPath} = require('./binaries.js');
const {errorFor} = require('./errors.js');

const PROGRAMS = {kubernetes: 'sandbox-kubernetes', local: 'sandbox-local'};

// What every call of one backend shares: which program, and for Kubernetes
// the namespace, context and kubeconfig as the CLI's own flags.
function connectionOf(options = {}) {
  const backend = options.backend || 'kubernetes';
  const program = PROGRAMS[backend];
  if (!program) throw new TypeError(`backend must be 'kubernetes' or 'local'; got ${JSON.stringify(backend)}`);
  const flags = [];
  if (backend === 'kubernetes') {
    if (options.namespace) flags.push('--namespace', options.namespace);
    if (options.context) flags.push('--context', options.context);
    if (options.kubeconfig) flags.push('--kubeconfig', options.kubeconfig);
  } else if (options.namespace || options.context || options.kubeconfig) {
    throw new TypeError('namespace, context and kubeconfig are for the kubernetes backend');
  }
  return {backend, program, flags, env: options.env};
}

function environment(connection) {
  return connection.env ? {...process.env, ...connection.env} : process.env;
}

// Starts the CLI; the caller owns the ChildProcess.
function start(connection, args, {stdio = ['pipe', 'pipe', 'pipe']} = {}) {
  return spawn(programPath(connection.program), [...connection.flags, ...args], {
    stdio,
    env: environment(connection),
  });
}

function abortReason(signal) {
  const error = new Error('The operation was aborted');
  error.name = 'AbortError';
  error.cause = signal.reason;
  return error;
}

// Runs the CLI to its end: {code, stdout, stderr} as Buffers. `stdin` is
// written whole (a Buffer or string; none: stdin closed at once).
// `onStderrLine` gets each line of stderr as it comes.
function run(connection, args, {stdin, signal, onStderrLine} = {}) {
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) return reject(abortReason(signal));
    let child;
    try {
      child = start(connection, args);
    } catch (error) {
      return reject(error);
    }
    const out = [];
    const err = [];
    let pending = '';
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => {
      err.push(chunk);
      if (!onStderrLine) return;
      pending += chunk.toString('utf8');
      let newline;
      while ((newline = pending.indexOf('\n')) >= 0) {
        onStderrLine(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
      }
    });
    // A command that does not read its stdin closes the pipe: not an error.
    child.stdin.on('error', () => {});
    if (stdin !== undefined && stdin !== null) child.stdin.end(stdin);
    else child.stdin.end();
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      child.kill('SIGTERM');
    };
    if (signal) signal.addEventListener('abort', onAbort, {once: true});
    child.on('error', (error) => {
      if (signal) signal.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code, killedBy) => {
      if (signal) signal.removeEventListener('abort', onAbort);
      if (onStderrLine && pending) onStderrLine(pending);
      if (aborted) return reject(abortReason(signal));
      resolve({
        code: code === null ? 128 + (killedBy === 'SIGKILL' ? 9 : 15) : code,
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err),
      });
    });
  });
}

// run() that throws the CLI's error class on a non-zero exit.
async function runChecked(connection, args, options) {
  const result = await run(connection, args, options);
  if (result.code !== 0) throw errorFor(connection.program, result.code, result.stderr.toString('utf8'));
  return result;
}

module.exports = {connectionOf, start, run, runChecked, abortReason};
