// Compiled with tsc --strict --noEmit by test_typescript_api.py: the
// package's types are real (a wrong spec field or result use fails to compile).
import {Sandbox, InvalidSpecError, SandboxNotFoundError, SandboxError} from '@osf-sandbox/sandbox-kubernetes';
import type {SandboxSpec, EgressLogLine} from '@osf-sandbox/sandbox-kubernetes';

async function main(): Promise<void> {
  const spec: SandboxSpec = {template: 'host', egress: ['example.com'], labels: {run: 'r-1'}, lifetime: '1h'};
  const sandbox: Sandbox = await Sandbox.create(spec, {
    backend: 'local',
    labels: {deployment: 'd-1'},
    signal: AbortSignal.timeout(60_000),
    onProgress: (event) => console.error(event.message),
  });
  const id: string = sandbox.id;
  const expires: Date | null = sandbox.expiresAt;
  const text = await sandbox.exec(['echo', 'hi'], {encoding: 'utf8', timeoutMs: 5000});
  const upper: string = text.stdout.toUpperCase();
  const bytes = await sandbox.exec(['cat'], {stdin: Buffer.from([0, 1, 2])});
  const first: number = bytes.stdout[0];
  const child = sandbox.spawn(['sleep', '10']);
  child.kill();
  const code: number = await child.wait();
  await sandbox.writeFile('/workspace/a', Buffer.alloc(3));
  const back: Buffer = await sandbox.readFile('/workspace/a');
  const asText: string = await sandbox.readFile('/workspace/a', {encoding: 'utf8'});
  for await (const line of sandbox.egressLog()) {
    const host: string | undefined = line.host;
    console.log(host);
  }
  for await (const entry of sandbox.egressLog({refused: true})) console.log(entry.length);
  const verdict: boolean = (await sandbox.verifyLog()).ok;
  const found: Sandbox[] = await Sandbox.list({labels: {run: 'r-1'}, backend: 'local'});
  const removed = await Sandbox.gc({labels: 'run=r-1', backend: 'local'});
  removed.forEach((r) => console.log(r.id, r.reason));
  await sandbox.allow(['example.org', {mcp: 'docs:search'}]);
  await sandbox.destroy({saveLog: '/tmp/log.jsonl'});
  try {
    await Sandbox.get('000000000000', {backend: 'kubernetes', namespace: 'ns'});
  } catch (error) {
    if (error instanceof SandboxNotFoundError || error instanceof InvalidSpecError) console.log(error.exitCode);
    else if (error instanceof SandboxError) console.log(error.stderr);
  }
  console.log(id, expires, upper, first, code, back.length, asText, verdict, found.length);
}

void main;
