"""The Activity page's two tables and what they show: the heartbeat's runs and the vault's
recent writes.

Runs are `heartbeat.runlog.RunRecord`s, newest first; a run that stopped on an error is
drawn in the theme's error colour on a warning tint, with its error in the last column.
Writes are audit-log lines (`core.activity.recent`: dicts with `time`, `actor`, `action`,
`target`, then the write's own fields), newest first; each says who wrote it — an agent,
the heartbeat, or a person (the app's faces `gui`, `cli`, `api`, `demo` are people at a
keyboard or their scripts; any other name that is no agent is a person too).

Filtering lives in the core (`core.activity.Query`, applied while the log is read):
`Filter` is what the page's controls chose (who, what, entity words, a span or a range of
days) and becomes a `Query` for a moment (`Filter.query`). Reading a line (`actor_kind`,
`entity_of`, `family`...) is the core's too, named here for the views. A write an agent
or the heartbeat made to a fact can be reverted (`revertible`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

from PySide6 import QtCore, QtGui

from vault_app.core import activity, feed, revert
from vault_app.heartbeat import runlog
from vault_app.ui import themes
from vault_app.ui.models.base import ColumnTable

Qt = QtCore.Qt
Role = Qt.ItemDataRole
Index = QtCore.QModelIndex | QtCore.QPersistentModelIndex

RUN_ROLE = Role.UserRole + 30  # a runs row's RunRecord
LINE_ROLE = Role.UserRole + 31  # a writes row's audit line (dict)

HEARTBEAT_ACTOR = activity.HEARTBEAT_ACTOR
KINDS = activity.KINDS
KIND_TITLES = {"agent": "Agent", "heartbeat": "Heartbeat", "person": "Person"}

SPANS = {
    "today": "Today",
    "7d": "Last 7 days",
    "30d": "Last 30 days",
    "all": "All time",
    "range": "Between dates…",
}

FAMILY_TITLES = {
    "fact": "Facts",
    "daily": "Daily notes",
    "document": "Documents",
    "summary": "Summaries",
    "entity": "Entities",
    "index": "Indexes",
    "config": "Settings",
    "review": "Review queue",
    "file": "Files",
    "token": "Access tokens",
    "doctor": "Repairs",
    "sync": "Merges from other devices",
    "heartbeat": "Heartbeat bookkeeping",
    "notes": "Notes entries",
    "profile": "Profile",
    "tiers": "Tiered memory",
}
BOOKKEEPING = activity.BOOKKEEPING

ACTION_TITLES = feed.ACTIONS  # "Added a fact": the core's, one list for every face

# Text colours of the kinds of actor, each ≥ 4.5:1 on the theme's Base (light, dark);
# a person is the palette's own text colour
_KIND_COLOURS = {"agent": ("#1c5db5", "#8fb8ff"), "heartbeat": ("#7a2e9e", "#d8a6f5")}


# -- reading a line -----------------------------------------------------------------------


actor_kind = activity.actor_kind
actor_title = activity.actor_title
family = activity.family
entity_of = activity.entity_of
moment = activity.moment


def _held(told: feed.Told | None) -> bool:
    return told is not None and told.review_id is not None


def action_title(action: str) -> str:
    return ACTION_TITLES.get(action, action)


def where(line: dict[str, Any]) -> str:
    """Where a write went: the entity's address, or the file's path in the vault."""
    return entity_of(line) or str(line.get("target", ""))


def revertible(line: dict[str, Any], agent_ids: Iterable[str] = ()) -> bool:
    """Whether the Revert command applies: a fact added or changed by an agent or the
    heartbeat (`core.revert` refuses, in words, when it changed since)."""
    kind = actor_kind(str(line.get("actor", "")), agent_ids)
    fact_id = line.get("factId")
    return (
        kind != "person"
        and line.get("action") in revert.REVERTIBLE
        and isinstance(fact_id, str)
        and bool(fact_id)
    )


def when_text(when: dt.datetime | None, now: dt.datetime, *, seconds: bool = True) -> str:
    """Local time: "today 14:05:09" (or 14:05), "yesterday 09:12", else "2026-11-20 09:12"."""
    if when is None:
        return "?"
    local, today = when.astimezone(), now.astimezone().date()
    if local.date() == today:
        return f"today {local:%H:%M:%S}" if seconds else f"today {local:%H:%M}"
    if local.date() == today - dt.timedelta(days=1):
        return f"yesterday {local:%H:%M}"
    return f"{local:%Y-%m-%d %H:%M}"


def since(span: str, now: dt.datetime) -> dt.datetime | None:
    """The start of a span of `SPANS` (local midnight for "today"); None for "all" (and
    for "range", whose days `Filter.bounds` reads)."""
    local = now.astimezone()
    if span == "today":
        return local.replace(hour=0, minute=0, second=0, microsecond=0)
    if span in ("7d", "30d"):
        return local - dt.timedelta(days=int(span[:-1]))
    return None


def duration_text(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 120:
        return f"{seconds:.1f} s"
    return f"{seconds / 60:.0f} min"


def run_outcome(record: runlog.RunRecord) -> str:
    """A run in a few words: "3 facts written, 1 duplicate skipped" or its error."""
    if record.error:
        return f"failed: {record.error}"
    if record.job == "synthesis":
        return f"{record.summaries} summar{'y' if record.summaries == 1 else 'ies'} rewritten"
    parts = [f"{record.written} fact{'' if record.written == 1 else 's'} written"]
    if record.deduped:
        parts.append(f"{record.deduped} duplicate{'' if record.deduped == 1 else 's'} skipped")
    if record.failed:
        parts.append(f"{record.failed} entr{'y' if record.failed == 1 else 'ies'} to retry")
    return ", ".join(parts)


def run_detail(record: runlog.RunRecord, now: dt.datetime) -> str:
    """A run in one sentence, for the line under the runs table."""
    how = f"run by {record.runner} ({record.trigger})"
    if record.extractor:
        how += f" with {record.extractor}"
    head = f"{record.job.title()} {when_text(record.started, now)}, {how}"
    if record.job == "heartbeat":
        head += f", {record.entries} entr{'y' if record.entries == 1 else 'ies'} read"
    return f"{head}: {run_outcome(record)} ({duration_text(record.duration_s)})."


# -- filtering ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Filter:
    """What the page's controls chose: `actor` is "" (everyone), a kind ("kind:agent",
    "kind:heartbeat", "kind:person") or one actor ("agent:finance", "gui"); `family` an
    action family or "" (every family but the heartbeat's bookkeeping); `entity` words
    the target must contain; `span` one of SPANS; with "range", the days `first` to
    `last` (both included, local days)."""

    actor: str = ""
    family: str = ""
    entity: str = ""
    span: str = "7d"
    first: dt.date | None = None
    last: dt.date | None = None

    def bounds(self, now: dt.datetime) -> tuple[dt.datetime | None, dt.datetime | None]:
        """The [start, end) of the chosen span or days, as aware local times."""
        if self.span != "range":
            return since(self.span, now), None
        start = None if self.first is None else _midnight(self.first)
        end = None if self.last is None else _midnight(self.last + dt.timedelta(days=1))
        return start, end

    def query(self, now: dt.datetime, agent_ids: Iterable[str] = ()) -> activity.Query:
        """The core's query for these choices at `now`."""
        start, end = self.bounds(now)
        return activity.Query(
            actor=self.actor,
            family=self.family,
            entity=self.entity,
            start=start,
            end=end,
            agent_ids=tuple(agent_ids),
        )

    def keeps_run(self, record: runlog.RunRecord, now: dt.datetime) -> bool:
        return self.query(now).covers(record.started)


def _midnight(day: dt.date) -> dt.datetime:
    """The start of a local day, aware."""
    return dt.datetime.combine(day, dt.time()).astimezone()


# -- the models ---------------------------------------------------------------------------


def kind_colour(kind: str, palette: QtGui.QPalette) -> QtGui.QColor:
    """The text colour of an actor's kind in the palette's theme."""
    if kind not in _KIND_COLOURS:
        return palette.color(QtGui.QPalette.ColorRole.Text)
    light, dark = _KIND_COLOURS[kind]
    return QtGui.QColor(dark if themes.is_dark(palette) else light)


class RunsModel(ColumnTable, QtCore.QAbstractTableModel):
    """The heartbeat's and the synthesis's runs, newest first; `set_runs` replaces them."""

    COLUMNS = (
        "When", "Job", "Runner", "Trigger", "Extractor", "Entries", "Written", "Deduped",
        "Superseded", "Deferred", "Flagged", "Failed", "Duration", "Error",
    )  # fmt: skip
    COLUMN_TIPS = (
        "When the run started (local time)",
        "The heartbeat (daily notes to facts) or the weekly synthesis (summaries)",
        "Who ran it: serve, the desktop app, or the command line",
        "Why: the schedule, a catch-up after downtime, or --once",
        "What turned entries into facts: the rules or a model",
        "Daily-note entries read",
        "Facts written",
        "Candidates skipped: the entity already knew them",
        "Facts replaced by a changed value",
        "Candidates kept in the notes until their entity is mentioned a third time",
        "Candidates held back by the injection scan",
        "Entries that failed (tried again next run)",
        "How long the run took",
        "What stopped the run, if something did",
    )
    COUNTS = ("entries", "written", "deduped", "superseded", "deferred", "flagged", "failed")
    FIRST_COUNT, DURATION, ERROR = 5, 12, 13

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[runlog.RunRecord] = []
        self.now = dt.datetime.now(dt.UTC)

    def set_runs(self, records: Sequence[runlog.RunRecord], now: dt.datetime) -> None:
        self.beginResetModel()
        self._rows, self.now = list(records), now
        self.endResetModel()

    def runs(self) -> list[runlog.RunRecord]:
        return list(self._rows)

    def data(self, index: Index, role: int = Role.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        record, column = self._rows[index.row()], index.column()
        palette = QtGui.QGuiApplication.palette()
        if role == Role.DisplayRole:
            return self._text(record, column)
        if role == RUN_ROLE:
            return record
        if role == Role.ToolTipRole:
            return run_detail(record, self.now)
        if role == Role.TextAlignmentRole and self.FIRST_COUNT <= column <= self.DURATION:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        failed_cell = column == self.FIRST_COUNT + 6 and record.failed > 0
        if role == Role.ForegroundRole and (record.error or failed_cell):
            return QtGui.QBrush(themes.error_colour(palette))
        if role == Role.BackgroundRole and record.error:
            return QtGui.QBrush(themes.warning_background(palette))
        if role == Role.FontRole and record.error and column in (1, self.ERROR):
            font = QtGui.QFont()
            font.setBold(True)
            return font
        return None

    def _text(self, record: runlog.RunRecord, column: int) -> str:
        if column == 0:
            return when_text(record.started, self.now, seconds=False)
        if column == 1:
            title = record.job.title()
            return f"⚠ {title} failed" if record.error else title
        if column in (2, 3):
            return record.runner if column == 2 else record.trigger
        if column == 4:
            return record.extractor or "—"
        if column == self.DURATION:
            return duration_text(record.duration_s)
        if column == self.ERROR:
            return (record.error or "").splitlines()[0] if record.error else ""
        if record.job == "synthesis" and column == self.FIRST_COUNT + 1:
            return str(record.summaries)  # its "written" are the summaries
        if record.job == "synthesis":
            return ""
        return str(getattr(record, self.COUNTS[column - self.FIRST_COUNT]))


class WritesModel(ColumnTable, QtCore.QAbstractTableModel):
    """Audit-log lines, newest first; `set_lines` replaces them."""

    COLUMNS = ("When", "Who", "Kind", "What", "Where")
    COLUMN_TIPS = (
        "When the write was made (local time)",
        "The agent, the heartbeat, or You (this app, the command line)",
        "Agent, heartbeat or person",
        "What was done, with the fact's own text (the audit log's action in the tooltip)",
        "The entity (double-click to open it), the review queue, a daily note or a file",
    )
    WHERE = 4

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[dict[str, Any]] = []
        self.told: list[feed.Told] = []  # the rows in words (`core.feed`), when read
        self.agent_ids: tuple[str, ...] = ()
        self.now = dt.datetime.now(dt.UTC)

    def set_lines(
        self,
        lines: Sequence[dict[str, Any]],
        now: dt.datetime,
        agent_ids: Iterable[str] = (),
        told: Sequence[feed.Told] = (),
    ) -> None:
        """The lines shown, newest first, and `told`, each in words (`core.feed.tell`;
        without them a row says what its line says)."""
        self.beginResetModel()
        self._rows, self.now, self.agent_ids = list(lines), now, tuple(agent_ids)
        self.told = list(told) if len(told) == len(self._rows) else []
        self.endResetModel()

    def lines(self) -> list[dict[str, Any]]:
        return list(self._rows)

    def line(self, row: int) -> dict[str, Any] | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def told_at(self, row: int) -> feed.Told | None:
        return self.told[row] if 0 <= row < len(self.told) else None

    def data(self, index: Index, role: int = Role.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        line, column = self._rows[index.row()], index.column()
        actor = str(line.get("actor", ""))
        told = self.told_at(index.row())
        if role == Role.DisplayRole:
            return self._text(line, column, told)
        if role == LINE_ROLE:
            return line
        if role == Role.ToolTipRole:
            return self._tip(line, column, told)
        if role == Role.ForegroundRole and column in (1, 2):
            kind = actor_kind(actor, self.agent_ids)
            return QtGui.QBrush(kind_colour(kind, QtGui.QGuiApplication.palette()))
        if role == Role.FontRole and column == 4 and (entity_of(line) or _held(told)):
            font = QtGui.QFont()
            font.setUnderline(True)  # it opens: a link's look
            return font
        if role == Role.FontRole and column == 3 and told is not None and told.reverted:
            font = QtGui.QFont()
            font.setItalic(True)  # taken back since
            return font
        return None

    def _text(self, line: dict[str, Any], column: int, told: feed.Told | None) -> str:
        actor = str(line.get("actor", ""))
        if column == 0:
            return when_text(moment(line), self.now)
        if column == 1:
            return told.who if told is not None else actor_title(actor, self.agent_ids)
        if column == 2:
            return KIND_TITLES[actor_kind(actor, self.agent_ids)]
        if column == 3:
            if told is None:
                return action_title(str(line.get("action", "")))
            did = told.did[:1].upper() + told.did[1:]
            return did + (" — since reverted" if told.reverted else "")
        if told is not None:
            return "The review queue" if told.where == "the review queue" else told.where
        return where(line)

    def _tip(self, line: dict[str, Any], column: int, told: feed.Told | None) -> str:
        if column == 1:
            return f"actor: {line.get('actor', '')}"
        if column == 3:
            action = str(line.get("action", ""))
            said = f"{told.sentence}\n" if told is not None else ""
            if told is not None and told.reverted:
                return f"{said}{action}\nTaken back since: nothing to revert"
            if revertible(line, self.agent_ids):
                back = "Revert (Ctrl+Alt+Z) takes it back: a supersede, nothing deleted"
                return f"{said}{action}\n{back}"
            return said + action
        tip = str(line.get("target", ""))
        if _held(told):
            return tip + "\nDouble-click to open it in the review queue"
        return tip + ("\nDouble-click to open the entity" if entity_of(line) else "")
