from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Params(BaseModel):
    model_config = ConfigDict(
        use_enum_values=True,
    )
    a: int = Field(..., title="A")
    b: int = Field(..., title="B")



from pydantic import BaseModel, ConfigDict, Field


class Result(BaseModel):
    model_config = ConfigDict(
        use_enum_values=True,
    )
    result: int = Field(..., title="Result")


from . import CLIENT

def run(params: Params) -> Result:
    """Add two whole numbers.
    """
    result = CLIENT.run_sync(tool_name="add", tool_args=params.model_dump(exclude_none=True))
    return Result.model_validate(result)
