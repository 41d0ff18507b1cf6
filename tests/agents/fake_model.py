#!/usr/bin/env python3
"""A fake model server for end-to-end tests of real agent CLIs (Claude Code, Codex).

Python 3 standard library only. It listens on 127.0.0.1 (never another address) on an
ephemeral port, answers from a script, logs every request, and exits by itself.

Usage:
  fake_model.py SCRIPT.json --port-file PORT_FILE [--log LOG.jsonl] [--lifetime 300]

PORT_FILE gets the port (written atomically once the socket listens); the port is also
printed on stdout. The server exits after --lifetime seconds (default 300), when its
parent process dies, or on SIGTERM/SIGINT.

APIs spoken:
  Anthropic Messages (Claude Code): HEAD /, POST /v1/messages (SSE when "stream": true,
    else one JSON message), POST /v1/messages/count_tokens.
  OpenAI Responses (Codex): POST /v1/responses (SSE), GET /v1/models.

Which agent a request belongs to (the CLIs never forward the agent's environment):
  1. the header `x-reviewhost-agent: NAME` when present (Claude:
     ANTHROPIC_CUSTOM_HEADERS="x-reviewhost-agent: NAME"; Codex:
     http_headers = { "x-reviewhost-agent" = "NAME" } in its [model_providers.X] table);
  2. else the first agent of the script, in script order, whose `match` string (default:
     the agent's name) occurs in the system prompt (Anthropic `system`; OpenAI
     `instructions` plus the text of `input` messages whose role is developer or system,
     where Codex puts `model_instructions_file`) and whose `prompt` string, if it has
     one, occurs in the user's messages (so a call asked again, with the reason in its
     prompt, can be scripted apart from the first: a stateless server sees both as new);
  3. else the script's "default" agent if it names one;
  4. else the request is answered with HTTP 500 and an error naming the rule.

Which turn to play (stateless): the number of assistant turns already in the request's
conversation. An assistant turn is a run of consecutive assistant-made items: Anthropic
messages with role "assistant"; OpenAI `input` items that are assistant messages,
function_call, custom_tool_call, local_shell_call or reasoning items.

Script (JSON):
  {"default": "NAME",                      # optional
   "agents": {
     "NAME": {"match": "text in the system prompt",     # optional
              "prompt": "text in a user message",       # optional
              "turns": [TURN, ...]}}}                  # or just a list of TURNs
  or, for an agent called afresh with the same prompt each time (the plan gate's
  overviewer), "conversations": [[TURN, ...], ...] in place of "turns": the Nth
  request that opens a conversation (no assistant turn yet) plays the Nth list, and the
  requests that continue it play on in that list (the one stateful rule).
  TURN is one of
   {"text": "final answer"}
   {"text": "optional preamble", "tools": [{"name": "Read", "input": {...}}, ...]}
       Anthropic: tool_use blocks. OpenAI: function_call items with `arguments` =
       JSON of `input`; with "custom": true a custom_tool_call whose `input` is the
       string `input` (Codex's freeform apply_patch).
   {"error": {"status": 400, "message": "...", "type": "invalid_request_error"}}
       HTTP status with the API's error body ("body": {...} replaces the body whole).
  Any TURN may also have "usage": {"input_tokens": N, "output_tokens": N,
  "cache_read_input_tokens": N, "cache_creation_input_tokens": N} (defaults 100/20/0/0)
  and "sleep": seconds before answering. A turn past the end of the list answers the text
  "fake model: no turn N scripted for agent NAME".

Log: one JSON object per request, appended to LOG.jsonl:
  {"ts", "method", "path", "headers", "agent", "turn", "api", "body"}
where body is the parsed JSON body (or null). Helper functions to read it for tests are
at the end of this file (`read_log`, `system_text`, `tool_names`).
"""
import argparse
import json
import os
import signal
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_USAGE = {
    "input_tokens": 100,
    "output_tokens": 20,
    "cache_read_input_tokens": 0,
    "cache_creation_input_tokens": 0,
}
AGENT_HEADER = "x-reviewhost-agent"
OPENAI_ASSISTANT_ITEMS = {
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "reasoning",
    "web_search_call",
}


