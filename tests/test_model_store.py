"""Finding, downloading and verifying model files, against a local server that acts as the Hub."""

from __future__ import annotations

from collections import namedtuple
import hashlib
from pathlib import Path
import socket
import threading
from unittest.mock import patch

import httpx2
import pytest

from custom_components.local_agent.models import store as model_store
from custom_components.local_agent.models.store import ChecksumMismatchError
from custom_components.local_agent.models.store import DiskFullError
from custom_components.local_agent.models.store import DownloadCancelledError
from custom_components.local_agent.models.store import DownloadInterruptedError
from custom_components.local_agent.models.store import FileMissingError
from custom_components.local_agent.models.store import HubRefusedError
from custom_components.local_agent.models.store import HubTimedOutError
from custom_components.local_agent.models.store import HubTlsError
from custom_components.local_agent.models.store import HubUnknownHostError
from custom_components.local_agent.models.store import HubUnreachableError
from custom_components.local_agent.models.store import InvalidFilenameError
from custom_components.local_agent.models.store import InvalidRepoIdError
from custom_components.local_agent.models.store import ModelSource
from custom_components.local_agent.models.store import RepoNotFoundError
from custom_components.local_agent.models.store import RevisionMissingError
from custom_components.local_agent.models.store import download
from custom_components.local_agent.models.store import estimate_ram
from custom_components.local_agent.models.store import fetch_remote_file
from custom_components.local_agent.models.store import format_bytes
from custom_components.local_agent.models.store import hub_unreachable
from custom_components.local_agent.models.store import local_path
from custom_components.local_agent.models.store import part_path
from testing.hub_server import COMMIT
from testing.hub_server import FakeHub

REPO = "qvac/BotPsy-0.8B-GGUFs"
FILE = "botpsy-0.8b-q8_0.gguf"
CONTENT = b"GGUF" + bytes(range(256)) * 2000  # ~0.5 MB
DiskUsage = namedtuple("DiskUsage", "total used free")


@pytest.fixture
def hub(fake_hub: FakeHub) -> FakeHub:
    fake_hub.add(REPO, FILE, CONTENT)
    return fake_hub


def test_metadata_gives_size_checksum_and_commit(hub: FakeHub) -> None:
    remote = fetch_remote_file(ModelSource(REPO, FILE))

    assert remote.size == len(CONTENT)
    assert remote.sha256 is not None
    assert len(remote.sha256) == 64
    assert remote.commit == COMMIT
    assert remote.url.endswith(f"/{REPO}/resolve/{COMMIT}/{FILE}")


def test_download_verifies_and_renames(hub: FakeHub, tmp_path: Path) -> None:
    remote = fetch_remote_file(ModelSource(REPO, FILE))
    target = local_path(tmp_path, remote.source)
    seen: list[int] = []

    with patch.object(model_store, "CHUNK_SIZE", 64 * 1024):
        assert download(remote, target, progress=lambda done, _total: seen.append(done)) == target

    assert target.read_bytes() == CONTENT
    assert target.parent.name == "qvac--BotPsy-0.8B-GGUFs"
    assert not part_path(target, remote).exists()
    assert seen == sorted(seen)
    assert seen[-1] == len(CONTENT)
    assert len(seen) > 3


def test_dropped_connection_is_resumed_with_a_range_request(hub: FakeHub, tmp_path: Path) -> None:
    hub.drop_after = 100_000
    remote = fetch_remote_file(ModelSource(REPO, FILE))
    target = tmp_path / FILE

    download(remote, target)

    assert target.read_bytes() == CONTENT
    assert hub.ranges() == ["bytes=100000-"]


def test_broken_transfer_says_the_part_is_kept(hub: FakeHub, tmp_path: Path) -> None:
    hub.drop_after = 100_000
    remote = fetch_remote_file(ModelSource(REPO, FILE))
    target = tmp_path / FILE

    with (
        patch.object(model_store, "MAX_RETRIES", 0),
        pytest.raises(DownloadInterruptedError) as err,
    ):
        download(remote, target)

    assert err.value.key == "download_interrupted"
    assert part_path(target, remote).stat().st_size == 100_000
    assert err.value.placeholders["received"] == "100\N{NO-BREAK SPACE}kB"


def test_part_left_by_an_earlier_attempt_is_continued(hub: FakeHub, tmp_path: Path) -> None:
    remote = fetch_remote_file(ModelSource(REPO, FILE))
    target = tmp_path / FILE
    part_path(target, remote).write_bytes(CONTENT[:12345])

    download(remote, target)

    assert target.read_bytes() == CONTENT
    assert hub.ranges() == ["bytes=12345-"]


def test_checksum_mismatch_removes_the_file(hub: FakeHub, tmp_path: Path) -> None:
    remote = fetch_remote_file(ModelSource(REPO, FILE))
    assert remote.sha256 is not None
    hub.served_bytes[remote.sha256] = CONTENT[:-1] + b"X"
    target = tmp_path / FILE

    with pytest.raises(ChecksumMismatchError):
        download(remote, target)

    assert list(tmp_path.iterdir()) == []


def test_small_non_lfs_file_is_verified_by_its_git_blob_id(hub: FakeHub, tmp_path: Path) -> None:
    hub.lfs = False
    remote = fetch_remote_file(ModelSource(REPO, FILE))
    assert (remote.sha256, remote.git_sha1 is not None) == (None, True)

    download(remote, tmp_path / FILE)
    assert (tmp_path / FILE).read_bytes() == CONTENT

    hub.served_bytes[hashlib.sha256(CONTENT).hexdigest()] = b"X" * len(CONTENT)
    with pytest.raises(ChecksumMismatchError):
        download(remote, tmp_path / "again.gguf")


