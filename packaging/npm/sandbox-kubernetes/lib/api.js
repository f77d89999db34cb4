'use strict';
// The Sandbox API: every method is one run of the bundled CLI through its
// machine interface (-o json, --progress json, exec's exit code and byte
// streams), so there is one implementation of every behaviour: the CLI's.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const cli = require('./cli.js');
const {SandboxError, InvalidSpecError, SandboxNotFoundError, errorFor} = require('./errors.js');

const ID = /^[0-9a-f]{12}$/;

function labelArgs(labels, flag) {
  if (!labels) return [];
  const entries = Object.entries(labels);
  if (flag === '--label') return entries.flatMap(([k, v]) => ['--label', `${k}=${v}`]);
  return entries.length ? ['-l', entries.map(([k, v]) => `${k}=${v}`).join(',')] : [];
}

function selectorArgs(labels) {
  if (typeof labels === 'string') return labels ? ['-l', labels] : [];
  return labelArgs(labels, '-l');
}

async function withTempDir(body) {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'osf-sandbox-api-'));
  try {
    return await body(dir);
  } finally {
    await fs.promises.rm(dir, {recursive: true, force: true});
  }
}

// Whole seconds, at least one: the CLI's --timeout takes 90s, 10m, 2h.
function timeoutArg(timeoutMs) {
  if (timeoutMs === undefined) return [];
  if (!(timeoutMs > 0)) throw new TypeError('timeoutMs must be a positive number');
  return ['--timeout', `${Math.max(1, Math.ceil(timeoutMs / 1000))}s`];
}

// exec's env and cwd, by the sandbox's own env(1) and sh(1): the CLI runs
// argv as given in /workspace.
function wrappedArgv(argv, {env, cwd} = {}) {
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === 'string'))
    throw new TypeError('argv must be a non-empty array of strings');
  let command = argv;
  if (env && Object.keys(env).length) {
    for (const name of Object.keys(env))
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new TypeError(`not a variable name: ${name}`);
    command = ['env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...command];
  }
  if (cwd) command = ['sh', '-c', 'cd -- "$0" && exec "$@"', cwd, ...command];
  return command;
}

function decode(buffer, encoding) {
  return encoding && encoding !== 'buffer' ? buffer.toString(encoding) : buffer;
}

function rowToInfo(row) {
  return {
    id: row.id,
    labels: row.labels || {},
    expiresAt: row.expires ? new Date(row.expires) : null,
    status: row.status,
    created: row.created ? new Date(row.created) : null,
    image: row.image,
    policy: row.policy,
  };
}

class Sandbox {
  constructor(info, connection) {
    this.id = info.id;
    this.labels = info.labels || {};
    this.expiresAt = info.expiresAt || null;
    this.status = info.status;
    this.names = info.names || {};
    // From list and get only: when it was made, its template or image, the policy in force.
    this.created = info.created || null;
    this.image = info.image;
    this.policy = info.policy;
    this.backend = connection.backend;
    Object.defineProperty(this, 'connection', {value: connection, enumerable: false});
  }

  // spec: an object (the sandbox spec) or the path of a spec file.
  static async create(spec, options = {}) {
    const connection = cli.connectionOf(options);
    const onProgress = options.onProgress;
    const onStderrLine = onProgress
      ? (line) => {
          let event;
          try {
            event = JSON.parse(line);
          } catch {
            return; // not a progress line: an error line, read at the end
          }
          if (event && event.type === 'progress') onProgress(event);
        }
      : undefined;
    const body = async (specPath) => {
      const args = ['create', '-o', 'json', '--progress', 'json', ...labelArgs(options.labels, '--label'), specPath];
      const result = await cli.runChecked(connection, args, {signal: options.signal, onStderrLine});
      const created = JSON.parse(result.stdout.toString('utf8'));
      return new Sandbox(
        {id: created.id, labels: created.labels, expiresAt: created.expires ? new Date(created.expires) : null, names: created.names, status: 'Ready', created: created.created ? new Date(created.created) : null},
        connection,
      );
    };
    if (typeof spec === 'string') return body(spec);
    if (!spec || typeof spec !== 'object') throw new TypeError('spec must be an object or a file path');
    return withTempDir(async (dir) => {
      const file = path.join(dir, 'spec.json');
      await fs.promises.writeFile(file, JSON.stringify(spec));
      return body(file);
    });
  }

