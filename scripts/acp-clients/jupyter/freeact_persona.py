"""freeact as a Jupyter AI 3 persona (an ACP agent).

Copy this file to `.jupyter/personas/freeact_persona.py` in the folder your
notebooks and chats are in (or a folder above it), then restart JupyterLab or
send `/refresh-personas` in a chat. Jupyter AI starts `freeact acp` when the
persona is first used, with the chat's folder as the session's workspace.

`freeact` must be on the PATH JupyterLab was started with; set FREEACT_BIN to
its full path otherwise (e.g. /usr/bin/freeact from the .deb).
"""

import os
import shutil

from jupyter_ai_acp_client.base_acp_persona import BaseAcpPersona
from jupyter_ai_persona_manager import PersonaDefaults, PersonaRequirementsUnmet

_FREEACT = os.environ.get("FREEACT_BIN") or shutil.which("freeact")
if not _FREEACT:
    raise PersonaRequirementsUnmet(
        "The freeact persona needs the `freeact` program: install freeact, or"
        " set FREEACT_BIN to its full path before starting JupyterLab."
    )


class FreeactAcpPersona(BaseAcpPersona):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, executable=[_FREEACT, "acp"], **kwargs)

    @property
    def defaults(self) -> PersonaDefaults:
        return PersonaDefaults(
            name="freeact",
            description="freeact: answers with Python run in a local kernel,"
            " each action approved in the chat.",
            avatar_path="",
            system_prompt="unused",
        )
