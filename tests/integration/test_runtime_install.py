"""Installing the runtime: which wheel, from where, in the first dialog and as a repair.

Home Assistant's installer is replaced by a recorder here (it would install into this venv);
scripts/smoke runs the real one on a real hass against a local server with the release layout.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest.mock import MagicMock
from unittest.mock import patch

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.test_util.aiohttp import AiohttpClientMocker

from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.models import runtime_package as llama_package
from custom_components.local_agent.models.runtime_package import offline_dependencies
from custom_components.local_agent.models.runtime_package import offline_wheel
from custom_components.local_agent.models.runtime_package import select_wheel
from custom_components.local_agent.models.runtime_package import wheel_filename
from custom_components.local_agent.runtime.issues import RUNTIME_ISSUE
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import issue_registry as ir
from homeassistant.setup import async_setup_component

from .conftest import async_setup_model_entry
from .conftest import entry_state
from .flow_helpers import async_through_progress

MUSL_X86 = ["musllinux_1_2_x86_64", "linux_x86_64"]
PUBLISHED = (
    "https://github.com/local-agent/local-agent/releases/download/runtime-0.3.36/"
    "llama_cpp_python-0.3.36-py3-none-musllinux_1_2_x86_64.whl"
)
DISKCACHE = "diskcache-5.6.3-py3-none-any.whl"


@pytest.fixture(autouse=True)
def own_config_dir(hass: HomeAssistant, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A config dir of the test's own: the offline folder is written into it."""
    monkeypatch.setattr(hass.config, "config_dir", str(tmp_path))


@pytest.fixture
def musl_x86_64() -> Iterator[None]:
    """This interpreter's platform tags are a musl x86_64 one's (Home Assistant OS)."""
    with patch.object(llama_package, "supported_platforms", return_value=list(MUSL_X86)):
        yield


@pytest.fixture
def installer(musl_x86_64: None) -> Iterator[MagicMock]:
    """Home Assistant's installer, recording what it is asked; llama_cpp is missing until then."""
    installed: list[str] = []

    def install(requirement: str, **kwargs: Any) -> bool:
        installed.append(requirement)
        return True

    def version() -> str | None:
        return "0.3.36" if any(r.startswith("llama-cpp-python") for r in installed) else None

    with (
        patch.object(llama_package, "install_package", side_effect=install) as recorder,
        patch.object(llama_package, "llama_cpp_version", side_effect=version),
    ):
        yield recorder


@pytest.fixture
def published(aioclient_mock: AiohttpClientMocker) -> AiohttpClientMocker:
    """The release server answers HEAD for the published wheel with its size."""
    aioclient_mock.head(PUBLISHED, headers={"Content-Length": "10800000"})
    return aioclient_mock


def requirements(installer: MagicMock) -> list[str]:
    return [call.args[0] for call in installer.call_args_list]


def offline_folder(hass: HomeAssistant) -> Path:
    return Path(hass.config.config_dir, "local_agent", "wheels")


