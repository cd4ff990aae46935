#!/usr/bin/env python3
"""A small HTTP(S) server for the notification and publishing tests.

It listens on 127.0.0.1 on a port the system picks, writes that port to
--port-file (whole, through a rename), and records every request it receives
in --dir as it arrives:

    NNNN.request.json   {"method", "path", "headers": {lower-case name: value}, "body_bytes"}
    NNNN.body           the body as received
    NNNN.answered       the status it answers with, written just before the answer

(NNNN counts from 0001 in the order requests arrive.) Files are written
beside their final name and renamed, so a reader never sees half of one.

Modes (--mode):
    ok         answer 200 to everything
    fail:K     answer 500 to the first K requests, then 200
    status:C   answer C (e.g. 403) to everything
    hold       answer only once the file --dir/release exists (checked every
               20 ms; at most 10 minutes), then 200
    drop       close the connection without answering

--tls CERT KEY serves HTTPS with that certificate. The test stops the server
with SIGTERM.
"""
import argparse
import http.server
import json
import os
import signal
import socket
import ssl
import sys
import threading
import time


def write_whole(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


class Sink(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, handler, args):
        super().__init__(address, handler)
        self.args = args
        self.lock = threading.Lock()
        self.count = 0

    def next_number(self):
        with self.lock:
            self.count += 1
            return self.count


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def record(self, body):
        n = self.server.next_number()
        base = os.path.join(self.server.args.dir, "%04d" % n)
        write_whole(base + ".body", body)
        meta = {
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body_bytes": len(body),
        }
        write_whole(base + ".request.json", json.dumps(meta).encode())
        return n, base

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        n, base = self.record(body)
        mode = self.server.args.mode
        if mode == "drop":
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        status = 200
        if mode.startswith("fail:") and n <= int(mode.split(":", 1)[1]):
            status = 500
        elif mode.startswith("status:"):
            status = int(mode.split(":", 1)[1])
        elif mode == "hold":
            release = os.path.join(self.server.args.dir, "release")
            deadline = time.monotonic() + 600
            while not os.path.exists(release) and time.monotonic() < deadline:
                time.sleep(0.02)
        reply = (b'{"ok":true}' if status < 300 else b"sink answers %d" % status)
        # Recorded before the answer goes out: once the client has it, the
        # test may stop the server at any moment.
        write_whole(base + ".answered", str(status).encode())
        try:
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)
            self.wfile.flush()
        except OSError:
            pass  # the client gave up waiting

    do_POST = handle_any
    do_PUT = handle_any
    do_GET = handle_any


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dir", required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--mode", default="ok")
    p.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    args = p.parse_args()
    server = Sink(("127.0.0.1", 0), Handler, args)
    if args.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls[0], args.tls[1])
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    write_whole(args.port_file, str(server.server_address[1]).encode())
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
