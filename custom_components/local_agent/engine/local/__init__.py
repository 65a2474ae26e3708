"""The in-process backend: llama-cpp-python in a worker thread, checked first in a child process."""
