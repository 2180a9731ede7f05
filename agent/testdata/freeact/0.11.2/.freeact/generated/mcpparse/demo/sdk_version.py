from mcptools.demo.sdk_version import ParseResult


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