def test_existing_verified_file_is_not_downloaded_again(hub: FakeHub, tmp_path: Path) -> None:
    remote = fetch_remote_file(ModelSource(REPO, FILE))
    target = tmp_path / FILE
    target.write_bytes(CONTENT)
    hub.requests.clear()

    download(remote, target)

    assert hub.requests == []


def test_cancel_keeps_the_part(hub: FakeHub, tmp_path: Path) -> None:
    remote = fetch_remote_file(ModelSource(REPO, FILE))
    target = tmp_path / FILE
    cancel = threading.Event()

    def stop_after_first_chunk(done: int, _total: int) -> None:
        if done:
            cancel.set()

    with (
        patch.object(model_store, "CHUNK_SIZE", 64 * 1024),
        pytest.raises(DownloadCancelledError),
    ):
        download(remote, target, progress=stop_after_first_chunk, cancel=cancel)

    assert not target.exists()
    assert 0 < part_path(target, remote).stat().st_size < len(CONTENT)


@pytest.mark.parametrize(
    ("source", "error"),
    [
        (ModelSource("nobody/nothing", FILE), RepoNotFoundError),
        (ModelSource(REPO, "missing.gguf"), FileMissingError),
        (ModelSource(REPO, FILE, revision="v9"), RevisionMissingError),
        (ModelSource(REPO, "../../etc/passwd.gguf"), InvalidFilenameError),
        (ModelSource(REPO, "model.bin"), InvalidFilenameError),
        (ModelSource("not a repo", FILE), InvalidRepoIdError),
    ],
)
def test_hub_errors_are_named(hub: FakeHub, source: ModelSource, error: type[Exception]) -> None:
    with pytest.raises(error):
        fetch_remote_file(source)


def test_unreachable_hub(monkeypatch: pytest.MonkeyPatch, fake_hub: FakeHub) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    with pytest.raises(HubUnreachableError) as err:
        fetch_remote_file(ModelSource(REPO, FILE))
    # Nothing was downloaded: the message must not speak of a part that continues.
    assert not isinstance(err.value, DownloadInterruptedError)


def test_unreachable_hub_says_why_in_its_own_words(
    monkeypatch: pytest.MonkeyPatch, fake_hub: FakeHub, caplog: pytest.LogCaptureFixture
) -> None:
    """Each cause has its own translated words: "[Errno 111] …" was shown in every language."""
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    with pytest.raises(HubRefusedError) as refused:
        fetch_remote_file(ModelSource(REPO, FILE))
    assert refused.value.key == "hub_unreachable_refused"
    # The system's words stay in the log.
    assert str(refused.value) in caplog.text

    # TLS spoken to a server that answers plain HTTP.
    monkeypatch.setenv("HF_ENDPOINT", fake_hub.url.replace("http://", "https://"))
    with pytest.raises(HubTlsError):
        fetch_remote_file(ModelSource(REPO, FILE))


def test_an_unknown_host_is_said_as_such(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_such_host(*_args: object, **_kwargs: object) -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_host)
    monkeypatch.setenv("HF_ENDPOINT", "http://hub.example.invalid")
    with pytest.raises(HubUnknownHostError) as caught:
        fetch_remote_file(ModelSource(REPO, FILE))
    assert caught.value.key == "hub_unreachable_unknown_host"


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (httpx2.ConnectTimeout("timed out"), HubTimedOutError),
        (TimeoutError("timed out"), HubTimedOutError),
        (ConnectionResetError("reset by peer"), HubUnreachableError),
    ],
)
def test_a_cause_is_read_off_the_error(error: Exception, said: type[Exception]) -> None:
    assert type(hub_unreachable(error)) is said


def test_disk_full_is_refused_before_downloading(hub: FakeHub, tmp_path: Path) -> None:
    remote = fetch_remote_file(ModelSource(REPO, FILE))
    hub.requests.clear()

    with (
        patch("shutil.disk_usage", return_value=DiskUsage(10**9, 10**9 - 1000, 1000)),
        pytest.raises(DiskFullError) as caught,
    ):
        download(remote, tmp_path / FILE)

    assert caught.value.placeholders["free"] == "1000\N{NO-BREAK SPACE}B"
    assert hub.requests == []


@pytest.mark.parametrize(
    ("size", "said"),
    [
        (0, "0 B"),
        (9_999, "9999 B"),
        (200_000, "200 kB"),
        (530_000_000, "530 MB"),
        (9_999_600, "10 MB"),  # rounded up: the next unit
        (12_300_000_000, "12 GB"),
        (2 * 10**13, "20 TB"),
    ],
)
def test_a_size_reads_right_in_every_language(size: int, said: str) -> None:
    """ "0.53 GB" had an English decimal point in every language ("0,53 GB" in German): a size
    is a whole number, and a no-break space holds it to its unit."""
    assert format_bytes(size) == said.replace(" ", "\N{NO-BREAK SPACE}")


def test_sizes_and_ram() -> None:
    assert format_bytes(810_000_000) == "810\N{NO-BREAK SPACE}MB"
    assert format_bytes(1_280_000_000) == "1280\N{NO-BREAK SPACE}MB"
    # BotPsy Q8_0 with the default context: about 1.2 GB (the README's figure).
    assert 1.1e9 < estimate_ram(810_000_000, 8192) < 1.3e9
