"""Make a workspace the way a user of the Python freeact (0.10 or 0.11)
would, for the compatibility fixtures of freeact desktop.

Run by scripts/compat/make-fixtures.sh inside a venv holding the freeact
release from PyPI, with the current directory an empty workspace:

    python drive.py VERSION PYSERVER

It runs `freeact init`, adds an MCP server to the configuration (as a user
edits it: through the Config API for 0.10, by hand in config.toml for 0.11,
which freeact never rewrites), generates the server's Python API with
freeact's own generator, as `freeact run` does, and drives freeact's Agent
through two scripted turns with a pydantic-ai FunctionModel. The model's
replies are whole parts as Gemini's model class builds them (thoughts and
calls with thought signatures in provider_details), so the session files
look like those of a real Gemini session. Every approval is granted; the
code runs in freeact's own kernel (ipybox) and the file read goes through
freeact's filesystem MCP server.

For 0.11 it also applies freeact's output-parsers skill to one generated
tool, as freeact's agent does when asked: a ParseResult model and
run_parsed() added to the tool's module, the parser in mcpparse/.
"""

import asyncio
import base64
import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponsePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, FunctionModel, FunctionStreamedResponse
from pydantic_ai.settings import ModelSettings

VERSION = sys.argv[1]
PYSERVER = Path(sys.argv[2])
WORKSPACE = Path.cwd()
MODEL_NAME = "gemini-3-flash-preview"
PROVIDER = "google-gla"
# One session id a version, so the fixture paths stay the same.
SESSION_ID = {"0.10.12": "10101010-0000-4000-8000-000000000010", "0.11.2": "11111111-0000-4000-8000-000000000011"}[VERSION]

SERVER = {"command": "python", "args": ["demo_server.py", "stdio"]}


def signature(text: str) -> dict[str, str]:
    """A thought signature as Gemini's model class stores it."""
    return {"thought_signature": base64.b64encode(f"sig:{text}".encode()).decode()}


def last_tool_return(messages: list[ModelMessage]) -> ToolReturnPart | None:
    last = messages[-1]
    if isinstance(last, ModelRequest):
        for part in last.parts:
            if isinstance(part, ToolReturnPart):
                return part
    return None


def script(messages: list[ModelMessage]) -> list[ModelResponsePart]:
    """The scripted replies: the answer depends on the last request."""
    returned = last_tool_return(messages)
    if returned is not None:
        if returned.tool_name == "ipybox_execute_ipython_cell":
            return [TextPart(content=f"6 × 7 = {str(returned.content).strip()}.")]
        return [TextPart(content="The notes say: " + str(returned.content).strip())]
    prompt = str(messages[-1].parts[-1].content)
    if "notes" in prompt:
        return [
            ThinkingPart(content="I read the file with the file tool.", provider_name=PROVIDER,
                         provider_details=signature("notes-thought")),
            ToolCallPart(tool_name="filesystem_read_text_file", args={"path": "notes.txt"},
                         tool_call_id="call-notes", provider_name=PROVIDER,
                         provider_details=signature("notes-call")),
        ]
    return [
        ThinkingPart(content="The user wants 6 times 7; I compute it in the kernel.", provider_name=PROVIDER,
                     provider_details=signature("math-thought")),
        TextPart(content="Let me compute that."),
        ToolCallPart(tool_name="ipybox_execute_ipython_cell", args={"code": "x = 6 * 7\nprint(x)"},
                     tool_call_id="call-math", provider_name=PROVIDER,
                     provider_details=signature("math-call")),
    ]


class PartsStreamedResponse(FunctionStreamedResponse):
    """Streams whole parts, with their provider_details, as Gemini's does."""

    async def _get_event_iterator(self):
        async for index, part in self._iter:
            yield self._parts_manager.handle_part(vendor_part_id=index, part=part)

    @property
    def provider_name(self) -> str:
        return PROVIDER


class ScriptedModel(FunctionModel):
    """A FunctionModel whose stream function yields whole response parts."""

    @asynccontextmanager
    async def request_stream(self, messages, model_settings: ModelSettings | None,
                             model_request_parameters: ModelRequestParameters, run_context=None):
        model_settings, model_request_parameters = self.prepare_request(model_settings, model_request_parameters)

        async def parts() -> AsyncIterator[tuple[int, ModelResponsePart]]:
            for i, part in enumerate(script(messages)):
                yield i, part

        yield PartsStreamedResponse(model_request_parameters=model_request_parameters,
                                    _model_name=MODEL_NAME, _iter=parts())


def unused(messages: list[ModelMessage], info: AgentInfo):
    raise AssertionError("freeact streams its requests")


async def drive(agent) -> None:
    try:
        from freeact import ApprovalRequest  # 0.11
    except ImportError:
        from freeact.agent import ApprovalRequest  # 0.10

    for prompt in ["What is 6 times 7? Use Python.", "What do my notes say?"]:
        async for event in agent.stream(prompt):
            if os.environ.get("DRIVE_DEBUG"):
                print("event:", repr(event)[:300], file=sys.stderr)
            if isinstance(event, ApprovalRequest):
                event.approve(True)


