"""The inference engine, with no Home Assistant imports.

The modules at this level are what both backends share (requests and results, the chat format,
the tool-call parser, grammars, settings); `local/` runs a GGUF model in this process with
llama-cpp-python, `server/` runs it on an OpenAI-compatible model server.
"""
