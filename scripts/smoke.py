"""Smoke test on a real Home Assistant process (the newest release), driven over its HTTP API.

Run by scripts/smoke (which makes the cached venv): ``python -m scripts.smoke --hass-venv DIR``.
pytest-homeassistant-custom-component pins one Home Assistant version and lags behind releases;
this starts the release's own ``hass`` with a fresh config dir and a copy of the integration,
as a user would, and does what a user does:

1. onboard over the REST API (owner, analytics and integration steps; not core_config, which
   sets up integrations that need the internet);
2. add a model entry through the config flow (a local GGUF file: the Gemma test model) without
   llama-cpp-python: the first dialog offers the runtime with its size, asked of a local
   server with the release layout (scripts/release_server.py: the wheel scripts/wheels built,
   or a stand-in it names); "later" leaves it, and the entry fails with the
   ``runtime_missing`` repair issue;
3. open the repair and install: Home Assistant's own installer (uv) fetches the wheel from the
   local server into this run's venv (a throw-away venv over the release's cached one), the
   repair ends in *installed* and the entry reloads with it; then set the entry's engine
   options through its options flow (1 thread, 2048-token context: on two busy cores one
   llama.cpp thread answers much faster), which reloads the entry: the separate-process load
   check runs, the model loads;
4. add an agent subentry through its flow, send a sentence through /api/conversation/process,
   download the entry's diagnostics;
5. stop Home Assistant and read its log.

It fails on any error logged by local_agent, any traceback (except Home Assistant's own log of
the expected runtime_missing setup error), any "Detected blocking call", any "will stop working"
about local_agent, a crash of the process, or any step that does not answer as expected.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from collections.abc import Iterator
import contextlib
from dataclasses import dataclass
from dataclasses import field
import json
import os
from pathlib import Path
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any
from typing import Final
import urllib.error
import urllib.parse
import urllib.request

from scripts.release_server import ServedRuntime
from scripts.release_server import prepare_release
from scripts.release_server import serve
from testing.hass_runner import free_local_port

REPO_ROOT: Final = Path(__file__).resolve().parents[1]
INTEGRATION: Final = REPO_ROOT / "custom_components" / "local_agent"
DOMAIN: Final = "local_agent"
START_TIMEOUT: Final = 240.0
SITE_PACKAGES: Final = "import sysconfig; print(sysconfig.get_path('purelib'))"
STEP_TIMEOUT: Final = 180.0
SENTENCE: Final = "Turn on the kitchen light"
# The agent's answer is cut short: Gemma 270M (a base model) writes gibberish anyway.
AGENT_OPTIONS: Final = {"max_tokens": 64, "thinking_budget": 16, "max_tool_rounds": 1}
# LOCAL_AGENT_TEST_THREADS (see testing/model_files.py) runs llama.cpp with other threads.
ENGINE_OPTIONS: Final = {
    "threads": int(os.environ.get("LOCAL_AGENT_TEST_THREADS") or 1),
    "context_size": 2048,
}
CONFIGURATION: Final = """\
homeassistant:
  name: Local Agent smoke test
  latitude: 52.52
  longitude: 13.40
  elevation: 34
  unit_system: metric
  time_zone: Europe/Berlin
  country: DE
  currency: EUR
  language: en
http:
  server_host: 127.0.0.1
  server_port: {port}
logger:
  default: warning
  logs:
    custom_components.local_agent: info
{integrations}
"""
# Tracebacks of this machine's environment, not of the integration: (logger, text in the record).
ENVIRONMENT_NOISE: Final = (
    # The ffmpeg integration (loaded with tts) runs `ffmpeg -version`; Home Assistant OS and
    # the container ship ffmpeg, a bare development machine may not.
    ("haffmpeg.core", "No such file or directory: 'ffmpeg'"),
    # The camera integration's optional JPEG speed-up (a system library).
    ("homeassistant.components.camera.img_util", "Error loading libturbojpeg"),
)
RECORD_START: Final = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+(?:[+-]\d\d:\d\d)? (?P<level>[A-Z]+) "
    r"\((?P<thread>[^)]*)\) "
    r"\[(?P<logger>[^\]]+)\] (?P<message>.*)$"
)


class SmokeFailure(Exception):
    """A step did not go as it must."""


@dataclass
class LogRecord:
    """One record of home-assistant.log, continuation lines (tracebacks) included."""

    level: str
    logger: str
    lines: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The whole record."""
        return "\n".join(self.lines)


