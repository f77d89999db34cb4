// The Sandbox API against sandbox-local for real: every method, run by
// tests/integration/test_typescript_api.py with a state directory of its own
// (OSF_SANDBOX_LOCAL_STATE_DIR, OSF_SANDBOX_LOCAL_BIN, OSF_EGRESS_PROXY_BIN).
import {test, after} from 'node:test';
import assert from 'node:assert/strict';
import {randomBytes} from 'node:crypto';
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {Sandbox, InvalidSpecError, SandboxNotFoundError, SandboxError} from '@osf-sandbox/sandbox-kubernetes';

const local = {backend: 'local'};
const run = `r${process.pid}`;
const scratch = mkdtempSync(path.join(tmpdir(), 'osf-ts-api-'));
const made = [];

async function create(spec, options = {}) {
  const sandbox = await Sandbox.create(spec, {...local, ...options});
  made.push(sandbox);
  return sandbox;
}

// Polls `check` (an async predicate) up to `seconds`: the bounded wait the
// tests use instead of sleeping.
async function waitUntil(check, seconds, what) {
  const deadline = Date.now() + seconds * 1000;
  for (let attempt = 0; attempt < 10_000; attempt++) {
    if (await check()) return;
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.fail(`timed out after ${seconds}s waiting for ${what}`);
}

after(async () => {
  for (const sandbox of made) await sandbox.destroy().catch(() => {});
  rmSync(scratch, {recursive: true, force: true});
});

let sandbox;

test('create: id, expiry, labels from the spec and the options, progress events', async () => {
  const events = [];
  sandbox = await create(
    {template: 'host', labels: {run, role: 'spec-value'}, lifetime: '2h'},
    {labels: {role: 'worker', deployment: 'd1'}, onProgress: (event) => events.push(event)},
  );
  assert.match(sandbox.id, /^[0-9a-f]{12}$/);
  assert.deepEqual(sandbox.labels, {run, role: 'worker', deployment: 'd1'});
  assert.ok(sandbox.expiresAt instanceof Date);
  const hours = (sandbox.expiresAt.getTime() - Date.now()) / 3_600_000;
  assert.ok(hours > 1.9 && hours <= 2.01, `expires in ${hours}h`);
  for (const event of events) {
    assert.equal(event.type, 'progress');
    assert.equal(typeof event.message, 'string');
  }
  const again = await Sandbox.get(sandbox.id, local);
  assert.equal(again.id, sandbox.id);
  assert.deepEqual(again.labels, sandbox.labels);
  assert.equal(again.status, 'Ready');
});

test('exec: stdin in, exit code, stdout and stderr apart', async () => {
  const result = await sandbox.exec(['sh', '-c', 'cat; echo to-stderr >&2; exit 3'], {stdin: 'from stdin\n', encoding: 'utf8'});
  assert.deepEqual(result, {exitCode: 3, stdout: 'from stdin\n', stderr: 'to-stderr\n'});
  const envAndCwd = await sandbox.exec(['sh', '-c', 'echo "$GREETING $(pwd)"'], {env: {GREETING: 'hello'}, cwd: '/tmp', encoding: 'utf8'});
  assert.equal(envAndCwd.stdout, 'hello /tmp\n');
});

test('exec: a binary payload goes through stdin and stdout byte for byte', async () => {
  const payload = Buffer.concat([Buffer.from(Array.from({length: 256}, (_, i) => i)), randomBytes(1 << 20)]);
  const result = await sandbox.exec(['cat'], {stdin: payload});
  assert.equal(result.exitCode, 0);
  assert.ok(Buffer.isBuffer(result.stdout));
  assert.ok(result.stdout.equals(payload), `got ${result.stdout.length} bytes of ${payload.length}`);
  assert.equal(result.stderr.length, 0);
});

test('exec: a timeout stops the command and gives 137', async () => {
  const started = Date.now();
  const result = await sandbox.exec(['sleep', '60'], {timeoutMs: 1000});
  assert.equal(result.exitCode, 137);
  assert.ok(Date.now() - started < 30_000);
});

test('exec: an abort mid-command ends the process inside the sandbox', async () => {
  await sandbox.exec(['rm', '-f', '/workspace/abort.pid']);
  const controller = new AbortController();
  const running = sandbox.exec(['sh', '-c', 'echo $$ > /workspace/abort.pid; exec sleep 300'], {signal: controller.signal});
  await waitUntil(async () => (await sandbox.exec(['test', '-s', '/workspace/abort.pid'])).exitCode === 0, 60, 'the pid file');
  const pid = (await sandbox.readFile('/workspace/abort.pid', {encoding: 'utf8'})).trim();
  assert.equal((await sandbox.exec(['kill', '-0', pid])).exitCode, 0, 'the command runs before the abort');
  controller.abort();
  await assert.rejects(running, {name: 'AbortError'});
  await waitUntil(async () => (await sandbox.exec(['kill', '-0', pid])).exitCode !== 0, 30, `process ${pid} to end`);
});

test('spawn: streams, wait and kill', async () => {
  const child = sandbox.spawn(['sh', '-c', 'echo ready; read line; echo "got $line"']);
  const chunks = [];
  child.stdout.on('data', (chunk) => chunks.push(chunk));
  child.stdin.end('value\n');
  assert.equal(await child.wait(), 0);
  assert.equal(Buffer.concat(chunks).toString(), 'ready\ngot value\n');
  const sleeper = sandbox.spawn(['sleep', '300']);
  sleeper.kill();
  assert.equal(await sleeper.wait(), 143);
});

test('writeFile and readFile: 10 MiB unchanged; copyIn and copyOut', async () => {
  const data = randomBytes(10 * 1024 * 1024);
  await sandbox.writeFile('/workspace/big.bin', data);
  const back = await sandbox.readFile('/workspace/big.bin');
  assert.ok(back.equals(data));
  const sum = await sandbox.exec(['sh', '-c', 'wc -c < /workspace/big.bin'], {encoding: 'utf8'});
  assert.equal(sum.stdout.trim(), String(data.length));
  const out = path.join(scratch, 'copied.bin');
  await sandbox.copyOut('/workspace/big.bin', out);
  assert.ok(readFileSync(out).equals(data));
});

test('list and gc by labels; destroyAll by selector', async () => {
  const other = await create({template: 'host', labels: {run, role: 'other'}});
  const byRun = await Sandbox.list({...local, labels: {run}});
  assert.deepEqual(byRun.map((s) => s.id).sort(), [sandbox.id, other.id].sort());
  const workers = await Sandbox.list({...local, labels: {run, role: 'worker'}});
  assert.deepEqual(workers.map((s) => s.id), [sandbox.id]);
  const notWorkers = await Sandbox.list({...local, labels: `run=${run},role!=worker`});
  assert.deepEqual(notWorkers.map((s) => s.id), [other.id]);
  assert.deepEqual(await Sandbox.list({...local, labels: {run: 'no-such-run'}}), []);
  // Running sandboxes are not garbage, whatever their labels.
  assert.deepEqual(await Sandbox.gc({...local, labels: {run}}), []);
  await Sandbox.destroyAll({...local, labels: {run, role: 'other'}});
  assert.deepEqual((await Sandbox.list({...local, labels: {run}})).map((s) => s.id), [sandbox.id]);
});

test('gc by labels collects an expired suspended sandbox of its selector only', async () => {
  // A running sandbox removes itself at its expiry; a suspended one is left for gc.
  const doomed = await create({template: 'host', labels: {run, role: 'expiring'}, lifetime: '10s'});
  await doomed.suspend();
  await waitUntil(async () => (await Sandbox.gc({...local, labels: {run, role: 'expiring'}, dryRun: true})).length === 1, 60, 'the sandbox to expire');
  assert.deepEqual(await Sandbox.gc({...local, labels: {run, role: 'no-such-role'}}), []);
  const removed = await Sandbox.gc({...local, labels: {run, role: 'expiring'}});
  assert.deepEqual(removed.map((r) => r.id), [doomed.id]);
  await assert.rejects(Sandbox.get(doomed.id, local), SandboxNotFoundError);
});

test('snapshot, extend, suspend and resume', async () => {
  const template = await sandbox.snapshot();
  assert.equal(typeof template, 'string');
  assert.ok(template.length > 0);
  const before = sandbox.expiresAt.getTime();
  const expires = await sandbox.extend('1h');
  assert.ok(expires.getTime() > before);
  await sandbox.suspend();
  assert.equal((await Sandbox.get(sandbox.id, local)).status, 'Suspended');
  await sandbox.resume();
  assert.equal((await sandbox.exec(['true'])).exitCode, 0);
});

test('allow and revoke change the policy; the egress log verifies and is saved by destroy', async () => {
  await sandbox.allow(['example.org']);
  let policy = (await Sandbox.get(sandbox.id, local)).policy;
  assert.ok(JSON.stringify(policy).includes('example.org'), JSON.stringify(policy));
  await sandbox.revoke(['example.org']);
  policy = (await Sandbox.get(sandbox.id, local)).policy;
  assert.ok(!JSON.stringify(policy).includes('example.org'), JSON.stringify(policy));
  const refused = await sandbox.exec(['sh', '-c', 'curl -s -o /dev/null -w "%{http_code}" https://refused.test/ || true'], {encoding: 'utf8'});
  assert.ok(refused.exitCode === 0);
  const lines = [];
  for await (const line of sandbox.egressLog()) lines.push(line);
  const refusal = lines.find((line) => line.host === 'refused.test');
  assert.ok(refusal, JSON.stringify(lines));
  assert.equal(refusal.outcome, 'refused');
  const entries = [];
  for await (const entry of sandbox.egressLog({refused: true})) entries.push(entry);
  assert.deepEqual(entries, ['refused.test']);
  // follow: the loop ends when the caller breaks out (the CLI is stopped).
  for await (const line of sandbox.egressLog({follow: true})) {
    assert.equal(typeof line.time, 'string');
    break;
  }
  const verdict = await sandbox.verifyLog();
  assert.equal(verdict.ok, true, verdict.message);
  const saved = path.join(scratch, 'saved.jsonl');
  await sandbox.destroy({saveLog: saved});
  assert.ok(existsSync(saved));
  await assert.rejects(Sandbox.get(sandbox.id, local), SandboxNotFoundError);
});

test('create: an abort mid-create leaves nothing behind', async () => {
  const controller = new AbortController();
  const creating = Sandbox.create({template: 'host', labels: {run, role: 'aborted'}}, {
    ...local,
    signal: controller.signal,
    onProgress: () => controller.abort(),
  });
  await assert.rejects(creating, {name: 'AbortError'});
  assert.deepEqual(await Sandbox.list({...local, labels: {run, role: 'aborted'}}), []);
});

test('typed errors: a bad spec, a bad label, an unknown id', async () => {
  await assert.rejects(Sandbox.create({template: 'host', egres: ['example.com']}, local), (error) => {
    assert.ok(error instanceof InvalidSpecError);
    assert.ok(error instanceof SandboxError);
    assert.equal(error.exitCode, 2);
    assert.match(error.message, /egres/);
    return true;
  });
  await assert.rejects(Sandbox.create({template: 'host'}, {...local, labels: {'osf.sandbox.id': 'x'}}), InvalidSpecError);
  await assert.rejects(Sandbox.get('0123456789ab', local), SandboxNotFoundError);
  await assert.rejects(Sandbox.list({...local, labels: 'a in (b)'}), InvalidSpecError);
});
