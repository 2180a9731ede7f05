from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Params(BaseModel):
    model_config = ConfigDict(
        use_enum_values=True,
    )
    query: str = Field(..., title="Query")
    """
    Natural language question or topic
    """


from . import CLIENT

def run(params: Params) -> str:
    """Web search using Google Search grounding with Gemini-generated answer.

    Uses Gemini with Google Search grounding to answer queries. Returns a
    synthesized answer (not raw search results) followed by numbered source URLs.
    Query should be natural language, e.g., "Who is the author of X?".

    """
    return CLIENT.run_sync(tool_name="web_search", tool_args=params.model_dump(exclude_none=True))
