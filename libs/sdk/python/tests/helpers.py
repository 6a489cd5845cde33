"""For the tests: the platform's credentials file, sales through the merchant API on real clicks,
a local receiver, and a TCP proxy that cuts connections."""
from __future__ import annotations

import json
import os
import socket
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Union

BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"


def credentials() -> Dict[str, Any]:
    with open(os.environ["CW_TEST_CREDENTIALS"], encoding="utf-8") as f:
        return json.load(f)


def base_url() -> str:
    return os.environ["CW_BASE_URL"]


def http_json(method: str, url: str, headers: Dict[str, str], body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    h = dict(headers)
    if data is not None:
        h["Content-Type"] = "application/json"
    with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method, headers=h), timeout=30) as res:
        return json.loads(res.read().decode() or "null")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def click(subid: str) -> str:
    """A reader's click on a new tracked link of ``subid`` (a browser's user agent)."""
    creds = credentials()
    key = creds["publishers"][0]["keys"]["live"]
    link = http_json("POST", f"{base_url()}/api/v1/publisher/links/", {"X-API-Key": key}, {"program_id": creds["fixtures"]["approved_program_id"], "subid": subid})
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(urllib.request.Request(link["url"], headers={"User-Agent": BROWSER_UA}), timeout=30)
        raise AssertionError("the tracked link did not redirect")
    except urllib.error.HTTPError as e:
        location = e.headers.get("Location", "")
    marker = location.index("clk_")
    end = marker
    while end < len(location) and (location[end].isalnum() or location[end] in "_-"):
        end += 1
    return location[marker:end]


def report_sale(click_id: str, amount: str = "89.90") -> str:
    token = credentials()["fixtures"]["merchant_token"]
    order = f"PY-{time.time_ns()}"
    body = http_json("POST", f"{base_url()}/api/v1/track/conversions/", {"Authorization": f"Bearer {token}"}, {"click_id": click_id, "order_id": order, "amount": amount, "currency": "EUR"})
    return body["id"]


def set_sale_status(conversion_id: str, status: str) -> None:
    token = credentials()["fixtures"]["merchant_token"]
    http_json("PATCH", f"{base_url()}/api/v1/track/conversions/{conversion_id}/", {"Authorization": f"Bearer {token}"}, {"status": status})


def until(f: Callable[[], Any], seconds: float = 15.0) -> Any:
    end = time.time() + seconds
    while True:
        value = f()
        if value is not None:
            return value
        if time.time() > end:
            raise AssertionError("timed out")
        time.sleep(0.05)


class Receiver:
    """A local HTTP server recording every request (method, path, headers, raw body)."""

    def __init__(self) -> None:
        self.received: List[Dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                outer.received.append({"path": self.path, "headers": self.headers, "body": body})
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


Plan = Union[None, str, Callable[[bytes], bool]]


class CutProxy:
    """A TCP proxy to the platform that can cut a connection: ``plan(head)`` per connection returns
    None (pass), "drop" (cut before any of the answer reaches the client) or a predicate on the
    bytes forwarded so far (cut once it holds)."""

    def __init__(self, target: str) -> None:
        host, port = target.split("://", 1)[1].split(":")
        self.target = (host, int(port.rstrip("/")))
        self.requests: List[str] = []
        self.plan: Callable[[str], Plan] = lambda head: None
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        upstream = socket.create_connection(self.target)
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = client.recv(65536)
            if not chunk:
                client.close()
                upstream.close()
                return
            head += chunk
            upstream.sendall(chunk)
        text = head.split(b"\r\n\r\n", 1)[0].decode("latin-1")
        self.requests.append(text)
        plan = self.plan(text)

        def pump_up() -> None:
            try:
                while True:
                    chunk = client.recv(65536)
                    if not chunk:
                        break
                    upstream.sendall(chunk)
            except OSError:
                pass

        threading.Thread(target=pump_up, daemon=True).start()
        forwarded = b""
        try:
            while True:
                chunk = upstream.recv(65536)
                if not chunk or plan == "drop":
                    break
                client.sendall(chunk)
                if callable(plan):
                    forwarded += chunk
                    if plan(forwarded):
                        break
        except OSError:
            pass
        for s in (client, upstream):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self._closed = True
        self.sock.close()
