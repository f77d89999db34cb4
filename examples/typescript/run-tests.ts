// Runs a repository's tests in a sandbox that may reach only the npm registry,
// streams the output, and keeps the signed egress log.
//   npm install @osf-sandbox/sandbox-kubernetes
//   npx tsc --strict run-tests.ts && node run-tests.js https://example.com/repo.tar.gz
import { readFile } from 'node:fs/promises';
import { Sandbox, InvalidSpecError, type SandboxSpec } from '@osf-sandbox/sandbox-kubernetes';

const spec: SandboxSpec = {
  template: 'node:24-alpine',
  cpu: 2,
  memory: '4Gi',
  egress: ['registry.npmjs.org'],
  lifetime: '1h',
  labels: { app: 'ci-runner' },
};

async function main(tarball: string): Promise<number> {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  let sandbox: Sandbox;
  try {
    sandbox = await Sandbox.create(spec, {
      backend: process.env.BACKEND === 'local' ? 'local' : 'kubernetes',
      labels: { run: `run-${process.pid}` },
      signal: controller.signal,
      onProgress: (event) => console.error(`  ${event.message}`),
    });
  } catch (error) {
    if (error instanceof InvalidSpecError) console.error(`bad spec: ${error.message}`);
    throw error;
  }
  try {
    await sandbox.writeFile('/workspace/repo.tar.gz', await readFile(tarball));
    await sandbox.exec(['tar', 'xzf', 'repo.tar.gz']);
    const tests = sandbox.spawn(['sh', '-c', 'npm ci && npm test'], { timeoutMs: 30 * 60_000, signal: controller.signal });
    tests.stdout.pipe(process.stdout);
    tests.stderr.pipe(process.stderr);
    const exitCode = await tests.wait();
    for await (const entry of sandbox.egressLog({ refused: true })) console.error(`refused; would need: ${entry}`);
    return exitCode;
  } finally {
    await sandbox.destroy({ saveLog: `egress-${sandbox.id}.jsonl` });
  }
}

main(process.argv[2] ?? 'repo.tar.gz').then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