def put_wheels(folder: Path, *names: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes(b"x" * 2_500_000)


@pytest.mark.parametrize(
    ("platforms", "expected"),
    [
        (
            ["manylinux_2_36_x86_64", "manylinux_2_28_x86_64", "linux_x86_64"],
            "manylinux_2_28_x86_64",
        ),
        (MUSL_X86, "musllinux_1_2_x86_64"),
        (["musllinux_1_2_aarch64", "linux_aarch64"], "musllinux_1_2_aarch64"),
        (["manylinux_2_39_aarch64", "manylinux_2_28_aarch64"], "manylinux_2_28_aarch64"),
        (["manylinux_2_17_x86_64"], None),  # older than the wheels' glibc 2.28
        (["win_amd64"], None),
    ],
)
def test_the_wheel_is_chosen_by_the_platform_tags_alone(
    platforms: list[str], expected: str | None
) -> None:
    wheel = select_wheel(platforms)
    assert (wheel.platform if wheel else None) == expected
    if wheel is not None:
        assert wheel.url.endswith(f"/runtime-0.3.36/{wheel_filename(wheel.platform)}")


def test_a_mirror_of_the_release_layout_can_be_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(llama_package.RELEASES_URL_ENV, "http://192.0.2.1:8080/mirror/")
    wheel = select_wheel(MUSL_X86)
    assert wheel is not None
    assert wheel.url == (
        "http://192.0.2.1:8080/mirror/runtime-0.3.36/"
        "llama_cpp_python-0.3.36-py3-none-musllinux_1_2_x86_64.whl"
    )


def test_the_offline_folder_offers_the_best_fitting_runtime_and_its_dependencies(
    tmp_path: Path,
) -> None:
    put_wheels(
        tmp_path / "local_agent" / "wheels",
        wheel_filename("musllinux_1_2_aarch64"),  # another machine's
        "llama_cpp_python-0.3.30-py3-none-musllinux_1_2_x86_64.whl",  # another version
        "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl",  # built by hand: fits, less well
        wheel_filename("musllinux_1_2_x86_64"),
        DISKCACHE,
        "numpy-2.3.2-cp314-cp314-musllinux_1_2_aarch64.whl",  # does not fit: left out
        "notes.txt.whl",
    )
    wheel = offline_wheel(str(tmp_path), MUSL_X86)
    assert wheel is not None
    assert wheel.local_file == tmp_path / "local_agent/wheels" / wheel_filename(MUSL_X86[0])
    assert wheel.url == wheel.local_file.resolve().as_uri()
    assert wheel.described == "musllinux_1_2_x86_64, 2 MB"
    folder = (tmp_path / "local_agent" / "wheels").resolve()
    assert offline_dependencies(str(tmp_path), MUSL_X86) == [
        f"diskcache @ {(folder / DISKCACHE).as_uri()}"
    ]


def test_no_offline_runtime_without_a_fitting_wheel(tmp_path: Path) -> None:
    assert offline_wheel(str(tmp_path), MUSL_X86) is None  # no folder
    put_wheels(tmp_path / "local_agent" / "wheels", DISKCACHE, wheel_filename("win_amd64"))
    assert offline_wheel(str(tmp_path), MUSL_X86) is None
    assert offline_dependencies(str(tmp_path), MUSL_X86) == [
        f"diskcache @ {(tmp_path / 'local_agent/wheels' / DISKCACHE).resolve().as_uri()}"
    ]


async def open_repair(hass: HomeAssistant) -> tuple[Any, dict[str, Any]]:
    """Open the runtime repair: its flow manager and first result."""
    assert await async_setup_component(hass, "repairs", {})
    manager = hass.data["repairs"]["flow_manager"]
    return manager, await manager.async_init(DOMAIN, context={"issue_id": RUNTIME_ISSUE})


async def repair(hass: HomeAssistant) -> dict[str, Any]:
    """Open the runtime repair, confirm it, wait out the installation."""
    manager, result = await open_repair(hass)
    assert result["step_id"] == "confirm", result
    confirm = dict(result)
    result = await manager.async_configure(result["flow_id"], {})
    while result["type"] in (FlowResultType.SHOW_PROGRESS, FlowResultType.SHOW_PROGRESS_DONE):
        await hass.async_block_till_done(wait_background_tasks=True)
        result = await manager.async_configure(result["flow_id"])
    await hass.async_block_till_done()
    return {"confirm": confirm, "result": result}


@pytest.fixture
async def entry_without_runtime(
    hass: HomeAssistant,
    qwen35_model_path: Path,
    installer: MagicMock,
    published: AiohttpClientMocker,
) -> MockConfigEntry:
    """The model entry, set up while llama_cpp is missing: it failed; the published wheel
    installs."""
    entry = await async_setup_model_entry(hass, qwen35_model_path)
    assert entry.state is ConfigEntryState.SETUP_ERROR
    return entry


async def test_the_repair_installs_the_published_wheel_and_reloads(
    hass: HomeAssistant, installer: MagicMock, entry_without_runtime: MockConfigEntry
) -> None:
    entry = entry_without_runtime
    done = await repair(hass)

    assert done["confirm"]["description_placeholders"] == {
        "wheel": "musllinux_1_2_x86_64, 11 MB",
        "source": PUBLISHED,
        "folder": str(offline_folder(hass)),
    }
    assert done["result"]["type"] == "create_entry"
    assert requirements(installer) == [f"llama-cpp-python @ {PUBLISHED}"]
    kwargs = installer.call_args.kwargs
    assert kwargs["upgrade"] is False
    assert kwargs["timeout"] == llama_package.INSTALL_TIMEOUT
    assert kwargs["constraints"].endswith("package_constraints.txt")
    assert ir.async_get(hass).async_get_issue(DOMAIN, RUNTIME_ISSUE) is None
    assert entry.state is ConfigEntryState.LOADED


async def test_the_repair_uses_the_offline_folder_first(
    hass: HomeAssistant,
    qwen35_model_path: Path,
    installer: MagicMock,
    aioclient_mock: AiohttpClientMocker,
) -> None:
    folder = offline_folder(hass)
    await hass.async_add_executor_job(
        put_wheels, folder, wheel_filename("musllinux_1_2_x86_64"), DISKCACHE
    )
    entry = await async_setup_model_entry(hass, qwen35_model_path)

    done = await repair(hass)

    runtime = folder / wheel_filename("musllinux_1_2_x86_64")
    assert done["confirm"]["description_placeholders"]["source"] == str(runtime)
    assert done["result"]["type"] == "create_entry"
    assert requirements(installer) == [
        f"diskcache @ {(folder / DISKCACHE).resolve().as_uri()}",
        f"llama-cpp-python @ {runtime.resolve().as_uri()}",
    ]
    assert aioclient_mock.call_count == 0  # nothing asked of the network
    assert entry.state is ConfigEntryState.LOADED


async def test_a_failed_install_says_where_an_offline_wheel_goes(
    hass: HomeAssistant,
    qwen35_model_path: Path,
    musl_x86_64: None,
    aioclient_mock: AiohttpClientMocker,
) -> None:
    aioclient_mock.head(PUBLISHED, exc=TimeoutError())
    with (
        patch.object(llama_package, "install_package", return_value=False),
        patch.object(llama_package, "llama_cpp_version", return_value=None),
    ):
        entry = await async_setup_model_entry(hass, qwen35_model_path)
        done = await repair(hass)

    assert done["confirm"]["description_placeholders"]["wheel"] == "musllinux_1_2_x86_64"
    assert done["result"]["type"] == "abort"
    assert done["result"]["reason"] == "install_failed"
    placeholders = done["result"]["description_placeholders"]
    assert placeholders["folder"] == str(offline_folder(hass))
    assert ir.async_get(hass).async_get_issue(DOMAIN, RUNTIME_ISSUE) is not None
    assert entry.state is ConfigEntryState.SETUP_ERROR


async def test_no_fitting_wheel_aborts_the_repair(
    hass: HomeAssistant, qwen35_model_path: Path
) -> None:
    with (
        patch.object(llama_package, "supported_platforms", return_value=["win_amd64"]),
        patch.object(llama_package, "llama_cpp_version", return_value=None),
    ):
        await async_setup_model_entry(hass, qwen35_model_path)
        _, result = await open_repair(hass)
    assert (result["type"], result["reason"]) == ("abort", "no_wheel")


async def test_the_first_dialog_offers_the_runtime_and_installs_it(
    hass: HomeAssistant, installer: MagicMock, published: AiohttpClientMocker
) -> None:
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": "user"})
    assert (result["type"], result["step_id"]) == (FlowResultType.MENU, "runtime")
    assert result["menu_options"] == ["install_runtime", "runtime_later"]
    placeholders = result["description_placeholders"]
    assert placeholders is not None
    assert placeholders["wheel"] == "musllinux_1_2_x86_64, 11 MB"

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": "install_runtime"}
    )
    result = await async_through_progress(hass, result)

    assert (result["type"], result["step_id"]) == (FlowResultType.MENU, "user")
    assert requirements(installer) == [f"llama-cpp-python @ {PUBLISHED}"]


