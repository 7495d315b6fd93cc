#!/usr/bin/env python3
# devtools-record.py PORT OUTDIR — the devtools fuzzer's regression
# inputs recorded from a real Node inspector on 127.0.0.1:PORT (start
# one: node --inspect=127.0.0.1:PORT -e 'setInterval(()=>{},1000)'):
# the answer to GET /json/list, the WebSocket handshake's answer, the
# first 64 KiB of the frames of a heap snapshot (progress, chunks, the
# answer), and single messages out of them; each file begins with the
# fuzzer's mode byte (fuzz/drive_devtools.c).
import base64, json, os, socket, struct, sys

port, out = int(sys.argv[1]), sys.argv[2]

def talk(req, until_close=True):
    s = socket.create_connection(('127.0.0.1', port))
    s.sendall(req)
    data = b''
    s.settimeout(5)
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
            if not until_close and b'\r\n\r\n' in data:
                break
    except socket.timeout:
        pass
    return s, data

def save(name, mode, data):
    with open(os.path.join(out, name), 'wb') as f:
        f.write(bytes([mode]) + data)

s, listing = talk(b'GET /json/list HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n' % port)
s.close()
save('json-list', 0, listing)
body = listing.split(b'\r\n\r\n', 1)[1]
path = '/' + json.loads(body)[0]['webSocketDebuggerUrl'].split('/', 3)[3]
key = base64.b64encode(os.urandom(16))
s, hs = talk(b'GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n'
             b'Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n' % (path.encode(), port, key), False)
head, rest = hs.split(b'\r\n\r\n', 1)
save('handshake', 1, head + b'\r\n\r\n' + key + b'\n')

def send(text):
    p = text.encode()
    mask = os.urandom(4)
    h = bytes([0x81]) + (bytes([0x80 | len(p)]) if len(p) < 126 else bytes([0x80 | 126]) + struct.pack('>H', len(p)))
    s.sendall(h + mask + bytes(c ^ mask[i & 3] for i, c in enumerate(p)))

send('{"id":1,"method":"HeapProfiler.takeHeapSnapshot","params":{"reportProgress":true}}')
frames = rest
s.settimeout(10)
while b'"id":1,' not in frames[-200:]:
    b = s.recv(1 << 20)
    if not b:
        break
    frames += b
s.close()
save('frames', 2, frames[:65536])
save('frames-end', 2, frames[-65536:] if len(frames) > 65536 else frames)
# single messages: two of progress, the first chunk, the answer
at, kinds = 0, {}
while at + 2 <= len(frames):
    ln, h = frames[at + 1] & 127, 2
    if ln == 126:
        ln, h = struct.unpack('>H', frames[at + 2:at + 4])[0], 4
    elif ln == 127:
        ln, h = struct.unpack('>Q', frames[at + 2:at + 10])[0], 10
    payload = frames[at + h:at + h + ln]
    kind = 'chunk' if b'addHeapSnapshotChunk' in payload[:80] else \
        'progress' if b'Progress' in payload[:80] else 'answer'
    if kinds.get(kind, 0) < (2 if kind == 'progress' else 1) and len(payload) == ln and ln <= 131072:
        save('message-%s-%d' % (kind, kinds.get(kind, 0)), 3, payload)
        kinds[kind] = kinds.get(kind, 0) + 1
    at += h + ln
