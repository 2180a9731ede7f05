import os
from mcpygen.tool_exec.client import ToolRunner

CLIENT = ToolRunner(
    server_name='google',
    server_params={'command': 'python', 'args': ['-m', 'freeact.tools.gsearch', '--thinking-level', 'medium'], 'env': {'GEMINI_API_KEY': '${GEMINI_API_KEY}'}},
    host=os.environ.get("TOOL_SERVER_HOST", "localhost"),
    port=int(os.environ.get("TOOL_SERVER_PORT", "8900")),
)
