"""Tiny scripted OpenAI-compatible fake server (stdlib only, 127.0.0.1 only).

Endpoints:
  POST /v1/chat/completions   (non-streaming and stream=true SSE)
  POST /v1/responses          (non-streaming only)
  GET  /v1/models

The reply is chosen from a SCRIPT by counting how many tool results are
already in the request (stateless, so every request carries the full history):

  scenario "basic" (default):
     call 1 -> two parallel tool calls read_file(a.py), read_file(b.py)
     call 2 -> final text answer
  scenario "multi" (used when the requested model name contains "multi"):
     call 1 -> parallel read_file(a.py), read_file(b.py)
     call 2 -> single tool call list_files(directory=".")
     call 3 -> final text answer

Usage in tests:
    from fake_openai import start_server
    server, base_url = start_server()      # base_url = "http://127.0.0.1:PORT/v1"
    ...
    server.shutdown()

CLI:  python fake_openai.py [port]
Every request body is appended to server.requests (list of (path, json)).
"""
from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FINAL_TEXT = (
    "a.py defines `add(x, y)` returning x + y. I could not read b.py "
    "(the tool reported that it does not exist), so I cannot describe it."
)
FINAL_TEXT_MULTI = (
    "a.py defines `add(x, y)`. b.py could not be read (error). "
    "The directory contains a.py and README.md, so b.py is missing."
)

SCRIPTS = {
    "basic": [
        [("call_a_001", "read_file", {"path": "a.py"}),
         ("call_b_002", "read_file", {"path": "b.py"})],
        FINAL_TEXT,
    ],
    "multi": [
        [("call_a_001", "read_file", {"path": "a.py"}),
         ("call_b_002", "read_file", {"path": "b.py"})],
        [("call_ls_003", "list_files", {"directory": "."})],
        FINAL_TEXT_MULTI,
    ],
}


# "notes" (the model name contains "notes"): make_notes_app.py's scenario, chosen by the number
# of replies already in the request, so a request that lost a tool result still gets the answer
NOTES_TEXT = ("notes.md came back empty, so there is nothing to summarise there. todo.txt "
              "lists three items, one of them done.")
SCRIPTS["notes"] = [
    [("call_notes_001", "read_file", {"path": "notes.md"}),
     ("call_todo_002", "read_file", {"path": "todo.txt"})],
    NOTES_TEXT,
]


def scenario_for(model: str) -> str:
    for name in ("multi", "notes"):
        if name in (model or ""):
            return name
    return "basic"


def pick_step(script, n_tool_results: int):
    """Return the script entry to answer with, given how many tool results exist."""
    seen = 0
    for step in script:
        if isinstance(step, str):
            return step
        if n_tool_results < seen + len(step):
            return step
        seen += len(step)
    return script[-1]


def _tok(obj) -> int:
    return max(1, len(json.dumps(obj)) // 4)


_counter = {"n": 0}
_lock = threading.Lock()


def _next_id() -> int:
    with _lock:
        _counter["n"] += 1
        return _counter["n"]


# ---------------------------------------------------------------- chat completions
def chat_reply(body: dict) -> dict:
    model = body.get("model", "fake-model")
    msgs = body.get("messages", [])
    n_tool = sum(1 for m in msgs if m.get("role") == "tool")
    if scenario_for(model) == "notes":
        step = SCRIPTS["notes"][min(1, sum(m.get("role") == "assistant" for m in msgs))]
    else:
        step = pick_step(SCRIPTS[scenario_for(model)], n_tool)
    if isinstance(step, str):
        message = {"role": "assistant", "content": step, "refusal": None}
        finish = "stop"
    else:
        message = {
            "role": "assistant",
            "content": None,
            "refusal": None,
            "tool_calls": [
                {"id": cid, "type": "function",
                 "function": {"name": name, "arguments": json.dumps(args)}}
                for cid, name, args in step
            ],
        }
        finish = "tool_calls"
    pt, ct = _tok(msgs), _tok(message)
    return {
        "id": f"chatcmpl-fake{_next_id():04d}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": "fp_fake",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct,
                  "prompt_tokens_details": {"cached_tokens": 0},
                  "completion_tokens_details": {"reasoning_tokens": 0}},
    }


