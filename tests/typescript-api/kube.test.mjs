// The Sandbox API against the test Kubernetes API server (tests/kube-api) with
// the real kubectl: sandbox-kubernetes does the work, as it would on a cluster.
// Run by tests/integration/test_typescript_api.py (KUBECONFIG, kubectl on PATH,
// OSF_SANDBOX_KUBERNETES_BIN).
import {test, after} from 'node:test';
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {Sandbox, InvalidSpecError, SandboxNotFoundError} from '@osf-sandbox/sandbox-kubernetes';

const kube = {backend: 'kubernetes', namespace: 'default'};
const run = `r${process.pid}`;
const KINDS = 'sandboxclaims.extensions.agents.x-k8s.io,sandboxwarmpools.extensions.agents.x-k8s.io,' +
  'sandboxtemplates.extensions.agents.x-k8s.io,pods,services,networkpolicies.networking.k8s.io,configmaps,secrets';
const made = [];

function objects(selector) {
  return JSON.parse(execFileSync('kubectl', ['get', KINDS, '-n', 'default', '-l', selector, '-o', 'json'], {encoding: 'utf8'})).items;
}

after(async () => {
  for (const sandbox of made) await sandbox.destroy().catch(() => {});
});

let sandbox;

test('create puts the labels on every object; names and expiry come back', async () => {
  const events = [];
  sandbox = await Sandbox.create(
    {template: 'debian:12', labels: {run}, env: {A: '1'}, secrets: {TOKEN: 'ref:env/TOKEN'}},
    {...kube, labels: {deployment: 'd1'}, env: {OSF_SECRET_TOKEN: 'not-a-real-token'}, onProgress: (event) => events.push(event)},
  );
  made.push(sandbox);
  assert.match(sandbox.id, /^[0-9a-f]{12}$/);
  assert.deepEqual(sandbox.labels, {run, deployment: 'd1'});
  assert.deepEqual(sandbox.names, {namespace: 'default', claim: `osf-sandbox-${sandbox.id}`, egressProxy: `osf-sandbox-${sandbox.id}-egress`});
  assert.ok(sandbox.expiresAt instanceof Date && sandbox.expiresAt.getTime() > Date.now());
  assert.ok(events.length > 0 && events.every((e) => e.type === 'progress' && typeof e.message === 'string'));
  const all = objects(`osf.sandbox.id=${sandbox.id}`);
  const labelled = objects(`osf.sandbox.id=${sandbox.id},run=${run},deployment=d1`);
  assert.ok(all.length >= 6, `${all.length} objects`);
  assert.ok(all.some((o) => o.kind === 'Secret'), 'the Secret is among them');
  const missing = all.filter((o) => !labelled.some((l) => l.metadata.uid === o.metadata.uid));
  assert.deepEqual(missing.map((o) => `${o.kind}/${o.metadata.name}`), []);
});

test('exec: stdin, exit code, stderr apart; a binary payload unchanged', async () => {
  const result = await sandbox.exec(['sh', '-c', 'cat; echo err >&2; exit 5'], {stdin: 'in\n', encoding: 'utf8'});
  assert.deepEqual(result, {exitCode: 5, stdout: 'in\n', stderr: 'err\n'});
  const payload = Buffer.concat([Buffer.from(Array.from({length: 256}, (_, i) => i)), randomBytes(256 * 1024)]);
  const echoed = await sandbox.exec(['cat'], {stdin: payload});
  assert.equal(echoed.exitCode, 0);
  assert.ok(echoed.stdout.equals(payload), `got ${echoed.stdout.length} bytes of ${payload.length}`);
});

test('exec: a timeout gives 137', async () => {
  const result = await sandbox.exec(['sleep', '60'], {timeoutMs: 1000});
  assert.equal(result.exitCode, 137);
});

test('writeFile and readFile of 10 MiB', async () => {
  const data = randomBytes(10 * 1024 * 1024);
  await sandbox.writeFile('/workspace/big.bin', data);
  assert.ok((await sandbox.readFile('/workspace/big.bin')).equals(data));
});

test('list, gc and destroyAll by selector', async () => {
  const other = await Sandbox.create({template: 'debian:12'}, {...kube, labels: {run, role: 'other'}});
  made.push(other);
  assert.deepEqual((await Sandbox.list({...kube, labels: {run}})).map((s) => s.id).sort(), [sandbox.id, other.id].sort());
  assert.deepEqual((await Sandbox.list({...kube, labels: `run=${run},role!=other`})).map((s) => s.id), [sandbox.id]);
  assert.deepEqual(await Sandbox.gc({...kube, labels: {run}}), []);
  await Sandbox.destroyAll({...kube, labels: {run, role: 'other'}});
  assert.deepEqual(objects(`osf.sandbox.id=${other.id}`).filter((o) => !o.metadata.deletionTimestamp && o.kind !== 'Pod'), []);
  assert.deepEqual((await Sandbox.list({...kube, labels: {run}})).map((s) => s.id), [sandbox.id]);
});

test('typed errors: a bad spec, a reserved label, an unknown id', async () => {
  await assert.rejects(Sandbox.create({template: 'debian:12', cpu: 'lots'}, kube), InvalidSpecError);
  await assert.rejects(Sandbox.create({template: 'debian:12'}, {...kube, labels: {'app.kubernetes.io/managed-by': 'me'}}), InvalidSpecError);
  await assert.rejects(Sandbox.get('0123456789ab', kube), SandboxNotFoundError);
});

test('destroy removes the sandbox', async () => {
  await sandbox.destroy();
  await assert.rejects(Sandbox.get(sandbox.id, kube), SandboxNotFoundError);
});