def load_script(path):
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    agents = {}
    for name, spec in raw.get("agents", {}).items():
        if isinstance(spec, list):
            spec = {"turns": spec}
        agents[name] = {"match": spec.get("match", name), "prompt": spec.get("prompt"),
                        "turns": spec.get("turns", []), "conversations": spec.get("conversations")}
    return {"default": raw.get("default"), "agents": agents}


def system_text(api, body):
    """The system prompt of a request body, as one string."""
    if not isinstance(body, dict):
        return ""
    if api == "anthropic":
        system = body.get("system", "")
        if isinstance(system, list):
            return "\n".join(b.get("text", "") for b in system if isinstance(b, dict))
        return system or ""
    # Codex sends `instructions` and/or puts them (model_instructions_file, AGENTS.md,
    # skills) in "developer" messages of `input`.
    instructions = body.get("instructions") or ""
    return "\n".join(p for p in [instructions, messages_text(body.get("input"), ("developer", "system"))] if p)


def user_text(api, body):
    """The text of a request's user messages, as one string."""
    if not isinstance(body, dict):
        return ""
    return messages_text(body.get("messages" if api == "anthropic" else "input"), ("user",))


def messages_text(items, roles):
    """The text of the messages in `items` whose role is one of `roles` (a message's
    content is a string or a list of blocks with `text`)."""
    parts = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or item.get("role") not in roles:
            continue
        content = item.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(c.get("text", "") for c in content if isinstance(c, dict))
    return "\n".join(p for p in parts if p)


def count_assistant_turns(api, body):
    if api == "anthropic":
        items = body.get("messages", [])
        is_assistant = [m.get("role") == "assistant" for m in items if isinstance(m, dict)]
    else:
        items = body.get("input", [])
        if not isinstance(items, list):
            return 0
        is_assistant = []
        for item in items:
            if not isinstance(item, dict):
                continue
            kind = item.get("type", "message")
            is_assistant.append(
                (kind == "message" and item.get("role") == "assistant")
                or kind in OPENAI_ASSISTANT_ITEMS
            )
    turns, previous = 0, False
    for flag in is_assistant:
        if flag and not previous:
            turns += 1
        previous = flag
    return turns


def pick_agent(script, headers, api, body):
    name = headers.get(AGENT_HEADER)
    if name:
        return name.strip()
    system = system_text(api, body)
    user = None
    for name, spec in script["agents"].items():
        if not (spec["match"] and spec["match"] in system):
            continue
        if spec["prompt"]:
            user = user_text(api, body) if user is None else user
            if spec["prompt"] not in user:
                continue
        return name
    return script["default"]


def sse(event, data):
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def chunks(text, size=40):
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def anthropic_events(turn, model):
    usage = dict(DEFAULT_USAGE, **turn.get("usage", {}))
    msg_id = "msg_" + uuid.uuid4().hex[:24]
    content = []
    if turn.get("text"):
        content.append({"type": "text", "text": turn["text"]})
    for call in turn.get("tools", []):
        content.append(
            {
                "type": "tool_use",
                "id": call.get("id") or "toolu_" + uuid.uuid4().hex[:24],
                "name": call["name"],
                "input": call.get("input", {}),
            }
        )
    stop_reason = "tool_use" if turn.get("tools") else "end_turn"
    start_usage = dict(usage, output_tokens=1)
    message = {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    events = [sse("message_start", {"type": "message_start", "message": message})]
    for index, block in enumerate(content):
        if block["type"] == "text":
            events.append(
                sse(
                    "content_block_start",
                    {"type": "content_block_start", "index": index,
                     "content_block": {"type": "text", "text": ""}},
                )
            )
            for piece in chunks(block["text"]):
                events.append(
                    sse(
                        "content_block_delta",
                        {"type": "content_block_delta", "index": index,
                         "delta": {"type": "text_delta", "text": piece}},
                    )
                )
        else:
            events.append(
                sse(
                    "content_block_start",
                    {"type": "content_block_start", "index": index,
                     "content_block": {"type": "tool_use", "id": block["id"],
                                       "name": block["name"], "input": {}}},
                )
            )
            for piece in chunks(json.dumps(block["input"])):
                events.append(
                    sse(
                        "content_block_delta",
                        {"type": "content_block_delta", "index": index,
                         "delta": {"type": "input_json_delta", "partial_json": piece}},
                    )
                )
        events.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        sse(
            "message_delta",
            {"type": "message_delta",
             "delta": {"stop_reason": stop_reason, "stop_sequence": None},
             "usage": {"output_tokens": usage["output_tokens"]}},
        )
    )
    events.append(sse("message_stop", {"type": "message_stop"}))
    whole = dict(message, content=content, stop_reason=stop_reason, usage=usage)
    return events, whole


