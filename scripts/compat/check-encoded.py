"""Load the session lines freeact desktop writes into a session of the Python
freeact (agent/model/pydanticai/testdata/encoded.jsonl) with freeact's own
session store, as freeact does when it resumes a session, and check what it
reads. Run by scripts/compat/make-fixtures.sh in each freeact venv:

    python check-encoded.py ENCODED.jsonl
"""

import shutil
import sys
import tempfile
from pathlib import Path

from pydantic_ai.messages import (
    BinaryContent,
    ModelRequest,
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

try:
    from freeact.agent.session import SessionStore  # 0.11
except ImportError:
    from freeact.agent.store import SessionStore  # 0.10

encoded = Path(sys.argv[1])
with tempfile.TemporaryDirectory() as root:
    session = Path(root) / "s"
    session.mkdir()
    shutil.copy(encoded, session / "main.jsonl")
    messages = SessionStore(Path(root), "s").load_messages("main")

kinds = [type(m).__name__ for m in messages]
assert kinds == ["ModelRequest", "ModelResponse", "ModelRequest", "ModelResponse", "ModelRequest"], kinds
prompt = messages[0].parts[0]
assert isinstance(prompt, UserPromptPart) and prompt.content[0] == "Describe this picture.", prompt
assert isinstance(prompt.content[1], BinaryContent) and prompt.content[1].media_type == "image/png", prompt

thought, text, call, call2 = messages[1].parts
assert isinstance(thought, ThinkingPart) and thought.provider_details == {"thought_signature": "Z2VtaW5pLXRob3VnaHQtc2ln"}, thought
assert isinstance(text, TextPart) and text.content == "Reading the file.", text
assert isinstance(call, ToolCallPart) and call.args_as_dict() == {"path": "a.png"} and call.tool_call_id == "c1", call
assert call.provider_details == {"thought_signature": "AAEC+g=="}, call
assert isinstance(call2, ToolCallPart) and call2.tool_name == "ipybox_execute_ipython_cell", call2
assert messages[1].model_name == "gemini-3-flash-preview" and messages[1].provider_name == "google-gla", messages[1]
assert messages[1].usage.input_tokens == 120 and messages[1].finish_reason == "stop", messages[1]

ret1, ret2, media = messages[2].parts
assert isinstance(ret1, ToolReturnPart) and ret1.tool_call_id == "c1", ret1
assert isinstance(ret2, ToolReturnPart) and ret2.outcome == "failed" and ret2.content == "NameError: x", ret2
assert isinstance(media, UserPromptPart) and isinstance(media.content[1], BinaryContent), media

thought = messages[3].parts[0]
assert isinstance(thought, ThinkingPart) and thought.signature == "EqQBCkYIARgCIkD" and thought.provider_name == "anthropic", thought
assert messages[3].finish_reason == "length", messages[3]
assert messages[4].parts[0].content == "Thanks.", messages[4]
print(f"check-encoded: freeact reads the {len(messages)} messages freeact desktop writes")
