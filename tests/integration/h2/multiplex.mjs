// Many HTTP/2 streams at once on one connection through egress-proxy, with Node's
// built-in http2 client: a CONNECT tunnel (http.request), TLS in it offering ALPN h2
// only and trusting the proxy's CA, one http2 session on that TLS socket, and every
// request sent before any answer is read.
//
// usage: node multiplex.mjs --proxy HOST:PORT --authority HOST:PORT --ca FILE
//                           --path /a --path /b ... [--timeout-ms N]
// prints one JSON line: {"alpn", "maxConcurrentStreams", "results": [{"path",
// "status", "body"} or {"path", "error"}]}, or {"failure": "..."} (exit 1).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import tls from 'node:tls';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
    options: {
        proxy: { type: 'string' },
        authority: { type: 'string' },
        ca: { type: 'string' },
        path: { type: 'string', multiple: true, default: [] },
        'timeout-ms': { type: 'string', default: '60000' },
    },
});
if (!opts.proxy || !opts.authority || !opts.ca) {
    console.error('usage: multiplex.mjs --proxy HOST:PORT --authority HOST:PORT --ca FILE --path P...');
    process.exit(2);
}

function fail(message) {
    console.log(JSON.stringify({ failure: message }));
    process.exit(1);
}

// Bounded: whatever happens, the script ends.
setTimeout(() => fail(`no result within ${opts['timeout-ms']} ms`), Number(opts['timeout-ms'])).unref();

const [proxyHost, proxyPort] = [opts.proxy.slice(0, opts.proxy.lastIndexOf(':')),
    Number(opts.proxy.slice(opts.proxy.lastIndexOf(':') + 1))];
const servername = opts.authority.slice(0, opts.authority.lastIndexOf(':'));
const ca = readFileSync(opts.ca);

const connect = http.request({
    host: proxyHost, port: proxyPort, method: 'CONNECT', path: opts.authority,
    headers: { host: opts.authority },
});
connect.on('error', (e) => fail(`CONNECT: ${e.message}`));
connect.on('connect', (res, socket, head) => {
    if (res.statusCode !== 200) fail(`CONNECT answered ${res.statusCode}`);
    if (head && head.length) socket.unshift(head);
    const session = http2.connect(`https://${opts.authority}`, {
        createConnection: () => tls.connect({ socket, servername, ALPNProtocols: ['h2'], ca }),
    });
    session.on('error', (e) => fail(`session: ${e.message}`));
    const answers = opts.path.map((path) => new Promise((resolve) => {
        const stream = session.request({ ':method': 'GET', ':path': path });
        let status = null;
        const chunks = [];
        stream.on('response', (headers) => { status = headers[':status']; });
        stream.on('data', (chunk) => chunks.push(chunk));
        stream.on('end', () => resolve({ path, status, body: Buffer.concat(chunks).toString('utf8') }));
        stream.on('error', (e) => resolve({ path, error: e.message }));
        stream.end();
    }));
    Promise.all(answers).then((results) => {
        const out = {
            alpn: session.alpnProtocol ?? null,
            maxConcurrentStreams: session.remoteSettings?.maxConcurrentStreams ?? null,
            results,
        };
        console.log(JSON.stringify(out));
        session.close(() => process.exit(0));
    });
});
connect.end();
