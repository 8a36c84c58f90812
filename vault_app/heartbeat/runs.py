"""One heartbeat run and one synthesis run, end to end, each logged as a `RunRecord`.

The heartbeat: the cursor's new entries (`entries.Cursor`) go to the extractor in
batches; each candidate fact of an entry then passes, in order,

1. the injection scan (`core.injection.scan`) of its text and of the entity names the
   extractor gave: a finding keeps it out (`flagged`);
2. routing (`routing.Router`): no entity yet (or nothing routable named) keeps it in
   the notes (`deferred`); an entity created now (third mention, or asked to track) is
   made (`created`) and the facts of its earlier mentions are written with this one;
3. dedup (`dedup.Deduper`): the same or a near-duplicate fact is skipped and marked
   accessed (`deduped`; the accesses are written once, at the end of the run, one write
   per entity); the same subject with a changed value supersedes (`superseded`), and so
   does a role passed to someone else, across two entities of the same memory
   (`holders`: "Leila's new neurologist is Dr. Brandt" retires "Leila's neurologist is
   Dr. Okafor" in Dr. Okafor's entity);
4. the crash guard: a fact this very entry already wrote to the entity (its metadata
   names the entry; any status) is a rerun after a crash: skipped, not marked accessed;
5. the access policy (`core.access`): the heartbeat acts for the agent whose note it
   reads, with that agent's rights, through a vault opened as `heartbeat:<agent>` (the
   global notes: `heartbeat`, which writes only global memory). A global entity the
   agent may not write holds the fact for a person's review (`held`: approving it
   writes it there), once dedup has read the entity (when the agent may read it): what
   it holds already is no proposal (`deduped`), and a changed value is proposed as the
   supersede it is, so that the person sees the value it replaces and approving it
   retires that one; another agent's workspace, which it may never write, sends it to
   the same path in the agent's own workspace (`rerouted`); from the global notes, it
   stays in the note (`deferred`). Never silently elsewhere;
6. the write (`written`): `source="heartbeat"`, `agent_id` the entry's agent,
   `metadata={"heartbeat": {"entry": ref, "extractor": name}}`, stamped with the entry's
   time (never later than now).

Never loses, never duplicates: an entry joins the cursor only once all its facts are
written, and the cursor (with the mention counts, saved just before it) is saved every
`SAVE_EVERY` entries and at the end. A SIGKILL between two saves leaves some entries
before the cursor whose facts are already on disk: the rerun extracts them again and the
crash guard skips what they wrote: before dedup, a fact this very entry already wrote
to the entity (superseded since, or not) is not written again, nor is a proposal the
entry already made queued again (an old value never becomes current again). Entries the
extractor failed on (the endpoint down) or whose facts could not be written stay before
the cursor and are retried next run (`failed`). A run raises for nothing the extraction
or the endpoint does; a problem that stops it (a corrupt cursor) is the record's `error`.

The synthesis rewrites every summary (and the indexes) through `Vault.synthesize`, each
scope with its own rights: global memory as `heartbeat`, an agent's workspace as
`heartbeat:<agent>`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_app.core import access, config, decay, errors, injection, layout
from vault_app.core.vault import Vault
from vault_app.heartbeat import entries as entries_mod
from vault_app.heartbeat import runlog
from vault_app.heartbeat.extraction import ACTOR, Candidate, Entry, Extraction, Extractor

if TYPE_CHECKING:
    import numpy as np

    from vault_app.heartbeat import dedup

BATCH = 50  # entries per extractor call
SAVE_EVERY = 100  # entries between two saves of the cursor (a rerun redoes at most these)

log = logging.getLogger(__name__)


def extractor_for(
    settings: config.HeartbeatSettings,
    *,
    llm_base_url: str | None = None,
    llm_model: str | None = None,
) -> Extractor:
    """The model endpoint when one is configured (or given), else the rules."""
    base = llm_base_url if llm_base_url is not None else settings.llm_base_url
    model = llm_model if llm_model is not None else settings.llm_model
    if base:
        if not model:
            raise errors.VaultError(
                f"an LLM endpoint ({base}) needs a model name: --llm-model NAME, or "
                "llm_model in [heartbeat] of .vault/config.toml"
            )
        from vault_app.heartbeat import llm

        found = llm.from_settings(
            settings.model_copy(update={"llm_base_url": base, "llm_model": model})
        )
        if found is not None:
            return found
    from vault_app.heartbeat import rules

    return rules.RuleExtractor()


def _with_explicit(extraction: Extraction, batch: list[Entry]) -> None:
    """Complete another extractor's candidates with the entries' explicit requests to
    remember as the rules read them (`rules.explicit_candidates`): one it missed, or
    wrote differently, is still kept (dedup then keeps one of two near-equal facts)."""
    from vault_app.heartbeat import rules

    failed = {entry.ref for entry, _ in extraction.failed}
    found = {(c.entry.ref, c.fact.lower()) for c in extraction.candidates}
    for entry in batch:
        if entry.ref in failed:
            continue
        for candidate in rules.explicit_candidates(entry):
            if (entry.ref, candidate.fact.lower()) not in found:
                extraction.candidates.append(candidate)


def run_heartbeat(
    root: Path,
    *,
    runner: str,
    trigger: str,
    extractor: Extractor | None = None,
    now: dt.datetime | None = None,
    embed: Callable[[list[str]], np.ndarray] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> runlog.RunRecord:
    """One heartbeat over the entries new since the cursor; the record is appended to
    the run log and returned. The caller holds the lease. `cancelled()` (asked between
    entries) stops the run early, everything done so far saved."""
    with _recorded(root, "heartbeat", runner, trigger, now) as (vault, record):
        if extractor is None:
            extractor = extractor_for(vault.config.heartbeat)
        record.extractor = extractor.name
        _Run(vault, extractor, record, record.started, embed, cancelled).run()
    return record


def run_synthesis(
    root: Path, *, runner: str, trigger: str, now: dt.datetime | None = None
) -> runlog.RunRecord:
    """The weekly synthesis: every summary and index rewritten; logged and returned.

    Each scope is written with its own rights, as the heartbeat writes its facts: global
    memory as `heartbeat`, an agent's workspace as `heartbeat:<agent>` (the global
    heartbeat may not write an agent's workspace; one vault for all stopped the whole
    synthesis at the first agent's summary)."""
    with _recorded(root, "synthesis", runner, trigger, now) as (vault, record):
        results, problems = vault.synthesize(at=record.started, scopes=[None])
        for agent in vault.paths.agent_ids():
            acting = Vault(
                root, clock=vault.clock, actor=access.heartbeat_actor(agent), settings=vault.config
            )
            done, found = acting.synthesize(at=record.started, scopes=[agent])
            results += done
            problems += found
        record.summaries = sum(1 for r in results if r.changed and r.ref is not None)
        if problems:
            record.failed = len(problems)
            first = problems[0]
            where = f" at {first.location}" if first.location else ""
            record.error = (
                f"{len(problems)} file(s) not synthesized; first: {first.path}{where}: "
                f"{first.message}"
            )
    return record


