"""A model on a server needs neither llama-cpp-python nor numpy (the manifest declares neither).

Home Assistant's own ai_task (through camera and stream) imports numpy: those are imported
first, then numpy is made unimportable for our modules.
"""

from __future__ import annotations

from pathlib import Path
import subprocess
import sys

ROOT = Path(__file__).parents[1]

BLOCKED_IMPORTS = """
import sys
import homeassistant.components.ai_task
import homeassistant.components.conversation
sys.modules["llama_cpp"] = None  # any import of it raises ImportError
sys.modules["numpy"] = None
import custom_components.local_agent
import custom_components.local_agent.ai_task
import custom_components.local_agent.config_flow
import custom_components.local_agent.conversation
import custom_components.local_agent.diagnostics
import custom_components.local_agent.engine.server.worker
import custom_components.local_agent.system_health
print("imported")
"""


def test_the_integration_imports_without_llama_cpp_and_numpy() -> None:
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED_IMPORTS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "imported"