def parse_log(text: str) -> list[LogRecord]:
    """Split Home Assistant's log into records."""
    records: list[LogRecord] = []
    for line in text.splitlines():
        match = RECORD_START.match(line)
        if match:
            records.append(LogRecord(match["level"], match["logger"], [line]))
        elif records:
            records[-1].lines.append(line)
        elif line.strip():
            records.append(LogRecord("UNKNOWN", "", [line]))
    return records


def is_expected_runtime_missing(record: LogRecord) -> bool:
    """Home Assistant's own log (with traceback) of the entry failing for want of llama_cpp."""
    last = next((line for line in reversed(record.lines) if line.strip()), "")
    return (
        record.logger == "homeassistant.config_entries"
        and "Error setting up entry" in record.lines[0]
        and f"for {DOMAIN}" in record.lines[0]
        and last.startswith("homeassistant.exceptions.ConfigEntryError")
        and "llama" in last
    )


def log_problems(records: list[LogRecord]) -> tuple[list[str], int]:
    """Return the records that fail the smoke test, and how many expected errors were seen."""
    problems: list[str] = []
    expected = 0
    for record in records:
        text = record.text
        ours = record.logger.startswith(f"custom_components.{DOMAIN}") or DOMAIN in text
        if is_expected_runtime_missing(record):
            expected += 1
            continue
        if not ours and any(
            record.logger == logger and noise in text for logger, noise in ENVIRONMENT_NOISE
        ):
            continue
        if record.logger.startswith(f"custom_components.{DOMAIN}") and record.level in (
            "ERROR",
            "CRITICAL",
        ):
            problems.append(f"error logged by {DOMAIN}:\n{text}")
        elif "Traceback (most recent call last)" in text:
            problems.append(f"traceback:\n{text}")
        elif "Detected blocking call" in text:
            problems.append(f"blocking call in the event loop:\n{text}")
        elif "will stop working" in text and ours:
            problems.append(f"deprecated use by {DOMAIN}:\n{text}")
    return problems, expected