@contextlib.contextmanager
def _recorded(
    root: Path, job: runlog.Job, runner: str, trigger: str, now: dt.datetime | None
) -> Iterator[tuple[Vault, runlog.RunRecord]]:
    """A run's vault (actor heartbeat) and record; on the way out, whatever stopped the
    run is its error (never raised: a failing run must not stop the runner), and the
    record, timed, is appended to the run log."""
    clock = time.perf_counter()
    vault = Vault(root, actor=ACTOR)
    started = decay.as_aware(now) if now is not None else vault.now()
    record = runlog.RunRecord(
        job=job, started=started, duration_s=0, runner=runner, trigger=trigger
    )
    try:
        yield vault, record
    except errors.VaultError as exc:
        record.error = str(exc)
    except OSError as exc:
        record.error = f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": ")
    except Exception as exc:  # a bug must not stop the runner: logged and recorded
        log.exception("the %s failed", job)
        record.error = f"unexpected {type(exc).__name__}: {exc} (a bug: please report it)"
    record.duration_s = round(time.perf_counter() - clock, 3)
    runlog.append(vault.storage, record)


class _Run:
    """The state of one heartbeat run (see the module's docstring)."""

    def __init__(
        self,
        vault: Vault,
        extractor: Extractor,
        record: runlog.RunRecord,
        now: dt.datetime,
        embed: Callable[[list[str]], np.ndarray] | None,
        cancelled: Callable[[], bool] | None,
    ) -> None:
        from vault_app.heartbeat import dedup, holders, mentions, routing

        self.vault, self.extractor, self.record, self.now = vault, extractor, record, now
        self.cancelled = cancelled or (lambda: False)
        self.cursor = entries_mod.Cursor.load(vault.root)  # corrupt: the run stops here
        self.mentions = mentions.MentionCounts.load(vault.root)
        self.holders = holders.Holders()  # who holds a role: before, across entities
        self.router = routing.Router(vault, self.mentions, self._kin_of_user)
        self.deduper = dedup.Deduper(vault, embed=embed)
        # (agent whose note it was, None: global) -> fact id -> its entity
        self.accessed: dict[str | None, dict[str, layout.EntityRef]] = {}
        self.writers: dict[str | None, Vault] = {None: vault}  # the heartbeat for each agent
        self.proposed: set[tuple[str, str]] | None = None  # (entry ref, text) held for review
        self.titles: dict[layout.EntityRef, str] = {}  # the names new entities were said as
        self.full: set[str | None] = set()  # agents whose review share filled this run
        self.mine: dict[layout.EntityRef, set[tuple[str, str]]] = {}  # (entry ref, fact)
        self.problems: list[str] = []

    def run(self) -> None:
        new = self.cursor.new_entries(self.vault)
        self.problems.extend(str(p) for p in self.cursor.problems)
        self.record.entries = len(new)
        pending: list[Entry] = []
        since_save = 0
        for start in range(0, len(new), BATCH):
            if self.cancelled():
                break
            batch = new[start : start + BATCH]
            extraction = self._extract(batch)
            failed = {entry.ref for entry, _ in extraction.failed}
            self.record.failed += len(failed)
            by_entry: dict[str, list[Candidate]] = {}
            for candidate in extraction.candidates:
                by_entry.setdefault(candidate.entry.ref, []).append(candidate)
            self.record.extracted += len(extraction.candidates)
            for entry in batch:
                if entry.ref in failed:
                    continue
                if self._entry(entry, by_entry.get(entry.ref, [])):
                    pending.append(entry)
                else:
                    self.record.failed += 1
                since_save += 1
                if since_save >= SAVE_EVERY:
                    self._save(pending)
                    pending, since_save = [], 0
                if self.cancelled():
                    break
        self._save(pending)
        self._mark_accessed()
        if self.problems and self.record.error is None:
            more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
            self.record.error = self.problems[0] + more

    def _extract(self, batch: list[Entry]) -> Extraction:
        try:
            extraction = self.extractor.extract(batch)
        except Exception as exc:  # an extractor's bug must not stop the runner
            log.exception("the %s extractor failed", self.extractor.name)
            self.problems.append(f"extractor {self.extractor.name} failed: {exc}")
            return Extraction(failed=[(entry, str(exc)) for entry in batch])
        if self.extractor.name != "rules":  # (the rules found them already)
            _with_explicit(extraction, batch)
        return extraction

    def _save(self, done: list[Entry]) -> None:
        """The mention counts, then the cursor: in that order, so a crash between them
        redoes work (the crash guard skips it) rather than losing any."""
        self.mentions.save(self.vault.storage)
        self.cursor.mark_done(done)
        self.cursor.save(self.vault.storage)

    def _mark_accessed(self) -> None:
        """One access of each fact found again, once at the end of the run: one write per
        entity, not one per save (a crash loses these counts, never a fact), each made
        for the agent whose note found it again."""
        for agent, accessed in self.accessed.items():
            try:
                self._writer(agent).mark_accessed(accessed, where=accessed)
            except errors.VaultError as exc:
                self.problems.append(f"access counts not saved: {exc}")
        self.accessed = {}

    def _writer(self, agent: str | None) -> Vault:
        """The vault the heartbeat writes with for `agent`'s note: opened as
        `heartbeat:<agent>`, with that agent's rights (`access`)."""
        writer = self.writers.get(agent)
        if writer is None:
            writer = Vault(
                self.vault.root,
                clock=self.vault.clock,
                actor=access.heartbeat_actor(agent),
                settings=self.vault.config,
            )
            self.writers[agent] = writer
        return writer

    # -- one entry ---------------------------------------------------------------------

    def _entry(self, entry: Entry, candidates: list[Candidate]) -> bool:
        """Write the facts of one entry; False if one could not be written (retried)."""
        for candidate in candidates:
            try:
                self._candidate(candidate)
            except errors.VaultError as exc:
                self.problems.append(f"{entry.ref}: {exc}")
                return False
        return True

    def _candidate(self, candidate: Candidate) -> None:
        names = [candidate.entity or "", *candidate.related]  # (an extractor's: pasted too)
        if any(injection.scan(text) for text in (candidate.fact, *names) if text):
            self.record.flagged += 1
            return
        route = self.router.route(candidate)
        if route.ref is None:  # deferred, or naming nothing routable: it stays in the notes
            self.record.deferred += 1
            return
        if route.ref.category == "archives":  # an archived entity takes no new facts
            self.record.deferred += 1  # (core refuses them): the fact stays in the note
            return
        self._allowed(route.ref, candidate, route.create, route.name)
        if route.name is not None:  # the facts that waited for this entity, if any
            for earlier in self.router.released(route.name):
                if self._is_same(earlier, candidate):
                    continue
                self._allowed(route.ref, earlier, route.create, route.name)

    def _allowed(
        self, ref: layout.EntityRef, candidate: Candidate, create: bool, name: str | None = None
    ) -> None:
        """Place `candidate` in `ref` as the access policy says for its agent: there, held
        for review, in the agent's own workspace instead, or (global notes) not at all."""
        agent = candidate.entry.agent
        writer = self._writer(agent)
        # an entity it makes is headed with a name as written ("Tomás", "Dr. Farah Kim");
        # a thing's word ("dishwasher") as its folder's, "Dishwasher"
        said = name or ""
        named = not said.islower() and "/" not in said and ":" not in said
        if said and named:
            self.titles.setdefault(ref, said)
        title = self.titles.get(ref)
        decision = writer.decide(access.Action.WRITE, access.Target.entity(ref))
        if decision.verdict is access.Verdict.REVIEW:  # each held fact that would make the
            new = not writer.paths.holds_entity(ref)  # entity heads it so: any one of
            known = None if new else self._known(writer, ref, candidate)  # them may be
            if known is not None and known.kind in ("same", "near"):  # approved first
                self.record.deduped += 1  # the entity holds it: nothing for a person
                return
            replaces = known.fact_id if known is not None and known.kind == "update" else None
            self._propose(writer, ref, candidate, decision.reason, title if new else None, replaces)
            return
        if decision.verdict is access.Verdict.DENY:
            if agent is None:
                self.record.deferred += 1  # the global notes' heartbeat writes global only
                return
            ref, create = layout.EntityRef(agent, ref.path), True  # its own workspace
            self.record.rerouted += 1
        if create and not writer.paths.holds_entity(ref):
            from vault_app.heartbeat import routing

            try:
                writer.create_entity(ref, routing.first_summary(ref), title=title)
                self.record.created += 1
            except errors.AlreadyExistsError:
                pass
        self._place(writer, ref, candidate)

    def _propose(
        self,
        writer: Vault,
        ref: layout.EntityRef,
        candidate: Candidate,
        reason: str,
        title: str | None = None,
        replaces: str | None = None,
    ) -> None:
        """Hold `candidate` for a person: a proposal to add it to `ref` as the heartbeat
        for its agent (approving it writes it there, making the entity headed `title` when
        it is new), or to supersede fact `replaces` of `ref` with it (the person reads the
        old value beside the new; approving it retires the old one); once per entry and
        text, reruns included."""
        from vault_app.core import agent_writes, review

        entry = candidate.entry
        if self.proposed is None:
            self.proposed = set()
            for p in review.all_proposals(self.vault):
                meta = (p.write.params.get("metadata") or {}).get("heartbeat")
                if p.write.via == "heartbeat" and isinstance(meta, dict):
                    self.proposed.add((str(meta.get("entry")), str(p.write.params.get("text"))))
        if (entry.ref, candidate.fact) in self.proposed:
            return
        if entry.agent in self.full:  # its review share is full: the fact waits in its note
            self.record.deferred += 1
            return
        fields = self._fields(ref, candidate)
        assert entry.agent is not None  # (the global notes' heartbeat writes global)
        params: dict[str, Any] = {
            "text": candidate.fact,
            "category": candidate.category.value,
            "related": fields["related"],
            "source": fields["source"],
            "confidence": fields["confidence"],
            "metadata": fields["metadata"],
        }
        if replaces is not None:
            params["fact_id"] = replaces
        else:
            params.update(entity=str(ref), **({"title": title} if title else {}))
        write = agent_writes.AgentWrite(
            kind="add_fact" if replaces is None else "supersede_fact",
            agent=entry.agent,
            via="heartbeat",
            params=params,
            at=fields["at"],
        )
        finding = injection.Finding("access", "global_writers", reason, candidate.fact[:160])
        try:
            review.propose(writer, write, [finding])
        except errors.QuotaExceededError as exc:  # a person decides the ones held first;
            self.full.add(entry.agent)  # the rest stay in the notes (nothing lost), and
            self.record.deferred += 1  # the run goes on
            self.problems.append(f"{entry.ref}: {exc}")
            return
        self.proposed.add((entry.ref, candidate.fact))
        self.record.held += 1

    def _known(
        self, writer: Vault, ref: layout.EntityRef, candidate: Candidate
    ) -> dedup.Verdict | None:
        """Dedup's verdict on `candidate` against entity `ref`, which its agent may not
        write without a person, when the agent may read it (else None: no read it may not
        make is made for it)."""
        if not writer.decide(access.Action.READ, access.Target.entity(ref)).allowed:
            return None
        return self.deduper.check(ref, candidate.fact, candidate.category)

    @staticmethod
    def _is_same(a: Candidate, b: Candidate) -> bool:
        return a.entry.ref == b.entry.ref and a.fact == b.fact

    def _place(self, writer: Vault, ref: layout.EntityRef, candidate: Candidate) -> None:
        """Dedup, then supersede or write `candidate` in entity `ref` (with `writer`)."""
        if (candidate.entry.ref, candidate.fact) in self._mine(ref):
            self.record.deduped += 1  # this very entry wrote it: a rerun after a crash
            return
        verdict = self.deduper.check(ref, candidate.fact, candidate.category)
        if verdict.kind in ("same", "near") and verdict.fact_id is not None:
            self.record.deduped += 1
            self.accessed.setdefault(candidate.entry.agent, {})[verdict.fact_id] = ref
            return
        fields = self._fields(ref, candidate)
        before = None if verdict.kind == "update" else self._held_before(writer, ref, candidate)
        if verdict.kind == "update" and verdict.fact_id is not None:
            old, fact = writer.supersede_fact(
                verdict.fact_id, candidate.fact, category=candidate.category, ref=ref, **fields
            )
            self.deduper.added(ref, old)  # now inactive: it leaves the cache
            self.record.superseded += 1
        elif before is not None:  # the role passed from someone in another entity
            old, fact = writer.supersede_fact(
                before[1], candidate.fact, category=candidate.category, ref=before[0],
                into=ref, **fields,
            )  # fmt: skip
            self.deduper.added(before[0], old)
            self.record.superseded += 1
        else:
            fact = writer.add_fact(ref, candidate.fact, candidate.category, **fields)
            self.record.written += 1
        retired = before[1] if before is not None else None
        if verdict.kind == "update":
            retired = verdict.fact_id
        self.holders.wrote(ref, fact, retired)
        self.deduper.added(ref, fact)
        if ref in self.mine:
            self.mine[ref].add((candidate.entry.ref, candidate.fact))

    def _kin_of_user(self, scope: str | None, role: str) -> layout.EntityRef | None:
        """The entity of memory `scope` a fact names as the user's `role` (`holders`)."""
        return self.holders.holder(self._writer(scope), scope, "The user", role)

    def _held_before(
        self, writer: Vault, ref: layout.EntityRef, candidate: Candidate
    ) -> tuple[layout.EntityRef, str] | None:
        """(entity, fact id) of the current fact naming the one who held the role the
        candidate gives someone else (`holders`), when its agent may change it and it is
        in the same memory (global, or the same agent's): a private fact never retires a
        fact others read, nor links them to it."""
        for where, fact in self.holders.previous(writer, ref, candidate.fact):
            if writer.decide(access.Action.WRITE, access.Target.entity(where)).allowed:
                return where, fact.id
        return None

    def _fields(self, ref: layout.EntityRef, candidate: Candidate) -> dict[str, Any]:
        entry = candidate.entry
        moment = decay.as_aware(entry.moment)
        return {
            "related": self._related(ref, candidate),
            "source": ACTOR,
            "agent_id": entry.agent,
            "confidence": candidate.confidence,
            "metadata": {"heartbeat": {"entry": entry.ref, "extractor": self.extractor.name}},
            "at": min(moment, self.now),
        }

    def _related(self, ref: layout.EntityRef, candidate: Candidate) -> list[str]:
        """The related entities the candidate names that exist and its agent may read."""
        out: list[str] = []
        for name in candidate.related:
            try:
                found = self.vault.resolve_reference(name, candidate.entry.agent)
            except errors.VaultError:
                continue
            if found is None or found == ref or str(found) in out:
                continue
            reads = self._writer(candidate.entry.agent).decide(
                access.Action.READ, access.Target.entity(found)
            )
            if reads.allowed:  # (another agent's private entity is not named in a fact)
                out.append(str(found))
        return out

    def _mine(self, ref: layout.EntityRef) -> set[tuple[str, str]]:
        """(entry ref, text) of the facts of `ref`, of any status, the heartbeat wrote:
        read once a run, for each entity a candidate goes to (the crash guard: a fact a
        crashed run wrote, superseded since or not, is never written again)."""
        known = self.mine.get(ref)
        if known is None:
            known = set()
            view = self.vault.entity(ref)
            for fact in view.facts:
                meta = (fact.metadata or {}).get("heartbeat")
                if isinstance(meta, dict) and isinstance(meta.get("entry"), str):
                    known.add((meta["entry"], fact.fact))
            self.mine[ref] = known
        return known