async def test_the_first_dialog_can_leave_the_runtime_for_later(
    hass: HomeAssistant, installer: MagicMock, published: AiohttpClientMocker
) -> None:
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": "user"})
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": "runtime_later"}
    )
    assert (result["type"], result["step_id"]) == (FlowResultType.MENU, "user")
    assert installer.call_count == 0


async def test_the_first_dialog_goes_on_after_a_failed_install(
    hass: HomeAssistant, musl_x86_64: None, aioclient_mock: AiohttpClientMocker
) -> None:
    aioclient_mock.head(PUBLISHED, status=404)
    with (
        patch.object(llama_package, "install_package", return_value=False),
        patch.object(llama_package, "llama_cpp_version", return_value=None),
    ):
        result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": "user"})
        result = await hass.config_entries.flow.async_configure(
            result["flow_id"], {"next_step_id": "install_runtime"}
        )
        result = await async_through_progress(hass, result)
        assert (result["type"], result["step_id"]) == (FlowResultType.FORM, "runtime_failed")
        result = await hass.config_entries.flow.async_configure(result["flow_id"], {})
    assert (result["type"], result["step_id"]) == (FlowResultType.MENU, "user")


async def test_no_offer_when_the_runtime_is_installed(hass: HomeAssistant) -> None:
    with patch.object(llama_package, "llama_cpp_version", return_value="0.3.36"):
        result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": "user"})
    assert (result["type"], result["step_id"]) == (FlowResultType.MENU, "user")


async def test_the_offer_comes_back_when_an_update_removed_the_runtime(
    hass: HomeAssistant, entry_without_runtime: MockConfigEntry
) -> None:
    """A new container image has no llama_cpp: the entry fails, the repair and offer return."""
    entry = entry_without_runtime
    await repair(hass)
    assert entry.state is ConfigEntryState.LOADED

    with patch.object(llama_package, "llama_cpp_version", return_value=None):
        await hass.config_entries.async_reload(entry.entry_id)
        await hass.async_block_till_done()
        assert entry_state(entry) is ConfigEntryState.SETUP_ERROR
        assert ir.async_get(hass).async_get_issue(DOMAIN, RUNTIME_ISSUE) is not None
        result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": "user"})
    assert result["step_id"] == "runtime"
