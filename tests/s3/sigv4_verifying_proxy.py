#!/usr/bin/env python3
"""A drop-in for s3rver that also checks signatures. s3rver 3.7.1 checks a SigV4 request's access key
id but not its signature, so a wrong signature passes there. This proxy recomputes every signed
request's signature with botocore (secret S3RVER, as s3rver's default account) and checks its
x-amz-content-sha256 against the body; a mismatch is a 403 SignatureDoesNotMatch, anything else is
forwarded to a real s3rver it starts with the same arguments. It prints s3rver's "S3rver listening
on 127.0.0.1:PORT" line, so the s3 tests run against it unchanged (needs botocore):

  S3RVER=tests/s3/sigv4_verifying_proxy.py build/tests/s3_storage_test
  S3RVER=$PWD/tests/s3/sigv4_verifying_proxy.py python3 -m pytest tests/e2e/test_s3_storage.py

(s3_storage_test's WrongCredentialsAreAClearError then fails as intended: the proxy answers
SignatureDoesNotMatch where s3rver says InvalidAccessKeyId.) Verified requests are counted in the
file named by SIGV4_PROXY_LOG, if set."""
import hashlib
import http.server
import os
import pathlib
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

SECRET = "S3RVER"
AUTH = re.compile(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/s3/aws4_request,"
                  r"SignedHeaders=([^,]+),Signature=([0-9a-f]{64})$")
MISMATCH = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SignatureDoesNotMatch</Code><Message>'
            b'The request signature we calculated does not match the signature you provided (verified by '
            b'botocore in sigv4_verifying_proxy.py).</Message></Error>')

real = os.environ.get("REAL_S3RVER") or str(pathlib.Path(__file__).resolve().parent / "node_modules/.bin/s3rver")
backend = subprocess.Popen([real, *sys.argv[1:]], stdout=subprocess.PIPE, text=True,
                           env=dict(os.environ, NODE_OPTIONS="--openssl-legacy-provider"))
line = ""
while "listening" not in line:
    line = backend.stdout.readline()
    if not line and backend.poll() is not None:
        sys.exit(f"s3rver ({real}) exited at start")
backend_port = re.search(r":(\d+)\s*$", line).group(1)
threading.Thread(target=lambda: [None for _ in backend.stdout], daemon=True).start()
signal.signal(signal.SIGTERM, lambda *_: (backend.terminate(), os._exit(0)))
log = open(os.environ["SIGV4_PROXY_LOG"], "a", buffering=1) if os.environ.get("SIGV4_PROXY_LOG") else None


def signature_ok(handler, body):
    m = AUTH.match(handler.headers.get("Authorization", ""))
    if not m:
        return False
    signed = m.group(4).split(";")
    headers = {k: v for k, v in handler.headers.items() if k.lower() in signed}
    req = AWSRequest(method=handler.command, url="http://" + handler.headers["Host"] + handler.path,
                     headers=headers, data=body)
    req.context["timestamp"] = handler.headers.get("x-amz-date", "")
    auth = S3SigV4Auth(Credentials(m.group(1), SECRET), "s3", m.group(3))
    want = auth.signature(auth.string_to_sign(req, auth.canonical_request(req)), req)
    payload = handler.headers.get("x-amz-content-sha256")
    return want == m.group(5) and payload in ("UNSIGNED-PAYLOAD", hashlib.sha256(body).hexdigest())


class Handler(http.server.BaseHTTPRequestHandler):
    def forward(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        status, data = 0, b""
        if "Authorization" in self.headers and not signature_ok(self, body):
            status, data = 403, MISMATCH
            if log:
                log.write(f"MISMATCH {self.command} {self.path}\n")
        else:
            if log and "Authorization" in self.headers:
                log.write(f"verified {self.command} {self.path}\n")
            headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
            req = urllib.request.Request(f"http://127.0.0.1:{backend_port}{self.path}", method=self.command,
                                         data=body if self.command == "PUT" else None, headers=headers)
            try:
                with urllib.request.urlopen(req) as resp:
                    status, data = resp.status, resp.read()
            except urllib.error.HTTPError as e:
                status, data = e.code, e.read()
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_PUT = do_DELETE = do_HEAD = do_POST = forward

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"S3rver listening on 127.0.0.1:{server.server_address[1]}", flush=True)
try:
    server.serve_forever()
finally:
    backend.terminate()