  static async list(options = {}) {
    const connection = cli.connectionOf(options);
    const result = await cli.runChecked(connection, ['list', '-o', 'json', ...selectorArgs(options.labels)]);
    return JSON.parse(result.stdout.toString('utf8')).map((row) => new Sandbox(rowToInfo(row), connection));
  }

  static async get(id, options = {}) {
    if (typeof id !== 'string' || !ID.test(id)) throw new InvalidSpecError(`'${id}' is not a sandbox ID (12 hex digits)`);
    const found = (await Sandbox.list(options)).find((sandbox) => sandbox.id === id);
    if (!found) throw new SandboxNotFoundError(`no sandbox ${id}`);
    return found;
  }

  // What gc removed (or would, with dryRun): [{id, reason}].
  static async gc(options = {}) {
    const connection = cli.connectionOf(options);
    const args = ['gc', '-o', 'json', ...(options.dryRun ? ['--dry-run'] : []), ...selectorArgs(options.labels)];
    if (options.saveLogs) args.push('--save-logs', options.saveLogs);
    const result = await cli.runChecked(connection, args);
    return result.stdout
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const {id, reason} = JSON.parse(line);
        return {id, reason};
      });
  }

  async exec(argv, options = {}) {
    const args = ['exec', ...timeoutArg(options.timeoutMs), this.id, '--', ...wrappedArgv(argv, options)];
    const result = await cli.run(this.connection, args, {stdin: options.stdin, signal: options.signal});
    // Any exit code may be the command's own: only the CLI's own "no sandbox"
    // line (its prefix, then the message) is an error.
    const stderr = result.stderr.toString('utf8');
    if (result.code === 1 && stderr.startsWith(`${this.connection.program}: no sandbox `))
      throw errorFor(this.connection.program, result.code, stderr);
    return {exitCode: result.code, stdout: decode(result.stdout, options.encoding), stderr: decode(result.stderr, options.encoding)};
  }

  // A running command: stdin, stdout and stderr streams, wait() for its exit
  // code, kill() to stop it inside the sandbox.
  spawn(argv, options = {}) {
    const args = ['exec', ...timeoutArg(options.timeoutMs), this.id, '--', ...wrappedArgv(argv, options)];
    const child = cli.start(this.connection, args);
    child.stdin.on('error', () => {});
    const exited = new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => resolve(code === null ? 128 + (signal === 'SIGKILL' ? 9 : 15) : code));
    });
    const onAbort = () => child.kill('SIGTERM');
    if (options.signal) {
      if (options.signal.aborted) onAbort();
      else options.signal.addEventListener('abort', onAbort, {once: true});
      exited.finally(() => options.signal.removeEventListener('abort', onAbort)).catch(() => {});
    }
    return {
      pid: child.pid,
      stdin: child.stdin,
      stdout: child.stdout,
      stderr: child.stderr,
      wait: () => exited,
      // SIGTERM: the CLI stops the command and everything it started inside.
      kill: (signal = 'SIGTERM') => child.kill(signal),
    };
  }

  async writeFile(sandboxPath, data) {
    await withTempDir(async (dir) => {
      const file = path.join(dir, 'data');
      await fs.promises.writeFile(file, data);
      await this.copyIn(file, sandboxPath);
    });
  }

  async readFile(sandboxPath, options = {}) {
    return withTempDir(async (dir) => {
      const file = path.join(dir, 'data');
      await this.copyOut(sandboxPath, file);
      return decode(await fs.promises.readFile(file), options.encoding);
    });
  }

  async copyIn(localPath, sandboxPath) {
    await cli.runChecked(this.connection, ['copy', localPath, `${this.id}:${sandboxPath}`]);
  }

  async copyOut(sandboxPath, localPath) {
    await cli.runChecked(this.connection, ['copy', `${this.id}:${sandboxPath}`, localPath]);
  }

  // The template name a spec can start from.
  async snapshot() {
    const result = await cli.runChecked(this.connection, ['snapshot', '-o', 'json', this.id]);
    return JSON.parse(result.stdout.toString('utf8')).template;
  }

  async extend(duration) {
    await cli.runChecked(this.connection, ['extend', this.id, String(duration)]);
    const fresh = await Sandbox.get(this.id, this.connectionOptions());
    this.expiresAt = fresh.expiresAt;
    return this.expiresAt;
  }

  async suspend() {
    await cli.runChecked(this.connection, ['suspend', this.id]);
  }

  async resume() {
    await cli.runChecked(this.connection, ['resume', this.id]);
  }

  // entries: egress entries ("host", "host:port", "*.domain") and
  // {mcp: "SERVER:TOOL"} objects.
  async allow(entries) {
    await this.changePolicy('allow', entries);
  }

  async revoke(entries) {
    await this.changePolicy('revoke', entries);
  }

  async changePolicy(verb, entries) {
    const list = Array.isArray(entries) ? entries : [entries];
    const hosts = list.filter((e) => typeof e === 'string');
    const tools = list.filter((e) => e && typeof e === 'object').map((e) => e.mcp);
    const args = [verb, this.id, ...hosts];
    if (tools.length) args.push('--mcp', ...tools);
    await cli.runChecked(this.connection, args);
  }

  // The egress log's lines as objects (refused: the entries that would have
  // let each refusal through, as strings); follow: until the sandbox stops or
  // the loop breaks.
  async *egressLog(options = {}) {
    const args = ['egress-log', this.id];
    if (options.follow) args.push('--follow');
    if (options.refused) args.push('--refused');
    const child = cli.start(this.connection, args, {stdio: ['ignore', 'pipe', 'pipe']});
    const err = [];
    child.stderr.on('data', (chunk) => err.push(chunk));
    const closed = new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve(code));
    });
    const onAbort = () => child.kill('SIGTERM');
    if (options.signal) options.signal.addEventListener('abort', onAbort, {once: true});
    let finished = false;
    try {
      for await (const line of readline.createInterface({input: child.stdout, crlfDelay: Infinity})) {
        if (!line) continue;
        yield options.refused ? line : JSON.parse(line);
      }
      finished = true;
    } finally {
      if (options.signal) options.signal.removeEventListener('abort', onAbort);
      if (!finished) child.kill('SIGTERM');
    }
    const code = await closed;
    if (code !== 0 && !(options.signal && options.signal.aborted))
      throw errorFor(this.connection.program, code, Buffer.concat(err).toString('utf8'));
  }

  // {ok, message}: the log's chain and signatures checked against the key
  // stored when the proxy started (ok false: the line that does not hold).
  async verifyLog() {
    const result = await cli.run(this.connection, ['egress-log', '--verify', this.id]);
    const text = (result.stdout.toString('utf8') + result.stderr.toString('utf8')).trim();
    if (result.code === 0) return {ok: true, message: text};
    const error = errorFor(this.connection.program, result.code, result.stderr.toString('utf8'));
    if (error instanceof SandboxNotFoundError || error instanceof InvalidSpecError) throw error;
    return {ok: false, message: error.message};
  }

  async destroy(options = {}) {
    const args = ['destroy', this.id];
    if (options.saveLog) args.push('--save-log', options.saveLog);
    await cli.runChecked(this.connection, args);
  }

  connectionOptions() {
    return {backend: this.connection.backend, env: this.connection.env, ...flagOptions(this.connection.flags)};
  }
}

function flagOptions(flags) {
  const options = {};
  for (let i = 0; i + 1 < flags.length; i += 2) options[flags[i].slice(2)] = flags[i + 1];
  return options;
}

// Sandbox.destroy by selector: every sandbox whose labels match.
Sandbox.destroyAll = async function destroyAll(options = {}) {
  const connection = cli.connectionOf(options);
  const selector = selectorArgs(options.labels);
  if (!selector.length) throw new TypeError('destroyAll needs labels');
  await cli.runChecked(connection, ['destroy', ...selector]);
};

module.exports = {Sandbox, SandboxError, InvalidSpecError, SandboxNotFoundError};
