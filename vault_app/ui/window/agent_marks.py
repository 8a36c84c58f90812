""" "Changed since you last looked": which entities and facts agents wrote since the person
last opened them, remembered per vault in the app's settings.

Design
------
`LastLooked` keeps, in the app's settings store (QSettings, beside the recent vaults and
the theme), one JSON value per vault (keyed by a hash of its path): `since`, when marks
began for this vault (the first time the window opened it: nothing older is news), and
`entities`, the time the person last opened each entity. Only the newest `MAX_ENTITIES`
looks are kept; an entity whose look was dropped falls back to `since`. A change older
than `NEWS_DAYS` is no news (and is not read for).

`AgentMarks` asks the core which entities and facts agents and the heartbeat changed after
those times (`core.activity.agent_changes`, reading the audit log's tail on a worker; a
person's own writes, in this app or the CLI, are never news) and says what to mark:
`entity_marks()` for the sidebar, `fact_marks(address)` for the facts table. Opening an
entity (`opened`) clears its sidebar mark and records the look, while the facts that were
new stay marked for that visit, so the person sees what changed; leaving it (`left`:
another page or entity) ends the visit, and later changes mark it anew. Writes re-read the marks
after a short pause (`Session.entityChanged`, which live sync also sends for other
processes' writes).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from PySide6 import QtCore

from vault_app.core import activity
from vault_app.ui.session import Session

KEY = "looked/{}"
MAX_ENTITIES = 2000
# changes older than this are no news any more: it also bounds each read of the log (the
# marks are read again after every write, and a busy vault's log holds many lines a day)
NEWS_DAYS = 14
DEBOUNCE_MS = 700  # a burst of an agent's writes: one read of the log


def _key(root: Path) -> str:
    return KEY.format(hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:16])


def _time(text: object) -> dt.datetime | None:
    try:
        when = dt.datetime.fromisoformat(str(text))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.astimezone()


class LastLooked:
    """When the person last looked at each entity of one vault (see the module doc)."""

    def __init__(self, store: QtCore.QSettings, root: Path, now: dt.datetime) -> None:
        self.store = store
        self.key = _key(root)
        raw = store.value(self.key, "")
        try:
            saved = json.loads(raw) if isinstance(raw, str) and raw else {}
        except ValueError:
            saved = {}  # a damaged value: start again rather than fail
        saved = saved if isinstance(saved, dict) else {}
        since = _time(saved.get("since"))
        entries = saved.get("entities")
        self.entities: dict[str, dt.datetime] = {}
        for address, when in entries.items() if isinstance(entries, dict) else ():
            moment = _time(when)
            if moment is not None:
                self.entities[str(address)] = moment
        self.since = since if since is not None else now
        if since is None:
            self.save()

    def mark(self, address: str, when: dt.datetime) -> None:
        """The person looked at `address` at `when`."""
        self.entities.pop(address, None)
        self.entities[address] = when
        if len(self.entities) > MAX_ENTITIES:
            newest = sorted(self.entities.items(), key=lambda kv: kv[1])[-MAX_ENTITIES:]
            self.entities = dict(newest)
        self.save()

    def save(self) -> None:
        value = {
            "since": self.since.isoformat(),
            "entities": {a: t.isoformat() for a, t in self.entities.items()},
        }
        self.store.setValue(self.key, json.dumps(value, separators=(",", ":")))


def words(actors: Iterable[str], when: dt.datetime, now: dt.datetime) -> str:
    """ "Changed by finance and the heartbeat since you last looked (today 14:05)"."""
    names = [("the heartbeat" if a == activity.HEARTBEAT_ACTOR else a) for a in actors]
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    local, today = when.astimezone(), now.astimezone().date()
    if local.date() == today:
        at = f"today {local:%H:%M}"
    elif local.date() == today - dt.timedelta(days=1):
        at = f"yesterday {local:%H:%M}"
    else:
        at = f"{local:%Y-%m-%d %H:%M}"
    return f"Changed by {who} since you last looked ({at})"


class AgentMarks(QtCore.QObject):
    """What to mark in the sidebar and the facts table (see the module doc)."""

    changed = QtCore.Signal()  # the marks were read again, or an entity was opened

    def __init__(
        self, session: Session, store: QtCore.QSettings, parent: QtCore.QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.looked = LastLooked(store, session.vault.root, session.vault.now())
        self.entities: dict[str, activity.EntityChanges] = {}
        self.visit: tuple[str, dict[str, str]] | None = None  # the entity open, its marks
        self._reads = 0
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.refresh)
        session.entityChanged.connect(lambda _address: self._timer.start())

    def refresh(self) -> None:
        """Read the marks again (on a worker); `changed` follows."""
        self._reads += 1
        number, root = self._reads, self.session.vault.root
        news = self.session.vault.now() - dt.timedelta(days=NEWS_DAYS)
        since, looked = max(self.looked.since, news), dict(self.looked.entities)
        known = self.session.known
        agent_ids = tuple(known.agents) if known is not None else ()
        self.session.run(
            lambda: activity.agent_changes(root, since, looked=looked, agent_ids=agent_ids),
            lambda found: self._show(number, found),
            lambda _exc: None,  # an unreadable log marks nothing; the Activity page says why
        )

    def _show(self, number: int, found: dict[str, activity.EntityChanges]) -> None:
        if number != self._reads:
            return
        if self.visit is not None:  # the entity open: its new facts join this visit's
            address, marks = self.visit
            fresh = found.pop(address, None)
            if fresh is not None:
                marks.update(self._fact_words(fresh))
        self.entities = found
        self.changed.emit()

    def entity_marks(self) -> dict[str, str]:
        now = self.session.vault.now()
        return {a: words(c.actors, c.latest, now) for a, c in self.entities.items()}

    def fact_marks(self, address: str | None) -> dict[str, str]:
        """The facts to mark in `address`'s table: those new at this visit's start."""
        if self.visit is not None and self.visit[0] == address:
            return dict(self.visit[1])
        return {}

    def opened(self, address: str) -> None:
        """The person opened `address`: its mark clears, its new facts stay marked while
        it stays open, and the look is remembered."""
        if self.visit is not None and self.visit[0] == address:
            return
        self.left()
        change = self.entities.pop(address, None)
        self.visit = (address, self._fact_words(change) if change is not None else {})
        self.looked.mark(address, self.session.vault.now())
        self.changed.emit()

    def left(self) -> None:
        """The person left the entity open (another page or entity): what it showed was
        seen, so the look is recorded again; later changes mark it anew."""
        if self.visit is not None:
            self.looked.mark(self.visit[0], self.session.vault.now())
            self.visit = None
            self.changed.emit()

    def _fact_words(self, change: activity.EntityChanges) -> dict[str, str]:
        now = self.session.vault.now()
        return {
            fact_id: words([change.by.get(fact_id, "an agent")], when, now)
            for fact_id, when in change.facts.items()
        }
