"""Sessions on disk: one append-only JSONL file per session whose entries form a tree.

Line 1 is the header; every later line is an entry whose ``parent_id`` links it into the tree,
so branches share one file. :class:`SessionStore` finds and creates sessions, :class:`Session`
appends entries (each line flushed before the call returns), rebuilds the context along the
current branch, branches and forks, and records a running :class:`~tether.agent.Agent` and its
background tasks.
"""

from ._compaction import (
    SUMMARY_INSTRUCTIONS,
    CompactionError,
    Compactor,
    Preserve,
    estimate_tokens,
)
from ._context_files import CONTEXT_FILE_NAMES, find_context_files
from ._entries import (
    ApprovalEntry,
    CompactionEntry,
    CustomEntry,
    Entry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UnknownEntry,
)
from ._errors import SessionError
from ._interrupted import (
    CALL_STARTED,
    INTERRUPTED_CALL,
    NOT_STARTED_CALL,
    settle_interrupted_calls,
)
from ._session import Session, compaction_message
from ._store import SessionInfo, SessionStore, default_sessions_dir
from ._tasks import TASK_END, TASK_START, record_tasks, settle_lost_tasks

__all__ = [
    "CALL_STARTED",
    "CONTEXT_FILE_NAMES",
    "INTERRUPTED_CALL",
    "NOT_STARTED_CALL",
    "SUMMARY_INSTRUCTIONS",
    "TASK_END",
    "TASK_START",
    "ApprovalEntry",
    "CompactionEntry",
    "CompactionError",
    "Compactor",
    "CustomEntry",
    "Entry",
    "LabelEntry",
    "MessageEntry",
    "ModelChangeEntry",
    "Preserve",
    "Session",
    "SessionError",
    "SessionHeader",
    "SessionInfo",
    "SessionInfoEntry",
    "SessionStore",
    "ThinkingLevelChangeEntry",
    "UnknownEntry",
    "compaction_message",
    "default_sessions_dir",
    "estimate_tokens",
    "find_context_files",
    "record_tasks",
    "settle_interrupted_calls",
    "settle_lost_tasks",
]
