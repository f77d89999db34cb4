// An MCP client built with the official TypeScript SDK, connecting through an
// HTTP proxy (undici's ProxyAgent as the fetch dispatcher: Node 20's global
// fetch ignores HTTPS_PROXY). It trusts NODE_EXTRA_CA_CERTS, lists every tool
// (following nextCursor) and optionally calls one, then prints one JSON object:
//   {"tools": [names...], "pages": n, "call": {"result": ...} | {"error": {"code", "message"}}}
//
// usage: node client.mjs --url https://host/mcp --transport streamable|legacy
//                        [--proxy http://127.0.0.1:port] [--call TOOL] [--args JSON]
import './webcrypto-global.mjs'; // before the SDK: Node 18 has no global crypto
import { parseArgs } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fetch as undiciFetch, ProxyAgent } from 'undici';

const { values: opts } = parseArgs({
    options: {
        url: { type: 'string' },
        transport: { type: 'string', default: 'streamable' },
        proxy: { type: 'string' },
        call: { type: 'string' },
        args: { type: 'string', default: '{}' },
        'skip-list': { type: 'boolean', default: false },
    },
});
if (!opts.url) {
    console.error('usage: client.mjs --url URL [--transport streamable|legacy] [--proxy URL] [--call TOOL]');
    process.exit(2);
}

const dispatcher = opts.proxy ? new ProxyAgent(opts.proxy) : undefined;
const proxiedFetch = (url, init) => undiciFetch(url, { ...init, ...(dispatcher ? { dispatcher } : {}) });

const url = new URL(opts.url);
const transport =
    opts.transport === 'legacy'
        ? new SSEClientTransport(url, { fetch: proxiedFetch })
        : new StreamableHTTPClientTransport(url, { fetch: proxiedFetch });
const client = new Client({ name: 'osf-test-mcp-client', version: '1.0.0' });

const output = {};
try {
    await client.connect(transport);
    if (!opts['skip-list']) {
        output.tools = [];
        output.pages = 0;
        let cursor;
        do {
            const page = await client.listTools(cursor ? { cursor } : undefined);
            output.pages += 1;
            output.tools.push(...page.tools.map((tool) => tool.name));
            cursor = page.nextCursor;
        } while (cursor);
    }
    if (opts.call) {
        try {
            output.call = { result: await client.callTool({ name: opts.call, arguments: JSON.parse(opts.args) }) };
        } catch (error) {
            output.call = { error: { code: error.code ?? null, message: error.message } };
        }
    }
} catch (error) {
    output.failure = String(error?.stack ?? error);
}
console.log(JSON.stringify(output));
await client.close().catch(() => {});
process.exit(output.failure ? 1 : 0);
