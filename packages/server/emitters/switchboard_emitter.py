"""Switchboard agent emitter: print the simplified Claude agent format's JSON lines on stdout.

A single file with no dependencies beyond the standard library (Python 3.8+). Copy it next to your
agent, then::

    from switchboard_emitter import read_request, last_user_text, emit_start, emit_text, emit_done

    request = read_request()            # {"chatId", "runId", "messages": [UIMessage, ...]}
    emit_start(model="my-model")
    emit_text("You said: " + last_user_text(request))
    emit_done()

Every call writes one line and flushes it, so the server sees each event as soon as it is printed.
Write logs to stderr (``log()`` does); stdout is for events only. Configure the agent with
``"framework": "claude"`` (the default), or ``"deepagents"`` to render subagent notes as thinking.
"""

from __future__ import annotations

import json
import sys
import threading
import uuid
from typing import Any, Dict, Iterable, List, Mapping, Optional, TextIO, Union

__all__ = [
    "Emitter",
    "emit",
    "emit_start",
    "emit_status",
    "emit_text",
    "emit_thinking",
    "emit_think",
    "emit_tool_use",
    "emit_tool_result",
    "emit_approval_request",
    "emit_client_tool_call",
    "emit_interrupt",
    "emit_todo_create",
    "emit_todo_update",
    "emit_todo_done",
    "emit_subagent_start",
    "emit_subagent_complete",
    "emit_usage",
    "emit_result",
    "emit_error",
    "emit_done",
    "read_request",
    "last_user_text",
    "message_text",
    "new_id",
    "log",
]

Todo = Union[str, Mapping[str, Any]]
"""A todo item: its text, or ``{"content", "status", "activeForm"?}`` with status
``pending`` | ``in_progress`` | ``completed`` | ``cancelled``."""


