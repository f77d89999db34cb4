// The load client of bench/h2_streams.py: N GETs of one path on ONE connection, either
// HTTP/2 with C streams in flight (--mode h2) or HTTP/1.1 keep-alive, one request after
// the other (--mode h1). Through an HTTP proxy (CONNECT, then TLS in the tunnel trusting
// the proxy's CA) or straight to the origin. Node 20's built-in modules only.
//
// usage: node h2_client.mjs --mode h2|h1 --authority HOST:PORT --ca FILE --path /1k
//            --requests N [--concurrency C] [--expect-bytes B] [--deadline-s S]
//            [--proxy HOST:PORT [--connect HOST:PORT]]     (through a proxy)
//            [--address HOST:PORT]                          (direct: where to connect)
//
// --authority is what the requests name (:authority / Host, and the TLS server name);
// --connect what the CONNECT names (default: --authority); --address where a direct
// connection goes (default: --authority).
// Prints one JSON line: {"alpn", "mode", "concurrency", "requests", "ok", "errors",
// "bytes", "seconds", "rps", "p50_ms", "p99_ms", "client_cpu_s", "deadline_hit",
// "first_error"} or {"failure": "..."} (exit 1). Bounded: no new request starts after
// --deadline-s, and the process ends 30 s after that whatever happens.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
    options: {
        mode: { type: 'string', default: 'h2' },
        proxy: { type: 'string' },
        connect: { type: 'string' },
        address: { type: 'string' },
        authority: { type: 'string' },
        ca: { type: 'string' },
        path: { type: 'string', default: '/1k' },
        requests: { type: 'string', default: '1000' },
        concurrency: { type: 'string', default: '1' },
        'expect-bytes': { type: 'string' },
        'deadline-s': { type: 'string', default: '120' },
    },
});
if (!opts.authority || !opts.ca || !['h1', 'h2'].includes(opts.mode)) {
    console.error('usage: h2_client.mjs --mode h2|h1 --authority HOST:PORT --ca FILE --path P --requests N ...');
    process.exit(2);
}
const total = Number(opts.requests);
const concurrency = opts.mode === 'h1' ? 1 : Math.max(1, Number(opts.concurrency));
const expect = opts['expect-bytes'] === undefined ? null : Number(opts['expect-bytes']);
const deadlineMs = Number(opts['deadline-s']) * 1000;

function fail(message) {
    console.log(JSON.stringify({ failure: message }));
    process.exit(1);
}
setTimeout(() => fail(`no result within ${deadlineMs / 1000 + 30} s`), deadlineMs + 30000).unref();

function split(hostPort) {
    const i = hostPort.lastIndexOf(':');
    return [hostPort.slice(0, i), Number(hostPort.slice(i + 1))];
}
const [serverName] = split(opts.authority);
const ca = readFileSync(opts.ca);
const alpnOffer = opts.mode === 'h2' ? ['h2', 'http/1.1'] : ['http/1.1'];

// A TCP socket to the proxy with CONNECT answered 200 (read byte-exact up to the end of
// the head, so nothing of the TLS handshake is taken), or to the origin.
function openTcp() {
    return new Promise((resolve, reject) => {
        if (!opts.proxy) {
            const [host, port] = split(opts.address || opts.authority);
            const s = net.connect({ host, port }, () => resolve(s));
            s.once('error', reject);
            return;
        }
        const [host, port] = split(opts.proxy);
        const target = opts.connect || opts.authority;
        const s = net.connect({ host, port }, () => {
            s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
        });
        s.once('error', reject);
        let head = Buffer.alloc(0);
        const onData = (chunk) => {
            head = Buffer.concat([head, chunk]);
            const end = head.indexOf('\r\n\r\n');
            if (end < 0) {
                if (head.length > 65536) reject(new Error('CONNECT answer head too long'));
                return;
            }
            s.removeListener('data', onData);
            s.pause();
            const status = head.subarray(0, end).toString('latin1').split('\r\n')[0];
            if (!/^HTTP\/1\.[01] 200/.test(status)) { reject(new Error(`CONNECT answered ${status}`)); return; }
            const rest = head.subarray(end + 4);
            if (rest.length) s.unshift(rest);
            resolve(s);
        };
        s.on('data', onData);
    });
}

async function openTls() {
    const socket = await openTcp();
    return new Promise((resolve, reject) => {
        const t = tls.connect({ socket, servername: serverName, ALPNProtocols: alpnOffer, ca }, () => resolve(t));
        t.once('error', reject);
    });
}

// Latencies in ms, one per request answered.
const latencies = new Float64Array(total);
let issued = 0, done = 0, ok = 0, errors = 0, bytes = 0, firstError = null, deadlineHit = false;
const started = performance.now();
const cpu0 = process.cpuUsage();

function noteError(message) {
    errors++;
    if (!firstError) firstError = message;
}

