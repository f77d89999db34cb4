// The MCP SDK calls the global `crypto` (Web Crypto: randomUUID, getRandomValues).
// Node 20 defines it; Node 18 (Debian 12's nodejs) only behind a flag. Imported
// first by server.mjs and client.mjs, so it is set before the SDK's modules run.
import { webcrypto } from 'node:crypto';

if (globalThis.crypto === undefined) globalThis.crypto = webcrypto;