class Api:
    """Home Assistant's HTTP API, synchronously (urllib)."""

    def __init__(self, base_url: str) -> None:
        """Talk to the server at base_url."""
        self.base_url = base_url
        self.token: str | None = None

    def request(
        self,
        method: str,
        path: str,
        payload: Any = None,
        *,
        form: dict[str, str] | None = None,
        expect: int = 200,
        timeout: float = STEP_TIMEOUT,
    ) -> Any:
        """Send a request; return the decoded JSON answer; raise SmokeFailure on another status."""
        headers = {}
        data = None
        if form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif payload is not None:
            data = json.dumps(payload).encode()
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(
            self.base_url + path, data=data, headers=headers, method=method
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                status, body = response.status, response.read()
        except urllib.error.HTTPError as err:
            status, body = err.code, err.read()
        if status != expect:
            raise SmokeFailure(f"{method} {path} answered {status}, not {expect}: {body[:600]!r}")
        return json.loads(body) if body else None

    def get(self, path: str, **kwargs: Any) -> Any:
        """GET path."""
        return self.request("GET", path, **kwargs)

    def post(self, path: str, payload: Any = None, **kwargs: Any) -> Any:
        """POST payload to path."""
        return self.request("POST", path, payload, **kwargs)


def form_values(result: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Fill a flow's form with its suggested values or defaults, then the overrides it has.

    A section (an "expandable" item) gets its own dict of values; overrides name the fields
    themselves, wherever they stand.
    """
    return _fill(result.get("data_schema") or [], overrides)


def _fill(items: list[dict[str, Any]], overrides: dict[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for item in items:
        name = item.get("name")
        if name is None:
            continue
        if item.get("type") == "expandable":
            values[name] = _fill(item.get("schema") or [], overrides)
            continue
        suggested = (item.get("description") or {}).get("suggested_value")
        value = suggested if suggested is not None else item.get("default")
        if name in overrides:
            value = overrides[name]
        if value is not None:
            values[name] = value
    return values


def walk_flow(
    api: Api,
    base: str,
    result: dict[str, Any],
    *,
    menu: dict[str, str] | None = None,
    overrides: dict[str, Any] | None = None,
    deadline: float,
) -> dict[str, Any]:
    """Follow a data entry flow through menus, forms and progress steps to its end."""
    fields = overrides or {}
    submitted: set[str] = set()
    while True:
        if time.monotonic() > deadline:
            raise SmokeFailure(f"the flow at {base} did not finish in time: {result}")
        kind = result.get("type")
        flow_id = result.get("flow_id")
        step = result.get("step_id")
        if kind in ("create_entry", "abort"):
            return result
        if kind == "menu":
            options = result.get("menu_options") or []
            choice = (menu or {}).get(step or "")
            if choice not in options:
                raise SmokeFailure(f"no choice for the menu {step} ({options}): {result}")
            result = api.post(f"{base}/{flow_id}", {"next_step_id": choice})
        elif kind == "form":
            if result.get("errors"):
                raise SmokeFailure(f"the form {step} shows errors: {result['errors']}")
            if step in submitted:
                raise SmokeFailure(f"the form {step} came back after it was submitted: {result}")
            submitted.add(step or "")
            result = api.post(f"{base}/{flow_id}", form_values(result, fields))
        elif kind in ("progress", "external"):
            time.sleep(0.5)
            result = api.get(f"{base}/{flow_id}")
        else:
            raise SmokeFailure(f"unexpected flow result: {result}")


def create_entry(
    api: Api,
    base: str,
    result: dict[str, Any],
    failure: str,
    *,
    menu: dict[str, str] | None = None,
    overrides: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Walk a flow (a step's time at the most) that must end by creating an entry."""
    deadline = time.monotonic() + STEP_TIMEOUT
    result = walk_flow(api, base, result, menu=menu, overrides=overrides, deadline=deadline)
    if result["type"] != "create_entry":
        raise SmokeFailure(f"{failure} {result}")
    return result


def copy_integration(config_dir: Path) -> None:
    """Copy custom_components/local_agent into the config dir, as HACS would."""
    target = config_dir / "custom_components" / DOMAIN
    shutil.copytree(INTEGRATION, target, ignore=shutil.ignore_patterns("__pycache__"))


def python_output(python: Path, code: str) -> str:
    """Return what PYTHON prints running CODE."""
    done = subprocess.run(
        [str(python), "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.strip()


@dataclass
class Smoke:
    """One run: a config dir, a `hass` process, its API."""

    hass_venv: Path
    model: Path
    work: Path
    started: float = field(default_factory=time.monotonic)
    process: subprocess.Popen[bytes] | None = None
    api: Api | None = None
    release_url: str = ""
    served: ServedRuntime | None = None

    @property
    def config_dir(self) -> Path:
        return self.work / "config"

    @property
    def venv(self) -> Path:
        return self.work / "venv"

    @property
    def log_path(self) -> Path:
        return self.config_dir / "home-assistant.log"

    @property
    def console_path(self) -> Path:
        return self.work / "console.log"

    def log_text(self) -> str:
        """home-assistant.log as far as hass has written it ("" before it starts one)."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def say(self, text: str) -> None:
        print(f"==> [{time.monotonic() - self.started:5.1f} s] {text}", flush=True)

    def version(self) -> str:
        return python_output(
            self.hass_venv / "bin" / "python",
            "from homeassistant.const import __version__; print(__version__)",
        )

    def make_venv(self) -> None:
        """This run's venv: empty (the runtime is installed into it) over the release's venv."""
        release_python = self.hass_venv / "bin" / "python"
        base = python_output(release_python, "import sys; print(sys._base_executable)")
        subprocess.run([base, "-m", "venv", "--without-pip", str(self.venv)], check=True)
        site = python_output(self.venv / "bin" / "python", SITE_PACKAGES)
        # After this venv's own site-packages, with the .pth files of the release's venv.
        (Path(site) / "release-venv.pth").write_text(
            f"import site; site.addsitedir({python_output(release_python, SITE_PACKAGES)!r})\n"
        )

    def prepare(self) -> int:
        self.config_dir.mkdir(parents=True)
        self.make_venv()
        copy_integration(self.config_dir)
        port = free_local_port()
        integrations = "\n".join(
            f"{domain}:"
            for domain in ("onboarding", "config", "conversation", "repairs", "diagnostics")
        )
        (self.config_dir / "configuration.yaml").write_text(
            CONFIGURATION.format(port=port, integrations=integrations)
        )
        return port

    def start(self, port: int) -> Api:
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")
        }
        # The runtime comes from the local release server, what it needs from its index: the
        # installer reaches nothing else.
        env["LOCAL_AGENT_RUNTIME_URL"] = self.release_url
        env["UV_INDEX_URL"] = f"{self.release_url}/simple"
        env["UV_DEFAULT_INDEX"] = f"{self.release_url}/simple"
        env["UV_CACHE_DIR"] = str(self.work / "uv-cache")
        env["PATH"] = f"{self.hass_venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        console = self.console_path.open("wb")
        self.process = subprocess.Popen(
            [
                str(self.venv / "bin" / "python"),
                "-m",
                "homeassistant",
                "--config",
                str(self.config_dir),
                "--log-file",
                str(self.log_path),
            ],
            stdout=console,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=self.work,
        )
        api = Api(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.process.poll() is not None:
                raise SmokeFailure(f"hass exited with status {self.process.returncode} at start")
            if "Activating recovery mode" in self.log_text():
                raise SmokeFailure("hass could not set up its core and went into recovery mode")
            try:
                api.get("/api/onboarding", timeout=5)
                return api
            except (OSError, SmokeFailure) as err:
                if time.monotonic() > deadline:
                    raise SmokeFailure(f"hass did not answer in {START_TIMEOUT:.0f} s") from err
                time.sleep(1)

    def onboard(self, api: Api) -> None:
        client_id = f"{api.base_url}/"
        user = api.post(
            "/api/onboarding/users",
            {
                "client_id": client_id,
                "name": "Smoke",
                "username": "smoke",
                "password": "smoke-test-password",
                "language": "en",
            },
        )
        tokens = api.post(
            "/auth/token",
            form={
                "grant_type": "authorization_code",
                "code": user["auth_code"],
                "client_id": client_id,
            },
        )
        api.token = tokens["access_token"]
        # Not the core_config step: it sets up met, radio_browser and google_translate, which
        # reach for the internet (errors and tracebacks of theirs on an offline machine).
        api.post("/api/onboarding/analytics", {})
        api.post(
            "/api/onboarding/integration",
            {"client_id": client_id, "redirect_uri": f"{client_id}?auth_callback=1"},
        )
        steps = {step["step"]: step["done"] for step in api.get("/api/onboarding")}
        if not all(done for step, done in steps.items() if step != "core_config"):
            raise SmokeFailure(f"onboarding is not done: {steps}")

    def entry(self, api: Api, entry_id: str) -> dict[str, Any]:
        for item in api.get(f"/api/config/config_entries/entry?domain={DOMAIN}"):
            if item["entry_id"] == entry_id:
                return dict(item)
        raise SmokeFailure(f"entry {entry_id} is gone")

    def wait_for_entry(self, api: Api, entry_id: str, states: set[str]) -> dict[str, Any]:
        deadline = time.monotonic() + STEP_TIMEOUT
        while True:
            entry = self.entry(api, entry_id)
            if entry["state"] in states:
                return entry
            if time.monotonic() > deadline:
                raise SmokeFailure(f"entry state {entry['state']}, not {states}: {entry}")
            time.sleep(0.5)

    def run(self) -> None:
        self.say(f"homeassistant {self.version()} in {self.hass_venv}; work dir {self.work}")
        port = self.prepare()
        self.say("Starting hass (llama-cpp-python hidden from it)")
        api = self.api = self.start(port)
        self.say("Onboarding over the REST API")
        self.onboard(api)

        self.say(f"Adding a model entry for {self.model.name} through the config flow")
        flows = "/api/config/config_entries/flow"
        result = api.post(flows, {"handler": DOMAIN, "show_advanced_options": False})
        self.check_runtime_offer(result)
        result = create_entry(
            api,
            flows,
            result,
            "the config flow ended with",
            menu={"runtime": "runtime_later", "user": "local_file"},
            overrides={"model_path": str(self.model)},
        )
        entry_id = result["result"]["entry_id"]
        entry = self.wait_for_entry(api, entry_id, {"setup_error", "loaded", "setup_retry"})
        if entry["state"] != "setup_error" or "llama" not in (entry.get("reason") or ""):
            raise SmokeFailure(f"without the runtime the entry must fail: {entry}")

        self.repair_runtime(api)
        try:
            self.wait_for_entry(api, entry_id, {"loaded"})
        except SmokeFailure as err:
            raise SmokeFailure(f"with the runtime installed the entry must load: {err}") from err
        # Saving the options reloads the entry (an OptionsFlowWithReload): it loads again.
        self.set_engine_options(api, entry_id)
        try:
            self.wait_for_entry(api, entry_id, {"loaded"})
        except SmokeFailure as err:
            raise SmokeFailure(f"with the runtime the entry must load: {err}") from err

        self.say("Adding an agent subentry through its flow")
        subflows = "/api/config/config_entries/subentries/flow"
        result = api.post(subflows, {"handler": [entry_id, "conversation"]})
        create_entry(api, subflows, result, "the agent flow ended with", overrides=AGENT_OPTIONS)
        agent_id = self.agent_entity(api)

        self.say(f"Sending {SENTENCE!r} to {agent_id} through /api/conversation/process")
        answer = api.post(
            "/api/conversation/process",
            {"text": SENTENCE, "language": "en", "agent_id": agent_id},
            timeout=300,
        )
        response = answer["response"]
        speech = response["speech"]["plain"]["speech"]
        code = (response.get("data") or {}).get("code")
        self.say(f"  answer ({response['response_type']}, {code}): {speech[:120]!r}")
        self.say("Downloading the entry's diagnostics")
        diagnostics = api.get(f"/api/diagnostics/config_entry/{entry_id}")
        # What Gemma answers depends on its tokens, which differ with the CPU and the time in
        # the prompt: it may call tools until the round limit, or have no answer. Only a turn
        # the engine could not finish (an error, a timeout) is the integration's failure.
        totals = diagnostics["data"]["agent_totals"].get(agent_id) or {}
        if totals.get("turns") != 1 or totals.get("failed_turns") != 0:
            raise SmokeFailure(f"the agent failed ({speech!r}): {totals}")
        engine = diagnostics["data"]["engine"]
        if (engine["threads"], engine["n_ctx"]) != (
            ENGINE_OPTIONS["threads"],
            ENGINE_OPTIONS["context_size"],
        ):
            raise SmokeFailure(f"the entry's options did not reach the engine: {engine}")

    def check_runtime_offer(self, result: dict[str, Any]) -> None:
        """The first dialog offers the runtime, with the size the release server gives."""
        if result.get("step_id") != "runtime":
            raise SmokeFailure(f"the first dialog does not offer the runtime: {result}")
        placeholders = result.get("description_placeholders") or {}
        assert self.served is not None
        expected = f"{max(1, round(self.served.path.stat().st_size / 1_000_000))} MB"
        # "manylinux_2_28_x86_64, 20 MB": the platform, then the size when it is known.
        wheel = str(placeholders.get("wheel", ""))
        if not wheel.endswith(f", {expected}"):
            raise SmokeFailure(f"the offer says {placeholders}, not {expected}")
        self.say(f"  the first dialog offers the runtime: {wheel} (later, to repair it)")

    def repair_runtime(self, api: Api) -> None:
        """Open the runtime_missing repair and install: it must end in *installed*."""
        self.say("Opening the runtime_missing repair and installing the runtime")
        fixes = "/api/repairs/issues/fix"
        result = api.post(fixes, {"handler": DOMAIN, "issue_id": "runtime_missing"})
        if result.get("step_id") != "confirm":
            raise SmokeFailure(f"the repair flow did not start with its confirmation: {result}")
        source = (result.get("description_placeholders") or {}).get("source", "")
        if not source.startswith(self.release_url):
            raise SmokeFailure(f"the repair offers {source}, not the local release")
        create_entry(api, fixes, result, "the repair did not install the runtime:")
        self.say("  the repair ended: installed")

    def set_engine_options(self, api: Api, entry_id: str) -> None:
        """Set the entry's engine options through its options flow."""
        # One thread and a small context: two busy cores answer faster with one llama.cpp
        # thread (its threads spin while they wait for each other). Saving reloads the entry.
        self.say("Setting the entry's options (1 thread, 2048-token context) through its flow")
        options = "/api/config/config_entries/options/flow"
        result = api.post(options, {"handler": entry_id})
        create_entry(api, options, result, "the options flow ended with", overrides=ENGINE_OPTIONS)

    def agent_entity(self, api: Api) -> str:
        deadline = time.monotonic() + STEP_TIMEOUT
        while True:
            agents = [
                state["entity_id"]
                for state in api.get("/api/states")
                if state["entity_id"].startswith("conversation.")
                and state["entity_id"] != "conversation.home_assistant"
            ]
            if agents:
                return str(agents[0])
            if time.monotonic() > deadline:
                raise SmokeFailure("the agent subentry created no conversation entity")
            time.sleep(0.5)

    def stop(self) -> int | None:
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=90)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise SmokeFailure("hass did not stop within 90 s of SIGTERM") from None
        return self.process.returncode

    def check_logs(self) -> None:
        problems, expected = log_problems(parse_log(self.log_text()))
        console = self.console_path.read_text(errors="replace")
        for marker in ("Fatal Python error", "Segmentation fault", "core dumped"):
            if marker in console:
                problems.append(f"the process crashed ({marker}); see {self.console_path}")
        if expected != 1:
            problems.append(
                "expected Home Assistant to log the runtime_missing setup error once, "
                f"saw it {expected} times"
            )
        if problems:
            raise SmokeFailure(
                f"{len(problems)} problem(s) in {self.log_path}:\n\n" + "\n\n".join(problems)
            )


@contextlib.contextmanager
def work_dir(keep: bool) -> Iterator[Path]:
    """A temporary folder, kept on failure or when asked."""
    path = Path(tempfile.mkdtemp(prefix="local-agent-smoke-"))
    failed = True
    try:
        yield path
        failed = False
    finally:
        if failed or keep:
            print(f"Kept {path} (home-assistant.log, console.log)", file=sys.stderr)
        else:
            shutil.rmtree(path, ignore_errors=True)


def resolve_gemma() -> Path:
    """The Gemma 3 270M test model from the cache (assembled on first use)."""
    from testing.model_files import ensure_gemma_model

    return ensure_gemma_model()


def main(argv: list[str] | None = None, resolve_model: Callable[[], Path] = resolve_gemma) -> int:
    """Run the smoke test; exit status 0 when it passed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hass-venv", type=Path, required=True)
    parser.add_argument("--model", type=Path, help="GGUF file (default: the Gemma test model)")
    parser.add_argument("--keep", action="store_true", help="keep the config dir and logs")
    args = parser.parse_args(argv)
    model = args.model.resolve() if args.model else resolve_model()
    with work_dir(args.keep) as work:
        smoke = Smoke(hass_venv=args.hass_venv, model=model, work=work)
        try:
            smoke.served = prepare_release(work / "release")
            smoke.say(f"Release server serves {smoke.served.describe()}")
            with serve(work / "release") as smoke.release_url:
                try:
                    smoke.run()
                finally:
                    status = smoke.stop()
            smoke.say(f"hass stopped (exit status {status})")
            if status not in (0, None):
                raise SmokeFailure(f"hass exited with status {status}")
            smoke.check_logs()
        except SmokeFailure as err:
            print(f"SMOKE TEST FAILED: {err}", file=sys.stderr)
            tail = smoke.console_path.read_text(errors="replace").splitlines()[-30:]
            print("Last lines hass wrote:\n" + "\n".join(tail), file=sys.stderr)
            raise SystemExit(1) from err
        smoke.say("Smoke test passed: no errors, tracebacks or blocking calls from local_agent")
    return 0


if __name__ == "__main__":
    sys.exit(main())