def openai_events(turn, model):
    usage = dict(DEFAULT_USAGE, **turn.get("usage", {}))
    resp_id = "resp_" + uuid.uuid4().hex[:24]
    items = []
    if turn.get("text"):
        items.append(
            {"type": "message", "id": "msg_" + uuid.uuid4().hex[:24], "role": "assistant",
             "status": "completed",
             "content": [{"type": "output_text", "text": turn["text"], "annotations": []}]}
        )
    for call in turn.get("tools", []):
        call_id = call.get("id") or "call_" + uuid.uuid4().hex[:24]
        if call.get("custom"):
            items.append(
                {"type": "custom_tool_call", "id": "ctc_" + uuid.uuid4().hex[:24],
                 "status": "completed", "call_id": call_id, "name": call["name"],
                 "input": call.get("input", "")}
            )
        else:
            items.append(
                {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:24],
                 "status": "completed", "call_id": call_id, "name": call["name"],
                 "arguments": json.dumps(call.get("input", {}))}
            )
    response = {"id": resp_id, "object": "response", "created_at": int(time.time()),
                "status": "in_progress", "model": model, "output": []}
    events = [sse("response.created", {"type": "response.created", "response": response})]
    for index, item in enumerate(items):
        events.append(
            sse("response.output_item.added",
                {"type": "response.output_item.added", "output_index": index,
                 "item": dict(item, status="in_progress")})
        )
        if item["type"] == "message":
            for piece in chunks(item["content"][0]["text"]):
                events.append(
                    sse("response.output_text.delta",
                        {"type": "response.output_text.delta", "item_id": item["id"],
                         "output_index": index, "content_index": 0, "delta": piece})
                )
        events.append(
            sse("response.output_item.done",
                {"type": "response.output_item.done", "output_index": index, "item": item})
        )
    cached = usage["cache_read_input_tokens"]
    total_in = usage["input_tokens"] + cached
    completed = dict(
        response,
        status="completed",
        output=items,
        usage={
            "input_tokens": total_in,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": usage["output_tokens"],
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": total_in + usage["output_tokens"],
        },
    )
    events.append(sse("response.completed", {"type": "response.completed", "response": completed}))
    return events


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-model/1"

    def log_message(self, fmt, *args):  # quiet: the JSONL log is the record
        pass

    # --- plumbing -------------------------------------------------------------------
    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.headers.get("Content-Encoding", "").lower() == "zstd":
            return raw, None  # not decodable with the standard library; logged as such
        try:
            return raw, json.loads(raw) if raw else None
        except ValueError:
            return raw, None

    def record(self, api, body, agent=None, turn=None, raw=b""):
        entry = {
            "ts": time.time(),
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()
                        if k.lower() not in ("authorization", "x-api-key")},
            "api": api,
            "agent": agent,
            "turn": turn,
            "body": body,
        }
        if body is None and raw:
            entry["raw_bytes"] = len(raw)
        line = json.dumps(entry) + "\n"
        with self.server.log_lock:
            with open(self.server.log_path, "a", encoding="utf-8") as f:
                f.write(line)

    def send_json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status >= 400:
            self.send_header("x-should-retry", "false")
        self.end_headers()
        self.wfile.write(data)

    def send_sse(self, events):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for event in events:
            self.wfile.write(event)
            self.wfile.flush()
        self.close_connection = True

    def resolve(self, api, body):
        """(agent, turn index, TURN) for a model request, or an error TURN."""
        script = self.server.script
        agent = pick_agent(script, {k.lower(): v for k, v in self.headers.items()}, api, body)
        turn = count_assistant_turns(api, body)
        spec = script["agents"].get(agent) if agent else None
        if spec is None:
            message = (
                f"fake model: no agent for this request (header {AGENT_HEADER!r}: "
                f"{self.headers.get(AGENT_HEADER)!r}; no agent's match string in the "
                f"system prompt; no default)"
            )
            return agent, turn, {"error": {"status": 500, "message": message,
                                           "type": "api_error"}}
        turns = spec["turns"]
        if spec["conversations"] is not None:
            with self.server.lock:
                opened = self.server.opened.get(agent, 0) + (turn == 0)
                self.server.opened[agent] = opened
            conversations = spec["conversations"]
            turns = conversations[min(opened, len(conversations)) - 1] if opened else []
        if turn < len(turns):
            return agent, turn, turns[turn]
        return agent, turn, {"text": f"fake model: no turn {turn} scripted for agent {agent}"}

    def error_body(self, api, err):
        if "body" in err:
            return err["body"]
        kind = err.get("type", "invalid_request_error")
        message = err.get("message", f"fake model error {err.get('status', 400)}")
        if api == "anthropic":
            return {"type": "error", "error": {"type": kind, "message": message}}
        return {"error": {"message": message, "type": kind, "param": None,
                          "code": err.get("code")}}

    # --- verbs ----------------------------------------------------------------------
    def do_HEAD(self):
        self.record("head", None)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        path = self.path.split("?")[0]
        self.record("get", None)
        if path.rstrip("/").endswith("/models"):
            self.send_json(200, {"object": "list", "data": [], "models": []})
        else:
            self.send_json(404, {"error": {"message": f"fake model: no GET {path}"}})

    def do_POST(self):
        path = self.path.split("?")[0]
        raw, body = self.read_body()
        if path.endswith("/v1/messages/count_tokens"):
            self.record("anthropic-count", body, raw=raw)
            self.send_json(200, {"input_tokens": 100})
            return
        if path.endswith("/v1/messages"):
            api = "anthropic"
        elif path.endswith("/responses"):
            api = "openai"
        else:
            self.record("unknown", body, raw=raw)
            self.send_json(404, {"error": {"message": f"fake model: no POST {path}"}})
            return
        if not isinstance(body, dict):
            self.record(api, body, raw=raw)
            self.send_json(400, self.error_body(api, {"message": "fake model: body is not JSON"}))
            return
        agent, index, turn = self.resolve(api, body)
        self.record(api, body, agent=agent, turn=index)
        if turn.get("sleep"):
            time.sleep(float(turn["sleep"]))
        if "error" in turn:
            err = turn["error"]
            self.send_json(int(err.get("status", 400)), self.error_body(api, err))
            return
        model = body.get("model") or "fake-model"
        if api == "anthropic":
            events, whole = anthropic_events(turn, model)
            if body.get("stream"):
                self.send_sse(events)
            else:
                self.send_json(200, whole)
        else:
            self.send_sse(openai_events(turn, model))


