"""Load profiles a user runs against a real server (``ai-memory bench``).

They are clients: each starts ``ai-memory serve`` as a child process and drives it over
HTTP, so what they measure is what an application of the server sees.
"""
