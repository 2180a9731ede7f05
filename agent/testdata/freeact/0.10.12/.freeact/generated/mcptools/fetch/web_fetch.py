from __future__ import annotations

from typing import Optional

from pydantic import BaseModel, ConfigDict, Field


class Params(BaseModel):
    model_config = ConfigDict(
        use_enum_values=True,
    )
    url: str = Field(..., title="Url")
    """
    URL to fetch content from
    """
    max_chars: Optional[int] = Field(50000, title="Max Chars")
    """
    Maximum characters to return (content is truncated beyond this limit)
    """


from . import CLIENT

def run(params: Params) -> str:
    """Fetch and extract readable content from a URL.

    Retrieves the URL via HTTP GET, extracts readable content based on
    content type (HTML via trafilatura, JSON via pretty-print, markdown
    pass-through, other as raw text), truncates to max_chars, and wraps
    with security markers.

    """
    return CLIENT.run_sync(tool_name="web_fetch", tool_args=params.model_dump(exclude_none=True))
