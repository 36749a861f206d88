"""
``python3 -m determined.cli.tunnel MASTER_ADDR SERVICE_ID [--cert-file F|noverify] [--cert-name N]
[--listener PORT] [-u USER] [--auth]``: a TCP stream to a task's service (a shell's sshd) through the
master's proxy, as upstream's ``determined.cli.tunnel`` (same command line, same wire).

It opens a WebSocket to ``<master>/proxy/<SERVICE_ID>/`` (``ws://``, or ``wss://`` for an https
master; MASTER_ADDR is ``host:port`` or a URL) whose binary frames carry the raw bytes. Without
``--listener`` it pipes stdin to the service and the service to stdout, so that it serves as ssh's
ProxyCommand: ``ssh -o ProxyCommand="python3 -m determined.cli.tunnel MASTER %h" SERVICE_ID``. With
``--listener PORT`` it accepts TCP connections on 127.0.0.1:PORT and tunnels each over a WebSocket
of its own. Either side closing ends a tunnel.

TLS: ``--cert-file`` is a CA file, or ``noverify`` to skip verification; ``--cert-name`` is the
name the master's certificate is checked against. They default to DET_MASTER_CERT_FILE and
DET_MASTER_CERT_NAME (set inside tasks). ``--auth`` sends ``Authorization: Bearer $DET_USER_TOKEN``
(upstream reads its login cache instead, which this package does not have; ``-u`` is accepted for
upstream's command line and unused). Shells need no authentication: their SSH key is it.

Exit status: 0 when the tunnel ends; 1, with one line on stderr, when the WebSocket cannot be opened
(the master's HTTP status is named: 404 is an unknown service, 401 missing credentials).
"""
import argparse
import os
import socket
import ssl
import sys
import threading
from typing import Any, Callable, Dict, List, Optional

import websocket

CLOSE_WAIT_SECONDS = 5.0  # how long a tunnel that sent its close waits for the master's


class TunnelError(Exception):
    """The WebSocket could not be opened; the message is one line for the user."""


def websocket_url(master_addr: str, service_id: str) -> str:
    """``ws(s)://HOST:PORT[/PREFIX]/proxy/SERVICE_ID/`` for MASTER_ADDR ``host:port`` (http; https
    for port 443) or ``http(s)://`` / ``ws(s)://`` URL."""
    addr = master_addr.strip().rstrip("/")
    if "://" not in addr:
        addr = ("https://" if addr.endswith(":443") else "http://") + addr
    scheme, rest = addr.split("://", 1)
    schemes = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}
    if scheme.lower() not in schemes or not rest:
        raise TunnelError(f"MASTER_ADDR: expected host:port or an http(s):// URL, got {master_addr!r}")
    return f"{schemes[scheme.lower()]}://{rest}/proxy/{service_id}/"


def ssl_options(cert_file: Optional[str], cert_name: Optional[str]) -> Dict[str, Any]:
    """websocket-client's ``sslopt`` for a CA file (or ``noverify``) and a certificate name."""
    opts: Dict[str, Any] = {}
    if cert_file == "noverify":
        opts.update(cert_reqs=ssl.CERT_NONE, check_hostname=False)
    elif cert_file:
        opts["ca_certs"] = cert_file
    if cert_name:
        opts["server_hostname"] = cert_name
    return opts


def auth_headers(auth: bool, environ: Dict[str, str]) -> List[str]:
    """The handshake's extra headers: ``Authorization: Bearer $DET_USER_TOKEN`` with ``--auth``."""
    if not auth:
        return []
    token = environ.get("DET_USER_TOKEN")
    if not token:
        raise TunnelError("--auth: set DET_USER_TOKEN to your session token")
    return [f"Authorization: Bearer {token}"]


