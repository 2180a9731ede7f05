from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Params(BaseModel):
    model_config = ConfigDict(
        use_enum_values=True,
    )



from pydantic import BaseModel, ConfigDict, Field


class Result(BaseModel):
    model_config = ConfigDict(
        use_enum_values=True,
    )
    result: str = Field(..., title="Result")


from . import CLIENT

def run(params: Params) -> Result:
    """The version of the mcp package serving this.
    """
    result = CLIENT.run_sync(tool_name="sdk_version", tool_args=params.model_dump(exclude_none=True))
    return Result.model_validate(result)
