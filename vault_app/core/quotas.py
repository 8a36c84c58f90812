"""What one agent may consume: the quotas every agent write is measured against.

An agent with a valid token is trusted to write its own memory, not to exhaust what
every agent shares: the disk, the review queue, a shared entity's file, the server's
sessions and CPU. `[quotas]` of `.vault/config.toml` (`config.QuotaSettings`) sets:

- the size of one write (all its texts, `write_kb`) and of each text in it
  (`field_chars`: a fact, a source, a reason, a metadata value, a document, a name);
- the related entities of one fact (`related`): a list without a cap could push a shared
  entity's file past the size every reader refuses;
- the operations of one memory batch (`batch_operations`), checked before any work, so
  that a batch costs time linear in a bounded size;
- the writes one agent has held for review, by count and size (`pending_reviews`,
  `pending_review_kb`): a flood fills only its own share;
- its open MCP sessions (`sessions`, counted by `mcp.http`): an agent can exhaust only
  its own;
- the time a write may carry (`future_skew_s` after now): a fact dated in the year 8999
  would stay hot for ever.

A refusal is a `QuotaExceededError` naming the limit, its value and what was asked.
`check_write` runs in `agent_writes.check`, so every face (MCP, the CLI, approval) meets
the same quotas; `check_pending` runs before a write is queued for review.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Iterator
from typing import Any

from vault_app.core import config, decay, errors

KB = 1024


def _refuse(limit: str, value: int | str, asked: str) -> errors.QuotaExceededError:
    return errors.QuotaExceededError(
        f"over the quota [quotas] {limit} = {value} ({asked}); a person can raise it in "
        ".vault/config.toml"
    )


def strings(value: Any, name: str) -> Iterator[tuple[str, str]]:
    """Every string in `value` (keys of objects too), with where it is."""
    if isinstance(value, str):
        yield name, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield f"{name}.{key} (key)", str(key)
            yield from strings(item, f"{name}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from strings(item, f"{name}[{index}]")


def check_write(
    quotas: config.QuotaSettings,
    kind: str,
    params: dict[str, Any],
    at: dt.datetime | None,
    now: dt.datetime,
) -> None:
    """Refuse (`QuotaExceededError`) a write of `kind` with `params`, dated `at`, that
    is over a quota."""
    if at is not None:
        latest = now + dt.timedelta(seconds=quotas.future_skew_s)
        if decay.as_aware(at) > latest:
            raise _refuse(
                "future_skew_s",
                quotas.future_skew_s,
                f"{kind} is dated {decay.as_aware(at).isoformat()}, after now ({now.isoformat()})",
            )
    related = params.get("related")
    if isinstance(related, list) and len(related) > quotas.related:
        raise _refuse("related", quotas.related, f"{kind} names {len(related)} related entities")
    operations = params.get("operations")
    if isinstance(operations, list) and len(operations) > quotas.batch_operations:
        raise _refuse("batch_operations", quotas.batch_operations, f"{kind} has {len(operations)}")
    total = 0
    for name, text in strings(params, "params"):
        if len(text) > quotas.field_chars:
            raise _refuse(
                "field_chars", quotas.field_chars, f"{kind} {name} has {len(text):,} characters"
            )
        total += len(text.encode("utf-8", "surrogatepass"))
        if total > quotas.write_kb * KB:
            raise _refuse("write_kb", quotas.write_kb, f"{kind} holds over {total // KB:,} KB")


def check_pending(quotas: config.QuotaSettings, agent: str, held: Iterable[int], size: int) -> None:
    """Refuse queueing one more write of `size` bytes for `agent`'s review, when the
    writes it has held (`held`: their sizes) already fill its share."""
    sizes = list(held)
    if len(sizes) >= quotas.pending_reviews:
        raise _refuse(
            "pending_reviews",
            quotas.pending_reviews,
            f"agent {agent!r} has {len(sizes)} writes waiting for review; a person decides "
            "them first (vault-app review list)",
        )
    if sum(sizes) + size > quotas.pending_review_kb * KB:
        raise _refuse(
            "pending_review_kb",
            quotas.pending_review_kb,
            f"agent {agent!r}'s writes waiting for review would hold "
            f"{(sum(sizes) + size) // KB:,} KB",
        )


def size_of(params: dict[str, Any]) -> int:
    """The bytes a write's parameters take (as the review queue stores them)."""
    return len(json.dumps(params, ensure_ascii=False).encode("utf-8", "surrogatepass"))