def connect(url: str, headers: List[str], sslopt: Dict[str, Any]) -> websocket.WebSocket:
    """Opens the WebSocket (30 s to connect, then blocking reads); raises TunnelError."""
    try:
        ws = websocket.create_connection(url, header=headers, sslopt=sslopt, timeout=30)
    except websocket.WebSocketBadStatusException as e:
        raise TunnelError(f"tunnel: the master answered HTTP {e.status_code} to {url} ({e})") from e
    except (OSError, websocket.WebSocketException) as e:
        raise TunnelError(f"tunnel: cannot open a WebSocket to {url}: {e}") from e
    ws.settimeout(None)
    return ws


def _drop(ws: websocket.WebSocket) -> None:
    """Shuts the connection down, which (unlike closing the socket) wakes a thread blocked on it."""
    sock = ws.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _close(ws: websocket.WebSocket) -> None:
    """Sends our close; if the master does not answer it in time, drops the connection."""
    try:
        ws.send_close()
    except Exception:  # already closed or broken: nothing left to say
        pass
    timer = threading.Timer(CLOSE_WAIT_SECONDS, _drop, args=(ws,))
    timer.daemon = True
    timer.start()


def relay(ws: websocket.WebSocket, read: Callable[[], bytes], write: Callable[[bytes], None]) -> None:
    """Copies ``read()`` into binary frames (on a thread of its own; b"" is the end) and received
    frames into ``write`` (on this thread) until either side ends; then closes the WebSocket."""

    def upstream() -> None:
        try:
            while True:
                data = read()
                if not data:
                    break
                ws.send_binary(data)
        except (OSError, websocket.WebSocketException):
            pass
        _close(ws)

    threading.Thread(target=upstream, daemon=True).start()
    try:
        while True:
            opcode, data = ws.recv_data()
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                break
            write(data.encode() if isinstance(data, str) else data)
    except (OSError, websocket.WebSocketException):
        pass
    finally:
        _drop(ws)
        ws.shutdown()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def serve_stdio(url: str, headers: List[str], sslopt: Dict[str, Any]) -> None:
    """One tunnel between stdin/stdout and the service, raw bytes, unbuffered."""
    ws = connect(url, headers, sslopt)
    relay(ws, lambda: os.read(0, 65536), lambda data: _write_all(1, data))


def serve_listener(port: int, url: str, headers: List[str], sslopt: Dict[str, Any]) -> None:
    """Accepts TCP connections on 127.0.0.1:``port`` forever and tunnels each on its own thread."""
    server = socket.create_server(("127.0.0.1", port))
    print(f"tunnel: listening on 127.0.0.1:{port} for {url}", file=sys.stderr, flush=True)

    def tunnel(conn: socket.socket) -> None:
        with conn:
            try:
                ws = connect(url, headers, sslopt)
            except TunnelError as e:
                print(e, file=sys.stderr, flush=True)
                return
            relay(ws, lambda: conn.recv(65536), conn.sendall)
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    while True:
        conn, _ = server.accept()
        threading.Thread(target=tunnel, args=(conn,), daemon=True).start()


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m determined.cli.tunnel", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("master_addr", help="the master: host:port or http(s)://host:port")
    parser.add_argument("service_id", help="the service: the task's id")
    parser.add_argument("--cert-file", help="CA file for the master's certificate, or noverify")
    parser.add_argument("--cert-name", help="the name the master's certificate is checked against")
    parser.add_argument("--listener", type=int, help="accept TCP connections on this local port")
    parser.add_argument("-u", "--user", help="accepted for upstream's command line; unused")
    parser.add_argument("--auth", action="store_true",
                        help="send Authorization: Bearer $DET_USER_TOKEN")
    args = parser.parse_args(argv)
    try:
        url = websocket_url(args.master_addr, args.service_id)
        headers = auth_headers(args.auth, dict(os.environ))
        sslopt = ssl_options(args.cert_file or os.environ.get("DET_MASTER_CERT_FILE"),
                             args.cert_name or os.environ.get("DET_MASTER_CERT_NAME"))
        if args.listener is not None:
            serve_listener(args.listener, url, headers, sslopt)
        else:
            serve_stdio(url, headers, sslopt)
    except TunnelError as e:
        print(e, file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
