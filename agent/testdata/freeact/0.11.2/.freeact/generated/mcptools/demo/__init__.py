import os
from mcpygen.tool_exec.client import ToolRunner

CLIENT = ToolRunner(
    server_name='demo',
    server_params={'command': 'python', 'args': ['demo_server.py', 'stdio']},
    host=os.environ.get("TOOL_SERVER_HOST", "localhost"),
    port=int(os.environ.get("TOOL_SERVER_PORT", "8900")),
)
