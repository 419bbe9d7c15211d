"""A real local HTTP server speaking /v1/chat/completions, and the bodies it plays.

The `provider` fixture (tests/bounded/conftest.py) starts one on 127.0.0.1 and points the
environment's key and base URL at it.
"""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def completion(content=None, calls=(), tokens=7):
    """A chat-completions body; ``calls`` are (id, name, arguments text) triples."""
    message = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
            for call_id, name, arguments in calls
        ]
    return {
        "id": "chatcmpl-local",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-test",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
        "usage": {"prompt_tokens": 50, "completion_tokens": tokens, "total_tokens": 50 + tokens},
    }


def reply(body, status=200, delay=0.0, headers=()):
    encoded = body if isinstance(body, bytes) else json.dumps(body).encode()
    return {"status": status, "body": encoded, "delay": delay, "headers": dict(headers)}


class LocalProvider:
    """Plays one planned reply per POST and records each request's path, headers and JSON body."""

    def __init__(self):
        self.replies = []
        self.requests = []
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                headers = {name.lower(): value for name, value in self.headers.items()}
                provider.requests.append({"path": self.path, "headers": headers, "body": body})
                planned = (
                    provider.replies.pop(0)
                    if provider.replies
                    else reply({"error": "unplanned"}, 500)
                )
                time.sleep(planned["delay"])
                try:
                    self.send_response(planned["status"])
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(planned["body"])))
                    for name, value in planned["headers"].items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(planned["body"])
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting, as a timed-out client does

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_port}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
