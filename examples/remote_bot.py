"""A remote bot to copy: answers rasklad's ``rasklad-act/1`` requests over HTTP, standard library only.

    python examples/remote_bot.py --port 8765

then name it in a spec: ``bots: [{remote: "http://127.0.0.1:8765/", label: mine}, order-poker/random, ...]``
(docs/remote-bots.md). Each POST holds the game, the rules, the seat, the view (plain JSON), the legal
actions in the game's JSON form and the step; the answer is ``{"action": <one of legal>}``. Replace
``choose`` with your strategy; it must answer within the spec's ``timeout_ms``.
"""

from __future__ import annotations

import argparse
import json
import random
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def choose(request: dict[str, Any]) -> Any:
    """The action to play: here, a uniform choice among the legal ones, seeded by the decision."""
    unit = request["unit"]
    rng = random.Random(f"{unit['job']}/{unit['deal']}/{unit['rotation']}/{request['step']}")
    return rng.choice(request["legal"])


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: one connection serves many decisions

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        if request.get("legal") is None:  # a game whose actions are too many to list: not handled here
            self._answer(422, {"error": "this bot needs the legal actions listed"})
            return
        self._answer(200, {"action": choose(request)})

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8765)
    args = ap.parse_args()
    ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
