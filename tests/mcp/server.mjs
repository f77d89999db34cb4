// An MCP server built with the official TypeScript SDK, served over HTTPS on
// 127.0.0.1 for the proxy's integration tests. It exposes the same tools over
//   /mcp-json  Streamable HTTP, answers as application/json (enableJsonResponse: true)
//   /mcp-sse   Streamable HTTP, answers as text/event-stream (enableJsonResponse: false)
//   /sse + /messages  the 2024-11-05 HTTP+SSE transport (SSEServerTransport)
// and appends one JSON line per JSON-RPC message it receives to --log, so a
// test can prove a refused call never arrived.
//
// usage: node server.mjs --cert leaf.crt --key leaf.key --log received.jsonl
//                        [--page-size N] [--tools a,b,c]
// prints {"port": <port>} on stdout once it listens.
import './webcrypto-global.mjs'; // before the SDK: Node 18 has no global crypto
import { appendFileSync, readFileSync } from 'node:fs';
import https from 'node:https';
import { parseArgs } from 'node:util';

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
    CallToolRequestSchema,
    ErrorCode,
    ListToolsRequestSchema,
    McpError,
} from '@modelcontextprotocol/sdk/types.js';

const { values: opts } = parseArgs({
    options: {
        cert: { type: 'string' },
        key: { type: 'string' },
        log: { type: 'string' },
        'page-size': { type: 'string', default: '0' },
        tools: { type: 'string', default: 'search,fetch_page,delete_everything' },
    },
});
if (!opts.cert || !opts.key || !opts.log) {
    console.error('usage: server.mjs --cert FILE --key FILE --log FILE [--page-size N] [--tools a,b]');
    process.exit(2);
}

const toolNames = opts.tools.split(',').filter(Boolean);
const pageSize = Number(opts['page-size']);
const tools = toolNames.map((name) => ({
    name,
    description: `The ${name} tool`,
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
}));

function log(entry) {
    appendFileSync(opts.log, JSON.stringify({ time: new Date().toISOString(), ...entry }) + '\n');
}

function makeServer() {
    const server = new Server(
        { name: 'osf-test-mcp-server', version: '1.0.0' },
        { capabilities: { tools: { listChanged: true } } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async (request) => {
        if (pageSize <= 0) return { tools };
        const start = Number(request.params?.cursor ?? 0);
        const next = start + pageSize;
        return {
            tools: tools.slice(start, next),
            ...(next < tools.length ? { nextCursor: String(next) } : {}),
        };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
        const { name, arguments: args } = request.params;
        if (!toolNames.includes(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
        return { content: [{ type: 'text', text: `${name} ran with ${JSON.stringify(args ?? {})}` }] };
    });
    return server;
}

// Logs what arrived, before the SDK sees it.
function logMessages(transport, body) {
    for (const message of Array.isArray(body) ? body : [body]) {
        if (message === null || typeof message !== 'object') continue;
        log({
            transport,
            method: message.method ?? null,
            id: message.id ?? null,
            tool: message.method === 'tools/call' ? message.params?.name ?? null : null,
        });
    }
}

async function readJson(req) {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString('utf8');
    return text ? JSON.parse(text) : undefined;
}

const legacySessions = new Map();

async function handle(req, res) {
    const url = new URL(req.url, 'https://localhost');
    const mode = url.pathname === '/mcp-json' ? 'json' : url.pathname === '/mcp-sse' ? 'sse' : null;
    if (mode) {
        let body;
        if (req.method === 'POST') {
            try {
                body = await readJson(req);
            } catch {
                res.writeHead(400, { 'Content-Type': 'text/plain' }).end('bad JSON');
                return;
            }
            logMessages(mode, body);
        }
        // Stateless: a server and a transport per request.
        const server = makeServer();
        const transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: undefined,
            enableJsonResponse: mode === 'json',
        });
        res.on('close', () => {
            transport.close();
            server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
        return;
    }
    if (url.pathname === '/sse' && req.method === 'GET') {
        const transport = new SSEServerTransport('/messages', res);
        legacySessions.set(transport.sessionId, transport);
        res.on('close', () => legacySessions.delete(transport.sessionId));
        log({ transport: 'legacy', method: 'GET /sse', id: null, tool: null });
        await makeServer().connect(transport);
        return;
    }
    if (url.pathname === '/messages' && req.method === 'POST') {
        const transport = legacySessions.get(url.searchParams.get('sessionId'));
        if (!transport) {
            res.writeHead(404, { 'Content-Type': 'text/plain' }).end('no such session');
            return;
        }
        let body;
        try {
            body = await readJson(req);
        } catch {
            res.writeHead(400, { 'Content-Type': 'text/plain' }).end('bad JSON');
            return;
        }
        logMessages('legacy', body);
        await transport.handlePostMessage(req, res, body);
        return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
}

const httpsServer = https.createServer(
    { cert: readFileSync(opts.cert), key: readFileSync(opts.key) },
    (req, res) => {
        handle(req, res).catch((error) => {
            console.error(error);
            if (!res.headersSent) res.writeHead(500).end();
        });
    },
);
httpsServer.listen(0, '127.0.0.1', () => {
    console.log(JSON.stringify({ port: httpsServer.address().port }));
});
for (const signal of ['SIGTERM', 'SIGINT']) {
    process.on(signal, () => process.exit(0));
}