def _drop_none(data: Mapping[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


class Emitter:
    """Writes events to a text stream (stdout by default), one JSON line each, thread-safely."""

    def __init__(self, stream: Optional[TextIO] = None) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def emit(self, type: str, data: Optional[Mapping[str, Any]] = None) -> None:
        """Print one event ``{"type": type, "data": data}`` and flush it."""
        line = json.dumps({"type": type, "data": dict(data or {})}, ensure_ascii=False, separators=(",", ":"), default=str)
        stream = self._stream or sys.stdout
        with self._lock:
            stream.write(line + "\n")
            stream.flush()

    # Lifecycle -------------------------------------------------------------------------------

    def start(self, model: Optional[str] = None, prompt_preview: Optional[str] = None, **extra: Any) -> None:
        """The run begins (``start``); optional model name and a preview of the prompt."""
        self.emit("start", _drop_none({"model": model, "prompt_preview": prompt_preview, **extra}))

    def result(
        self,
        duration_ms: Optional[int] = None,
        num_turns: Optional[int] = None,
        usage: Optional[Mapping[str, Any]] = None,
        **extra: Any,
    ) -> None:
        """Final statistics (``result``): duration, turns, total usage, cost (``total_cost_usd``)..."""
        self.emit("result", _drop_none({"duration_ms": duration_ms, "num_turns": num_turns, "usage": usage, **extra}))

    def error(self, message: str, code: Optional[str] = None) -> None:
        """The run failed (``error``); follow it with ``done()``."""
        self.emit("error", _drop_none({"message": message, "code": code}))

    def done(self) -> None:
        """The run is over (``done``). Print nothing after it, and exit 0."""
        self.emit("done", {})

    # Content ---------------------------------------------------------------------------------

    def status(self, message: str) -> None:
        """Progress for the user (``status``): shown in a collapsible "processing" block."""
        self.emit("status", {"message": message})

    def text(self, content: str) -> None:
        """A piece of the answer (``text``); pieces are concatenated, so stream word by word."""
        self.emit("text", {"content": content})

    def thinking(self, content: str) -> None:
        """A piece of model reasoning (``thinking``): shown in a "thinking" block."""
        self.emit("thinking", {"content": content})

    def think(self, thought: str, id: Optional[str] = None) -> None:
        """A reflection of a think tool (``think``): one entry of the thinking block."""
        self.emit("think", _drop_none({"thought": thought, "id": id}))

    def tool_use(self, id: str, name: str, input: Optional[Mapping[str, Any]] = None) -> None:
        """A tool call with its complete input (``tool_use``)."""
        self.emit("tool_use", {"id": id, "name": name, "input": dict(input or {})})

    def tool_result(self, tool_use_id: str, content: Any, is_error: bool = False) -> None:
        """The result of a tool call (``tool_result``); ``is_error`` marks a failed call."""
        data: Dict[str, Any] = {"tool_use_id": tool_use_id, "content": content}
        if is_error:
            data["is_error"] = True
        self.emit("tool_result", data)

    # A person in the loop ---------------------------------------------------------------------

    def approval_request(
        self,
        id: str,
        name: str,
        input: Optional[Mapping[str, Any]] = None,
        approval_id: Optional[str] = None,
        reason: Optional[str] = None,
    ) -> None:
        """A tool call that waits for a person's approval (``approval_request``). End the run after it
        (``done()``): the next run's request carries the answer (the call's part in state
        ``approval-responded`` with ``approval.approved``; see docs/agents.md)."""
        data = {"id": id, "name": name, "input": dict(input or {}), "approval_id": approval_id, "reason": reason}
        self.emit("approval_request", _drop_none(data))

    def client_tool_call(self, id: str, name: str, input: Optional[Mapping[str, Any]] = None) -> None:
        """A tool call the client runs (``client_tool_call``, a frontend tool of the request's ``tools``).
        End the run after it: the next run's request carries the output (state ``output-available``)."""
        self.emit("client_tool_call", {"id": id, "name": name, "input": dict(input or {})})

    def interrupt(
        self,
        id: str,
        reason: str,
        message: Optional[str] = None,
        value: Any = None,
        response_schema: Optional[Mapping[str, Any]] = None,
    ) -> None:
        """The agent stops to ask for something (``interrupt``); the next run's request carries the
        answer in ``resume``."""
        data = {"id": id, "reason": reason, "message": message, "value": value, "response_schema": response_schema}
        self.emit("interrupt", _drop_none(data))

    # Plans and subagents ---------------------------------------------------------------------

    def todo_create(self, items: Iterable[Todo]) -> None:
        """A new todo list (``todo_create``)."""
        self.emit("todo_create", {"items": list(items)})

    def todo_update(self, items: Iterable[Todo]) -> None:
        """The whole todo list again, with new statuses (``todo_update``)."""
        self.emit("todo_update", {"items": list(items)})

    def todo_done(self, index: Optional[int] = None, id: Optional[str] = None, content: Optional[str] = None) -> None:
        """One todo item completed (``todo_done``), by 0-based index, id or content."""
        self.emit("todo_done", _drop_none({"index": index, "id": id, "content": content}))

    def subagent_start(self, agent: str, task: Optional[str] = None, id: Optional[str] = None) -> None:
        """A subagent was started (``subagent_start``)."""
        self.emit("subagent_start", _drop_none({"agent": agent, "task": task, "id": id}))

    def subagent_complete(self, agent: str, summary: Optional[str] = None, id: Optional[str] = None) -> None:
        """A subagent finished (``subagent_complete``)."""
        self.emit("subagent_complete", _drop_none({"agent": agent, "summary": summary, "id": id}))

    def usage(self, input_tokens: int, output_tokens: int, **extra: Any) -> None:
        """Token usage of one model call (``usage``); cache fields go in ``extra``."""
        self.emit("usage", {"input_tokens": input_tokens, "output_tokens": output_tokens, **extra})


_default = Emitter()


def emit(type: str, data: Optional[Mapping[str, Any]] = None) -> None:
    """Print one event ``{"type": type, "data": data}`` on stdout and flush it."""
    _default.emit(type, data)


def emit_start(model: Optional[str] = None, prompt_preview: Optional[str] = None, **extra: Any) -> None:
    _default.start(model, prompt_preview, **extra)


def emit_status(message: str) -> None:
    _default.status(message)


def emit_text(content: str) -> None:
    _default.text(content)


def emit_thinking(content: str) -> None:
    _default.thinking(content)


def emit_think(thought: str, id: Optional[str] = None) -> None:
    _default.think(thought, id)


def emit_tool_use(id: str, name: str, input: Optional[Mapping[str, Any]] = None) -> None:
    _default.tool_use(id, name, input)


def emit_tool_result(tool_use_id: str, content: Any, is_error: bool = False) -> None:
    _default.tool_result(tool_use_id, content, is_error)


def emit_approval_request(
    id: str,
    name: str,
    input: Optional[Mapping[str, Any]] = None,
    approval_id: Optional[str] = None,
    reason: Optional[str] = None,
) -> None:
    _default.approval_request(id, name, input, approval_id, reason)


def emit_client_tool_call(id: str, name: str, input: Optional[Mapping[str, Any]] = None) -> None:
    _default.client_tool_call(id, name, input)


def emit_interrupt(
    id: str,
    reason: str,
    message: Optional[str] = None,
    value: Any = None,
    response_schema: Optional[Mapping[str, Any]] = None,
) -> None:
    _default.interrupt(id, reason, message, value, response_schema)


def emit_todo_create(items: Iterable[Todo]) -> None:
    _default.todo_create(items)


def emit_todo_update(items: Iterable[Todo]) -> None:
    _default.todo_update(items)


def emit_todo_done(index: Optional[int] = None, id: Optional[str] = None, content: Optional[str] = None) -> None:
    _default.todo_done(index, id, content)


def emit_subagent_start(agent: str, task: Optional[str] = None, id: Optional[str] = None) -> None:
    _default.subagent_start(agent, task, id)


def emit_subagent_complete(agent: str, summary: Optional[str] = None, id: Optional[str] = None) -> None:
    _default.subagent_complete(agent, summary, id)


def emit_usage(input_tokens: int, output_tokens: int, **extra: Any) -> None:
    _default.usage(input_tokens, output_tokens, **extra)


def emit_result(
    duration_ms: Optional[int] = None, num_turns: Optional[int] = None, usage: Optional[Mapping[str, Any]] = None, **extra: Any
) -> None:
    _default.result(duration_ms, num_turns, usage, **extra)


def emit_error(message: str, code: Optional[str] = None) -> None:
    _default.error(message, code)


def emit_done() -> None:
    _default.done()


# Input -------------------------------------------------------------------------------------------


def read_request(stream: Optional[TextIO] = None) -> Dict[str, Any]:
    """Read the run request the server writes on stdin: ``{"chatId", "runId", "messages"}``.

    ``messages`` are AI SDK ``UIMessage`` objects: ``{"id", "role", "parts": [{"type": "text",
    "text": ...}, ...]}``. Returns ``{"messages": []}`` when stdin is empty (run by hand).
    """
    text = (stream or sys.stdin).read()
    if not text.strip():
        return {"messages": []}
    request = json.loads(text)
    if not isinstance(request, dict):
        raise ValueError("expected a JSON object on stdin")
    request.setdefault("messages", [])
    return request


def message_text(message: Mapping[str, Any]) -> str:
    """The text parts of one message, joined."""
    parts: List[Any] = message.get("parts") or []
    return "".join(p.get("text", "") for p in parts if isinstance(p, dict) and p.get("type") == "text")


def last_user_text(request: Mapping[str, Any]) -> str:
    """Text of the last user message of the request, or ``""``."""
    for message in reversed(request.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            return message_text(message)
    return ""


def new_id(prefix: str = "id") -> str:
    """A fresh id for a tool call or a think entry, e.g. ``toolu_3f2a…``."""
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


def log(*args: Any) -> None:
    """Print a log line on stderr (the server logs it with the agent's name; clients never see it)."""
    print(*args, file=sys.stderr, flush=True)
