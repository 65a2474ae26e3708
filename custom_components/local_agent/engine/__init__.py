"""The inference engine: runs a GGUF model with llama-cpp-python. No Home Assistant imports."""
