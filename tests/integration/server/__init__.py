"""The agent with its model on a server (llama-cpp-python's real server, or a scripted one)."""
