// The Sandbox API's types. Written by hand against lib/api.js (the library is
// plain JavaScript: the package has no build step and needs no compiler); the
// spec and log-line types are generated from contracts/ (types/*.d.ts).
import type {Readable, Writable} from 'node:stream';
import type {SandboxSpec} from './types/sandbox-spec.js';
import type {EgressLogLine} from './types/egress-log.js';

export type {SandboxSpec} from './types/sandbox-spec.js';
export type {EgressLogLine} from './types/egress-log.js';

export type Backend = 'kubernetes' | 'local';
export type Labels = Record<string, string>;
/** Labels as an object (each key=value must hold) or a selector text: "k=v,k2!=v2,k3,!k4". */
export type LabelSelector = Labels | string;

export interface ConnectionOptions {
  /** Which CLI runs the sandboxes; default 'kubernetes'. */
  backend?: Backend;
  /** Kubernetes only: the CLI's --namespace, --context and --kubeconfig. */
  namespace?: string;
  context?: string;
  kubeconfig?: string;
  /** Variables added to the CLI's environment (OSF_SANDBOX_* settings, OSF_SECRET_*). */
  env?: Record<string, string>;
}

export interface ProgressEvent {
  type: 'progress';
  message: string;
}

export interface CreateOptions extends ConnectionOptions {
  /** Added to the spec's labels (these win). */
  labels?: Labels;
  /** Aborting stops the create; the CLI removes what it made. */
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
}

export interface ListOptions extends ConnectionOptions {
  labels?: LabelSelector;
}

export interface GcOptions extends ListOptions {
  dryRun?: boolean;
  /** Save each sandbox's egress log to DIR/<ID>.jsonl first. */
  saveLogs?: string;
}

export interface GcRemoval {
  id: string;
  reason: string;
}

export interface ExecOptionsBase {
  stdin?: Buffer | Uint8Array | string;
  /** Set by the sandbox's env(1). */
  env?: Record<string, string>;
  /** Entered by the sandbox's sh(1); default /workspace. */
  cwd?: string;
  /** Rounded up to whole seconds; the command is stopped and exitCode is 137. */
  timeoutMs?: number;
  /** Aborting stops the command inside the sandbox; exec rejects with an AbortError. */
  signal?: AbortSignal;
}

export interface ExecResult<T> {
  exitCode: number;
  stdout: T;
  stderr: T;
}

export interface SpawnedCommand {
  readonly pid: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** The command's exit code (137 at its timeout, 143 when killed). */
  wait(): Promise<number>;
  /** Stops the command and everything it started inside the sandbox. */
  kill(signal?: NodeJS.Signals): boolean;
}

export interface EgressLogOptions {
  follow?: boolean;
  signal?: AbortSignal;
}

export interface VerifyResult {
  ok: boolean;
  message: string;
}

export type PolicyEntry = string | {mcp: string};

export declare class Sandbox {
  private constructor();
  readonly id: string;
  readonly labels: Labels;
  expiresAt: Date | null;
  readonly status: string | undefined;
  /** The backend's names of the sandbox's parts (Kubernetes: namespace, claim, egressProxy). */
  readonly names: Record<string, string>;
  readonly backend: Backend;
  /** From list and get: when it was made, its template or image, the policy in force (egress, mcp). */
  readonly created: Date | null;
  readonly image: string | undefined;
  readonly policy: {egress?: string[]; mcp?: unknown} | null | undefined;

  /** spec: the spec as an object, or the path of a spec file. */
  static create(spec: SandboxSpec | string, options?: CreateOptions): Promise<Sandbox>;
  static get(id: string, options?: ConnectionOptions): Promise<Sandbox>;
  static list(options?: ListOptions): Promise<Sandbox[]>;
  static gc(options?: GcOptions): Promise<GcRemoval[]>;
  /** Destroys every sandbox whose labels match. */
  static destroyAll(options: ListOptions & {labels: LabelSelector}): Promise<void>;

  exec(argv: string[], options: ExecOptionsBase & {encoding: BufferEncoding}): Promise<ExecResult<string>>;
  exec(argv: string[], options?: ExecOptionsBase & {encoding?: 'buffer'}): Promise<ExecResult<Buffer>>;
  spawn(argv: string[], options?: Omit<ExecOptionsBase, 'stdin'>): SpawnedCommand;
  writeFile(path: string, data: Buffer | Uint8Array | string): Promise<void>;
  readFile(path: string, options: {encoding: BufferEncoding}): Promise<string>;
  readFile(path: string, options?: {encoding?: 'buffer'}): Promise<Buffer>;
  copyIn(localPath: string, sandboxPath: string): Promise<void>;
  copyOut(sandboxPath: string, localPath: string): Promise<void>;
  /** The template name a spec can start from. */
  snapshot(): Promise<string>;
  /** duration: "90m", "8h", "1h30m"; resolves to the new expiry. */
  extend(duration: string): Promise<Date | null>;
  suspend(): Promise<void>;
  resume(): Promise<void>;
  allow(entries: PolicyEntry | PolicyEntry[]): Promise<void>;
  revoke(entries: PolicyEntry | PolicyEntry[]): Promise<void>;
  egressLog(options: EgressLogOptions & {refused: true}): AsyncIterableIterator<string>;
  egressLog(options?: EgressLogOptions & {refused?: false}): AsyncIterableIterator<EgressLogLine>;
  verifyLog(): Promise<VerifyResult>;
  destroy(options?: {saveLog?: string}): Promise<void>;
}

/** The CLI exited 1 (or another code): its message. */
export declare class SandboxError extends Error {
  readonly exitCode: number;
  readonly stderr: string;
}
/** Exit 2: an invalid spec, label or argument. */
export declare class InvalidSpecError extends SandboxError {}
/** No sandbox with that ID. */
export declare class SandboxNotFoundError extends SandboxError {}