function more() {
    if (issued >= total) return false;
    if (performance.now() - started > deadlineMs) { deadlineHit = true; return false; }
    return true;
}

function runH2(tlsSocket) {
    return new Promise((resolve) => {
        const session = http2.connect(`https://${opts.authority}`, {
            createConnection: () => tlsSocket,
            // Windows as real clients set them (curl, browsers: MiBs), so that a 1 MiB body
            // is not paced by the client's 64 KiB default; and room for 32 such bodies.
            settings: { initialWindowSize: 4 * 1024 * 1024, enablePush: false },
            maxSessionMemory: 256,
        });
        let finished = false;
        session.on('error', (e) => fail(`session: ${e.message} after ${done} answers`));
        session.on('goaway', (code) => { if (!finished) fail(`GOAWAY ${code} after ${done} answers`); });
        session.on('close', () => { if (!finished) fail(`session closed after ${done} answers`); });
        session.on('connect', () => session.setLocalWindowSize(32 * 1024 * 1024));
        let inFlight = 0;
        const finish = () => {
            if (inFlight === 0 && !more()) { finished = true; resolve(session); }
        };
        const one = () => {
            issued++;
            inFlight++;
            const t0 = performance.now();
            let stream;
            try {
                stream = session.request({ ':method': 'GET', ':path': opts.path }, { endStream: true });
            } catch (e) {
                fail(`request: ${e.message} after ${done} answers`);
            }
            let status = 0, got = 0, settled = false;
            const settle = (err) => {
                if (settled) return;
                settled = true;
                inFlight--;
                if (err) noteError(err);
                else if (status !== 200) noteError(`status ${status}`);
                else if (expect !== null && got !== expect) noteError(`body ${got} bytes, not ${expect}`);
                else { latencies[ok] = performance.now() - t0; ok++; }
                done++;
                bytes += got;
                while (inFlight < concurrency && more()) one();
                finish();
            };
            stream.on('response', (h) => { status = h[':status']; });
            stream.on('data', (c) => { got += c.length; });
            stream.on('end', () => settle(null));
            stream.on('close', () => settle(stream.rstCode ? `stream reset ${stream.rstCode}` : null));
            stream.on('error', (e) => settle(e.message));
        };
        while (inFlight < concurrency && more()) one();
        finish();
    });
}

function runH1(tlsSocket) {
    // An agent whose only connection is the one opened above: keep-alive, one socket, so
    // each request waits for the previous answer on the same connection.
    let created = 0;
    class OneConnection extends http.Agent {
        createConnection() {
            created++;
            if (created > 1) fail('the HTTP/1.1 connection closed; a second one would be needed');
            return tlsSocket;
        }
    }
    const agent = new OneConnection({ keepAlive: true, maxSockets: 1 });
    const [host, port] = split(opts.authority);
    return new Promise((resolve) => {
        const one = () => {
            if (!more()) { resolve(agent); return; }
            issued++;
            const t0 = performance.now();
            let got = 0, status = 0;
            const req = http.request({ host, port, path: opts.path, method: 'GET', agent,
                headers: { host: opts.authority } }, (res) => {
                status = res.statusCode;
                res.on('data', (c) => { got += c.length; });
                res.on('end', () => {
                    if (status !== 200) noteError(`status ${status}`);
                    else if (expect !== null && got !== expect) noteError(`body ${got} bytes, not ${expect}`);
                    else { latencies[ok] = performance.now() - t0; ok++; }
                    done++;
                    bytes += got;
                    setImmediate(one);
                });
            });
            req.on('error', (e) => { noteError(e.message); done++; fail(`request: ${e.message}`); });
            req.end();
        };
        one();
    });
}

function quantile(sorted, q) {
    if (sorted.length === 0) return null;
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

let tlsSocket;
try {
    tlsSocket = await openTls();
} catch (e) {
    fail(`connecting: ${e.message}`);
}
const alpn = tlsSocket.alpnProtocol || null;
if (opts.mode === 'h2' && alpn !== 'h2') fail(`asked for h2, the server chose ${alpn}`);
const t0 = performance.now();
const closer = opts.mode === 'h2' ? await runH2(tlsSocket) : await runH1(tlsSocket);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const sorted = latencies.subarray(0, ok).sort();
console.log(JSON.stringify({
    alpn, mode: opts.mode, concurrency, requests: done, ok, errors, bytes,
    seconds: Number(seconds.toFixed(4)),
    rps: Number((ok / seconds).toFixed(1)),
    p50_ms: quantile(sorted, 0.5), p99_ms: quantile(sorted, 0.99),
    client_cpu_s: (cpu.user + cpu.system) / 1e6,
    deadline_hit: deadlineHit, first_error: firstError,
}));
if (opts.mode === 'h2') closer.close(() => process.exit(0));
else { closer.destroy(); tlsSocket.destroy(); process.exit(0); }
