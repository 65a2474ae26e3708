"""The server backend: a model on an OpenAI-compatible server (llama-server, Ollama, vLLM ...)."""