def watchdog(server, lifetime, parent):
    deadline = time.monotonic() + lifetime
    while time.monotonic() < deadline:
        if os.getppid() != parent:  # reparented: the parent died
            break
        time.sleep(0.2)
    server.shutdown()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("script")
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", help="request log (JSONL); default: SCRIPT.requests.jsonl")
    ap.add_argument("--lifetime", type=float, default=300.0)
    args = ap.parse_args()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.script = load_script(args.script)
    server.lock = threading.Lock()
    server.opened = {}
    server.log_path = args.log or args.script + ".requests.jsonl"
    server.log_lock = threading.Lock()
    open(server.log_path, "a").close()
    port = server.server_address[1]
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{port}\n")
    os.replace(tmp, args.port_file)
    print(port, flush=True)

    stop = lambda *_: threading.Thread(target=server.shutdown, daemon=True).start()  # noqa: E731
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    threading.Thread(target=watchdog, args=(server, args.lifetime, os.getppid()),
                     daemon=True).start()
    server.serve_forever(poll_interval=0.2)
    server.server_close()
    return 0


# --- helpers for tests that read the log ---------------------------------------------
def read_log(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def tool_names(entry):
    """Names of the tools a logged model request offered."""
    tools = (entry.get("body") or {}).get("tools") or []
    return [t.get("name") or (t.get("function") or {}).get("name") or t.get("type")
            for t in tools]


if __name__ == "__main__":
    sys.exit(main())
