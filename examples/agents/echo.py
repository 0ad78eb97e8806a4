#!/usr/bin/env python3
"""Example Switchboard agent in Python: echoes the last user message, showing every block kind.

It reads the conversation from stdin and prints the simplified Claude agent format's JSON lines on
stdout through switchboard_emitter (packages/server/emitters/switchboard_emitter.py, a single
stdlib-only file): status lines (a processing block), a todo list, thinking, a tool call with its
result, and the answer streamed word by word. Try it by hand:

    echo '{"messages":[{"id":"1","role":"user","parts":[{"type":"text","text":"hello"}]}]}' | python3 echo.py

Special messages, for trying what the gateway does when agents misbehave:
  crash  prints part of an answer, then fails with a traceback (exit code 1)
  hang   prints part of an answer, then waits forever (until the client aborts or a timeout)
  error  reports an error event and finishes cleanly
ECHO_DELAY_MS (set by the config's setEnv) paces the events.
"""

import os
import re
import sys
import time
from pathlib import Path

# Keep the repository clean: no __pycache__ next to the emitter.
sys.dont_write_bytecode = True

try:
    import switchboard_emitter as sb
except ImportError:  # run from the repository: use the emitter where it lives
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "packages" / "server" / "emitters"))
    import switchboard_emitter as sb

DELAY = float(os.environ.get("ECHO_DELAY_MS", "0") or 0) / 1000


def pace() -> None:
    if DELAY > 0:
        time.sleep(DELAY)


def fragments(text: str):
    """Word-sized pieces that join back to exactly `text`."""
    return re.findall(r"\s+|\S+\s*", text)


def main() -> int:
    started = time.monotonic()
    request = sb.read_request()
    text = sb.last_user_text(request).strip()
    command = text.lower()
    sb.emit_start(model="echo-py", prompt_preview=text[:80])

    if command == "error":
        sb.emit_status("Calling a flaky service…")
        sb.emit_error("The echo agent failed on purpose (you sent \"error\").", code="echo_error")
        sb.emit_done()
        return 0
    if command in ("crash", "hang"):
        sb.emit_status("Starting…")
        for piece in fragments("This answer stops half-way "):
            sb.emit_text(piece)
            pace()
        if command == "crash":
            sb.log("echo.py: about to crash on purpose")
            raise RuntimeError("the echo agent crashed on purpose")
        sb.log("echo.py: hanging on purpose")
        while True:
            time.sleep(3600)

    messages = request.get("messages") or []
    words = len(text.split())
    sb.emit_status("Reading the conversation…")
    pace()
    sb.emit_status(f"{len(messages)} message(s); the last one has {words} word(s)")
    pace()
    todos = [
        {"content": "Read the message", "status": "in_progress"},
        {"content": "Count the words", "status": "pending"},
        {"content": "Echo it back", "status": "pending"},
    ]
    sb.emit_todo_create(todos)
    pace()
    for piece in fragments(f"The user wrote {words} word(s). I will count them with a tool, then echo the message back."):
        sb.emit_thinking(piece)
        pace()
    sb.emit_todo_done(index=0)

    call = sb.new_id("toolu")
    sb.emit_tool_use(call, "count_words", {"text": text})
    pace()
    sb.emit_tool_result(call, {"words": words, "characters": len(text)})
    sb.emit_todo_done(index=1)
    pace()

    answer = f"You said: {text}" if text else "You said nothing."
    for piece in fragments(answer):
        sb.emit_text(piece)
        pace()
    sb.emit_todo_done(index=2)
    sb.emit_result(
        duration_ms=int((time.monotonic() - started) * 1000),
        num_turns=1,
        usage={"input_tokens": words, "output_tokens": len(answer.split())},
    )
    sb.emit_done()
    return 0


if __name__ == "__main__":
    sys.exit(main())
