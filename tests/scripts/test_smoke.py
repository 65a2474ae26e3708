"""scripts/smoke.py's reading of Home Assistant's log: what fails the smoke test, what does not.

The smoke test itself (a real hass of the newest release) runs in scripts/test, not here.
"""

from __future__ import annotations

from scripts.smoke import form_values
from scripts.smoke import log_problems
from scripts.smoke import parse_log

T = "2026-11-30 18:20:04.698+00:00"
RUNTIME_MISSING = f"""\
{T} ERROR (MainThread) [homeassistant.config_entries] Error setting up entry m.gguf for \
local_agent: llama-cpp-python, the runtime that runs the model, is not installed
Traceback (most recent call last):
  File "/x/custom_components/local_agent/__init__.py", line 87, in async_setup_entry
homeassistant.exceptions.ConfigEntryError: llama-cpp-python, the runtime, is not installed
"""
FFMPEG_MISSING = f"""\
{T} ERROR (MainThread) [haffmpeg.core] FFmpeg fails [Errno 2] No such file or directory: 'ffmpeg'
Traceback (most recent call last):
FileNotFoundError: [Errno 2] No such file or directory: 'ffmpeg'
"""
INFO = f"{T} INFO (MainThread) [custom_components.local_agent] Checking that m.gguf loads\n"


def problems(text: str) -> tuple[list[str], int]:
    return log_problems(parse_log(text))


def test_expected_records_pass() -> None:
    assert problems(INFO + RUNTIME_MISSING + FFMPEG_MISSING) == ([], 1)


def test_an_error_of_ours_fails() -> None:
    text = f"{T} ERROR (MainThread) [custom_components.local_agent.repairs] Installing failed\n"
    found, _ = problems(text)
    assert len(found) == 1
    assert found[0].startswith("error logged by local_agent")


def test_any_other_traceback_fails() -> None:
    text = RUNTIME_MISSING.replace("ConfigEntryError: llama-cpp", "ConfigEntryError: other")
    text += f"""\
{T} ERROR (MainThread) [homeassistant.components.repairs] Error handling request
Traceback (most recent call last):
TypeError: pip_kwargs() takes 0 positional arguments but 1 was given
"""
    found, expected = problems(text)
    assert expected == 0
    assert [item.split(":")[0] for item in found] == ["traceback", "traceback"]


def test_blocking_calls_and_deprecations_of_ours_fail() -> None:
    text = f"""\
{T} WARNING (MainThread) [homeassistant.util.loop] Detected blocking call to open with args \
('/c/custom_components/local_agent/engine/templates/qwen3_5.jinja',) inside the event loop
{T} WARNING (MainThread) [homeassistant.helpers.frame] Detected that custom integration \
'local_agent' calls async_get_chat_session without a context. This will stop working in \
Home Assistant 2027.5
{T} WARNING (MainThread) [homeassistant.helpers.frame] Detected that custom integration \
'other' calls something. This will stop working in Home Assistant 2027.5
"""
    found, _ = problems(text)
    assert [item.split(":")[0] for item in found] == [
        "blocking call in the event loop",
        "deprecated use by local_agent",
    ]


def test_forms_are_filled_with_suggested_values_defaults_and_overrides() -> None:
    result = {
        "data_schema": [
            {"name": "name", "description": {"suggested_value": "Agent"}},
            {"name": "max_tokens", "default": 768},
            {"name": "model_path"},
        ]
    }
    values = form_values(result, {"max_tokens": 64, "model_path": "/m.gguf", "unknown": 1})
    assert values == {"name": "Agent", "max_tokens": 64, "model_path": "/m.gguf"}


def test_forms_with_sections_are_filled_section_by_section() -> None:
    result = {
        "data_schema": [
            {"name": "name", "description": {"suggested_value": "Agent"}},
            {
                "name": "model",
                "type": "expandable",
                "schema": [
                    {"name": "max_tokens", "description": {"suggested_value": 768}},
                    {"name": "thinking", "default": True},
                ],
            },
        ]
    }
    values = form_values(result, {"max_tokens": 64})
    assert values == {"name": "Agent", "model": {"max_tokens": 64, "thinking": True}}