def chat_stream_chunks(resp: dict, include_usage: bool):
    base = {k: resp[k] for k in ("id", "created", "model", "system_fingerprint")}
    base["object"] = "chat.completion.chunk"
    msg = resp["choices"][0]["message"]
    yield {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}
    if msg.get("content"):
        text = msg["content"]
        for i in range(0, len(text), 40):
            yield {**base, "choices": [{"index": 0, "delta": {"content": text[i:i + 40]}, "finish_reason": None}]}
    for idx, tc in enumerate(msg.get("tool_calls") or []):
        yield {**base, "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": idx, "id": tc["id"], "type": "function",
             "function": {"name": tc["function"]["name"], "arguments": ""}}]}, "finish_reason": None}]}
        yield {**base, "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": idx, "function": {"arguments": tc["function"]["arguments"]}}]}, "finish_reason": None}]}
    yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": resp["choices"][0]["finish_reason"]}]}
    if include_usage:
        yield {**base, "choices": [], "usage": resp["usage"]}


# ---------------------------------------------------------------- responses API
def responses_reply(body: dict) -> dict:
    model = body.get("model", "fake-model")
    inp = body.get("input", [])
    if isinstance(inp, str):
        inp = [{"role": "user", "content": inp}]
    n_tool = sum(1 for it in inp if isinstance(it, dict) and it.get("type") == "function_call_output")
    step = pick_step(SCRIPTS[scenario_for(model)], n_tool)
    rid = _next_id()
    if isinstance(step, str):
        output = [{
            "type": "message", "id": f"msg_fake{rid:04d}", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": step, "annotations": [], "logprobs": []}],
        }]
    else:
        output = [{
            "type": "function_call", "id": f"fc_fake{rid:04d}_{i}", "call_id": cid, "name": name,
            "arguments": json.dumps(args), "status": "completed",
        } for i, (cid, name, args) in enumerate(step)]
    it, ot = _tok(inp) + _tok(body.get("instructions") or ""), _tok(output)
    return {
        "id": f"resp_fake{rid:04d}",
        "object": "response",
        "created_at": time.time(),
        "status": "completed",
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "model": model,
        "output": output,
        "parallel_tool_calls": body.get("parallel_tool_calls", True) if body.get("parallel_tool_calls") is not None else True,
        "previous_response_id": body.get("previous_response_id"),
        "reasoning": {"effort": None, "summary": None},
        "store": bool(body.get("store", False)),
        "temperature": body.get("temperature", 1.0),
        "text": {"format": {"type": "text"}},
        "tool_choice": body.get("tool_choice") or "auto",
        "tools": body.get("tools") or [],
        "top_p": body.get("top_p", 1.0),
        "truncation": "disabled",
        "usage": {"input_tokens": it, "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": ot, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": it + ot},
        "user": None,
        "metadata": {},
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def _send_json(self, obj, code=200):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            return self._send_json({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
        self._send_json({"error": {"message": "not found"}}, 404)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.server.requests.append((self.path, body))
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/chat/completions"):
            resp = chat_reply(body)
            if body.get("stream"):
                include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                for ch in chat_stream_chunks(resp, include_usage):
                    self.wfile.write(b"data: " + json.dumps(ch).encode() + b"\n\n")
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True
                return
            return self._send_json(resp)
        if path.endswith("/responses"):
            if body.get("stream"):
                return self._send_json({"error": {"message": "fake server: streaming responses not supported"}}, 400)
            return self._send_json(responses_reply(body))
        self._send_json({"error": {"message": f"unknown path {self.path}"}}, 404)


def start_server(port: int = 0):
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.requests = []
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8765
    srv, url = start_server(port)
    print("fake OpenAI server at", url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.shutdown()
