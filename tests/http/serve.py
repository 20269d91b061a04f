#!/usr/bin/env python3
"""Serves recorded HTTP responses on 127.0.0.1 for integration tests (standard library only).

Usage: serve.py --routes ROUTES.json --port-file FILE [--tls-cert CERT --tls-key KEY] [--log FILE]

Binds 127.0.0.1 port 0, writes the chosen port to FILE once listening and serves until killed.
ROUTES.json is an array of routes, matched in order, first match wins:
  {"path": "/x", "query": {"k": "v"}, "header": {"Name": "value"}, "status": 200,
   "body_file": "relative/to/routes/dir" | "body": "text", "content_type": "application/json",
   "delay_s": 0, "truncate": N, "times": N}
"prefix": true makes "path" a prefix: the route answers every path that starts with it.
"query": every listed parameter must be present with that value, else the route does not match.
"header": every listed header must be present with that value, else the answer is 401.
"if_header": the route only applies to requests carrying these headers with these values.
"delay_s": sleep before answering (timeouts). "truncate": send only the first N bytes of the body,
with a Content-Length of the whole body, then close. "times": the route matches only N times.
Unmatched requests get 404 with a JSON body. The log holds header names only, never values,
because requests may carry credentials.
"""
import argparse
import json
import os
import signal
import ssl
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def load_routes(path):
    with open(path, encoding="utf-8") as f:
        routes = json.load(f)
    if not isinstance(routes, list):
        raise SystemExit(f"{path}: expected a JSON array of routes")
    base = os.path.dirname(os.path.abspath(path))
    for i, r in enumerate(routes):
        if not isinstance(r, dict) or "path" not in r:
            raise SystemExit(f"{path}: route {i} needs a \"path\"")
        if "body_file" in r:
            with open(os.path.join(base, r["body_file"]), "rb") as f:
                r["_body"] = f.read()
        else:
            r["_body"] = str(r.get("body", "")).encode("utf-8")
        r["_left"] = r.get("times")  # None: unlimited
    return routes


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "attribution-test-serve/1"

    def log_message(self, fmt, *args):  # quiet stderr; the --log file is the record
        pass

    def _log(self):
        if not self.server.log_path:
            return
        names = ",".join(sorted(self.headers.keys(), key=str.lower))
        line = f"{self.command} {self.path} headers={names}\n"
        with self.server.lock:
            with open(self.server.log_path, "a", encoding="utf-8") as f:
                f.write(line)

    def _match(self, path, query):
        """The first matching route and the name of a required header that is missing or wrong.
        A request refused for its headers does not use up one of the route's "times"."""
        with self.server.lock:
            for r in self.server.routes:
                if r.get("prefix") and not path.startswith(r["path"]):
                    continue
                if not r.get("prefix") and r["path"] != path:
                    continue
                want = r.get("query") or {}
                if any(query.get(k, [None])[0] != str(v) for k, v in want.items()):
                    continue
                if r["_left"] is not None and r["_left"] <= 0:
                    continue
                # "if_header": the route is for requests carrying these headers only (others go on).
                if any(self.headers.get(n) != str(v) for n, v in (r.get("if_header") or {}).items()):
                    continue
                for name, value in (r.get("header") or {}).items():
                    if self.headers.get(name) != str(value):
                        return r, name
                if r["_left"] is not None:
                    r["_left"] -= 1
                return r, None
        return None, None

    def _send(self, status, body, content_type, truncate=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if truncate is not None:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command == "HEAD":
            return
        try:
            self.wfile.write(body if truncate is None else body[:truncate])
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout); nothing to tell it
        if truncate is not None:
            self.close_connection = True

    def _handle(self):
        self._log()
        parsed = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(parsed.query, keep_blank_values=True)
        route, bad_header = self._match(parsed.path, query)
        if route is None:
            body = json.dumps({"error": "no route matches", "path": parsed.path}).encode()
            self._send(404, body, "application/json")
            return
        if bad_header is not None:
            body = json.dumps({"error": f"missing or wrong header {bad_header}"}).encode()
            self._send(401, body, "application/json")
            return
        delay = float(route.get("delay_s", 0) or 0)
        if delay > 0:
            time.sleep(delay)
        self._send(int(route.get("status", 200)), route["_body"],
                   route.get("content_type", "application/json"), route.get("truncate"))

    def do_GET(self):
        self._handle()

    def do_HEAD(self):
        self._handle()

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self._handle()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--routes", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    ap.add_argument("--log")
    args = ap.parse_args()
    if bool(args.tls_cert) != bool(args.tls_key):
        raise SystemExit("--tls-cert and --tls-key go together")

    # socketserver's default backlog of 5 drops connections when a client opens many at once (a
    # source's parallel fetch); a dropped SYN costs a second's retransmit.
    ThreadingHTTPServer.request_queue_size = 128
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True  # a stalled route must not keep the process alive on SIGTERM
    server.routes = load_routes(args.routes)
    server.lock = threading.Lock()
    server.log_path = args.log
    if args.tls_cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls_cert, args.tls_key)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)

    # Write the port atomically so a waiting script never reads a half-written file.
    tmp = args.port_file + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(f"{server.server_address[1]}\n")
    os.replace(tmp, args.port_file)

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
