// Must NOT compile: a spec field that the contract does not have, and a
// string result used as a Buffer. test_typescript_api.py checks tsc refuses both.
import {Sandbox} from '@osf-sandbox/sandbox-kubernetes';
import type {SandboxSpec} from '@osf-sandbox/sandbox-kubernetes';

export const spec: SandboxSpec = {template: 'host', egres: ['example.com']};

export async function wrong(sandbox: Sandbox): Promise<number> {
  const result = await sandbox.exec(['true'], {encoding: 'utf8'});
  return result.stdout.readUInt8(0);
}
