// fake_inspector.js PORT TARGET_HOST READY — a process that is not the
// target posing as its inspector (review of node.c): it listens on
// 127.0.0.1:PORT, the port the target's inspector has on TARGET_HOST
// (127.0.0.2), and for each connection from our port E it has the
// target hold a connection with the same two ports (from
// 127.0.0.5:E to TARGET_HOST:PORT) before it answers: GET /json/list
// with a WebSocket URL of its own, then the snapshot asked for: its
// own heap's, which holds FakeThings and no LiveThing. READY is
// written once it listens.
'use strict';
const net = require('net');
const fs = require('fs');
const crypto = require('crypto');
const v8 = require('v8');

const port = Number(process.argv[2]), target = process.argv[3];
class FakeThing { constructor(i) { this.i = i; } }
globalThis.fakes = Array.from({ length: 7 }, (_, i) => new FakeThing(i));
const keep = [];

function frame(sock, text) {
	const p = Buffer.from(text);
	let h;
	if (p.length < 126) h = Buffer.from([0x81, p.length]);
	else if (p.length < 65536) { h = Buffer.alloc(4); h[0] = 0x81; h[1] = 126; h.writeUInt16BE(p.length, 2); }
	else { h = Buffer.alloc(10); h[0] = 0x81; h[1] = 127; h.writeBigUInt64BE(BigInt(p.length), 2); }
	sock.write(Buffer.concat([h, p]));
}

function answer(sock, req) {
	if (!/Upgrade: websocket/i.test(req)) {
		const body = JSON.stringify([{ webSocketDebuggerUrl: 'ws://127.0.0.1:' + port + '/fake' }]);
		sock.end('HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: ' +
			 Buffer.byteLength(body) + '\r\n\r\n' + body);
		return;
	}
	const key = /Sec-WebSocket-Key: *([^\r\n]*)/i.exec(req)[1];
	const accept = crypto.createHash('sha1').update(key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
	sock.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
		   'Sec-WebSocket-Accept: ' + accept + '\r\n\r\n');
	sock.once('data', () => { // the command
		const snap = v8.getHeapSnapshot();
		snap.setEncoding('utf8');
		snap.on('data', (chunk) => frame(sock, JSON.stringify({
			method: 'HeapProfiler.addHeapSnapshotChunk', params: { chunk } })));
		snap.on('end', () => frame(sock, JSON.stringify({ id: 1, result: {} })));
	});
}

net.createServer((sock) => {
	keep.push(sock);
	sock.on('error', () => {});
	let req = '', held = false;
	const ready = () => { if (held && req.includes('\r\n\r\n')) { answer(sock, req); req = ''; held = 'done'; } };
	sock.on('data', (d) => { if (held !== 'done') { req += d; ready(); } });
	const back = net.connect({ host: target, port, localAddress: '127.0.0.5', localPort: sock.remotePort },
				 () => { held = true; ready(); });
	back.on('error', () => { held = true; ready(); });
	keep.push(back);
}).listen(port, '127.0.0.1', () => fs.writeFileSync(process.argv[4], ''));
setTimeout(() => {}, 120000);
