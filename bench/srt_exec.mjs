// Anthropic's sandbox runtime used as a library, as an agent host uses it: one
// initialize() (its HTTP and SOCKS5 proxies start), then each command wrapped
// and spawned. Prints {"initialize_ms": N, "command_ms": [...]} as JSON.
//   node bench/srt_exec.mjs PEERS_DIR ROUNDS
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [peers, rounds] = [process.argv[2], Number(process.argv[3] || 20)];
const entry = path.join(peers, 'node_modules/@anthropic-ai/sandbox-runtime/dist/index.js');
const { SandboxManager } = await import(pathToFileURL(entry));

const started = performance.now();
await SandboxManager.initialize({
  network: { allowedDomains: ['example.com'], deniedDomains: [] },
  filesystem: { denyRead: [], allowWrite: ['/tmp'], denyWrite: [] },
});
const initialize_ms = performance.now() - started;
const command_ms = [];
for (let i = 0; i < rounds; i++) {
  const begin = performance.now();
  const wrapped = await SandboxManager.wrapWithSandbox('true');
  const run = spawnSync(wrapped, { shell: true, stdio: 'ignore' });
  command_ms.push(performance.now() - begin);
  if (run.status !== 0) throw new Error(`srt: the wrapped command exited ${run.status}`);
}
await SandboxManager.reset();
console.log(JSON.stringify({ initialize_ms, command_ms }));
