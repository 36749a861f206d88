"""A backend for the proxy's tests and benchmark, run as a command on the cluster: an HTTP server on a free
port that reports ready with that port (so the master registers it at /proxy/{task id}/), with
  GET  /proxy/{id}/small          a few bytes
  GET  /proxy/{id}/bytes?n=N      N bytes, streamed in 1 MiB pieces (no Content-Length: chunked)
  POST /proxy/{id}/sha256         the SHA-256 and length of the body (Content-Length or chunked)
  GET  /proxy/{id}/headers        the request's headers as JSON
  GET  /proxy/{id}/ws             a WebSocket echo (RFC 6455, unmasked replies)
Standard library only; `--direct` prints the port instead of reporting ready (the benchmark's direct runs)."""
import base64
import getpass
import hashlib
import http.server
import json
import os
import socket
import socketserver
import struct
import sys
import urllib.request

CHUNK = b"x" * (1 << 20)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # small answers go out at once (no 40 ms delayed-ACK wait)

    def log_message(self, *args):
        pass

    def _reply(self, body: bytes, content_type="application/octet-stream"):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path, _, query = self.path.partition("?")
        if path.endswith("/small"):
            return self._reply(b"ok")
        if path.endswith("/headers"):
            return self._reply(json.dumps(dict(self.headers.items())).encode(), "application/json")
        if path.endswith("/bytes"):
            n = int(dict(p.split("=") for p in query.split("&") if p).get("n", "0"))
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            while n > 0:
                piece = CHUNK[:min(n, len(CHUNK))]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                n -= len(piece)
            self.wfile.write(b"0\r\n\r\n")
            return
        if path.endswith("/ws"):
            return self._websocket_echo()
        self.send_error(404)

    def do_POST(self):
        digest, size = hashlib.sha256(), 0
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                n = int(self.rfile.readline().split(b";")[0], 16)
                if n == 0:
                    self.rfile.readline()
                    break
                data = self.rfile.read(n)
                self.rfile.readline()
                digest.update(data)
                size += n
        else:
            left = int(self.headers.get("Content-Length", "0"))
            while left > 0:
                data = self.rfile.read(min(left, 1 << 20))
                digest.update(data)
                size += len(data)
                left -= len(data)
        self._reply(json.dumps({"sha256": digest.hexdigest(), "size": size}).encode(), "application/json")

    def _websocket_echo(self):
        accept = base64.b64encode(hashlib.sha1(self.headers["Sec-WebSocket-Key"].encode() +
                                               b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest()).decode()
        self.send_response(101)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept)
        self.end_headers()
        self.wfile.flush()
        while True:
            head = self.rfile.read(2)
            if len(head) < 2:
                return
            opcode, length = head[0] & 0x0F, head[1] & 0x7F
            if length == 126:
                length = struct.unpack(">H", self.rfile.read(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self.rfile.read(8))[0]
            mask = self.rfile.read(4) if head[1] & 0x80 else b"\0\0\0\0"
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(self.rfile.read(length)))
            if opcode == 8:
                return
            if length < 126:
                size = bytes([length])
            elif length < 1 << 16:
                size = bytes([126]) + struct.pack(">H", length)
            else:
                size = bytes([127]) + struct.pack(">Q", length)
            header = bytes([0x80 | opcode]) + size
            self.wfile.write(header + data)
            self.wfile.flush()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    server = Server(("0.0.0.0", 0), Handler)
    port = server.server_address[1]
    if "--direct" in sys.argv:
        print(port, flush=True)
    else:
        token = os.environ["DET_SESSION_TOKEN"]
        req = urllib.request.Request(
            f"{os.environ['DET_MASTER']}/api/v1/allocations/{os.environ['DET_ALLOCATION_ID']}/ready",
            data=json.dumps({"port": port, "user": getpass.getuser()}).encode(), method="POST",
            headers={"Content-Type": "application/json", "X-Allocation-Token": f"Bearer {token}"})
        urllib.request.urlopen(req, timeout=30).read()
        print(f"serving on port {port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