async def run_0_10() -> None:
    from freeact.agent import Agent
    from freeact.agent.config import Config
    from freeact.permissions import PermissionManager
    from freeact.agent.config import config as config_module
    from freeact.tools.pytools.apigen import generate_mcp_sources

    patient_internal_servers(config_module)
    config = await Config.init()
    data = config.model_dump(mode="json", exclude={"working_dir"})
    data["mcp_servers"] = {"demo": {**SERVER, "excluded_tools": ["sdk_version"], "timeout": 30}}
    data["ptc_servers"] = {**data["ptc_servers"], "demo": {**SERVER, "timeout": 30}}
    data["model_settings"] = {**data["model_settings"], "timeout": 120}
    config = Config.model_validate({**data, "working_dir": WORKSPACE})
    await config.save()
    PermissionManager(working_dir=WORKSPACE, freeact_dir=config.freeact_dir).init()

    await generate_mcp_sources(config.ptc_servers, config.generated_dir)

    scripted = Config.model_validate({**data, "working_dir": WORKSPACE, "model": ScriptedModel(unused, model_name=MODEL_NAME)})
    async with Agent(config=scripted, session_id=SESSION_ID) as agent:
        await drive(agent)


async def run_0_11() -> None:
    import dataclasses

    from freeact.agent import Agent
    import importlib

    from freeact.config import load
    from freeact.config.resolve import resolve
    from freeact.tools.pytools.apigen import generate_mcp_sources

    patient_internal_servers(importlib.import_module("freeact.config.resolve"))
    config_file = WORKSPACE / ".freeact" / "config.toml"
    text = config_file.read_text()
    text = text.replace("[agent.model_settings]\n", "[agent.model_settings]\ntimeout = 120.0\n", 1)
    text += (
        "\n# Added by hand, as a user would.\n"
        "[agent.mcp_servers.demo]\n"
        'command = "python"\nargs = ["demo_server.py", "stdio"]\nexclude_tools = ["sdk_version"]\ntimeout = 30\n'
        "\n[agent.ptc_servers.demo]\n"
        'command = "python"\nargs = ["demo_server.py", "stdio"]\n'
    )
    config_file.write_text(text)
    runtime = resolve(load(WORKSPACE), WORKSPACE)

    await generate_mcp_sources(runtime.ptc_servers, runtime.workspace.generated_dir)
    add_output_parser(runtime.workspace.generated_dir)

    scripted = dataclasses.replace(runtime, model=ScriptedModel(unused, model_name=MODEL_NAME))
    async with Agent(scripted, session_id=SESSION_ID) as agent:
        await drive(agent)


PARSE_RESULT = '''

class ParseResult(BaseModel):
    """Version of the mcp package serving the tools, in its parts."""

    model_config = ConfigDict(
        use_enum_values=True,
    )
    major: int = Field(..., title="Major", description="Major version number")
    minor: int = Field(..., title="Minor", description="Minor version number")


def run_parsed(params: Params) -> ParseResult:
    """The version of the mcp package serving this.
    """
    from mcpparse.demo.sdk_version import parse

    result = run(params)
    return parse(result.result)
'''

PARSER = '''from mcptools.demo.sdk_version import ParseResult


class SdkVersionParseError(Exception):
    """Exception raised when parsing sdk_version results fails."""

    pass


def parse(result: str) -> ParseResult:
    """Parse sdk_version result into structured data.

    Args:
        result: Raw string result from the tool

    Returns:
        ParseResult with structured data

    Raises:
        SdkVersionParseError: If parsing fails
    """
    parts = result.strip().split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts[:2]):
        raise SdkVersionParseError(f"not a version: {result!r}")
    return ParseResult(major=int(parts[0]), minor=int(parts[1]))
'''


def add_output_parser(generated_dir: Path) -> None:
    """What freeact's output-parsers skill has the agent write for a tool."""
    module = generated_dir / "mcptools" / "demo" / "sdk_version.py"
    module.write_text(module.read_text() + PARSE_RESULT)
    parser = generated_dir / "mcpparse" / "demo" / "sdk_version.py"
    parser.parent.mkdir(parents=True)
    parser.write_text(PARSER)


def patient_internal_servers(module) -> None:
    """freeact's own tool servers get pydantic-ai's 5 s to start, too short on
    a busy machine; this run only (nothing of it is saved) gives them two
    minutes."""
    for name in ("FILESYSTEM_MCP_SERVER_CONFIG", "BASIC_SEARCH_MCP_SERVER_CONFIG"):
        getattr(module, name)["timeout"] = 120


def main() -> None:
    shutil.copy(PYSERVER, WORKSPACE / "demo_server.py")
    (WORKSPACE / "notes.txt").write_text("Buy milk. Call Ada at noon.\n")
    subprocess.run(["freeact", "init"], check=True)
    asyncio.run(run_0_10() if VERSION.startswith("0.10.") else run_0_11())
    session = WORKSPACE / ".freeact" / "sessions" / SESSION_ID / "main.jsonl"
    lines = session.read_text().splitlines()
    messages = [json.loads(line)["message"] for line in lines]
    kinds = [m["kind"] for m in messages]
    returns = [p["content"] for m in messages for p in m["parts"] if p["part_kind"] == "tool-return"]
    # freeact sometimes answers a code action with an empty result on a
    # loaded machine: such a session is no fixture.
    if kinds != ["request", "response"] * 4 or returns != ["42", "Buy milk. Call Ada at noon.\n"]:
        sys.exit(f"drive: unexpected session: kinds {kinds}, tool results {returns}")
    print(f"drive: freeact {VERSION}: {len(lines)} messages in {session.relative_to(WORKSPACE)}: {kinds}")


if __name__ == "__main__":
    main()
