"""The memory grows by itself: the heartbeat and the weekly synthesis (spec §10).

Every interval the heartbeat reads the daily-note entries added since its cursor, turns
them into candidate facts (rules by default, an OpenAI-compatible model when configured),
routes each to an entity, drops what the entity already knows, supersedes what changed,
and writes the rest through the core's safe writes. Once a week the synthesis rewrites
every summary. One runner per vault at a time holds the lease; `serve`, the desktop app
and cron all go through it, so none of them double-runs.

    model      the shared types: Entry (a daily-note entry), Candidate (a fact proposed
               from one), Extraction, the Extractor protocol
    runlog     `.vault/heartbeat.jsonl`: one line per run, appended and read back
    entries    the cursor: which entries are new since the last run
    rules      the default extractor and its quality gate; dates: relative dates resolved
    llm        the OpenAI-compatible extractor; answers: a model's answer read tolerantly
    routing    which entity a candidate goes to; unknown names counted until the third
               (names: the keys names and entities meet on, kinds, the name index)
    dedup      exact and near duplicates, and changed values that supersede
    run        one heartbeat run, end to end; lease: one runner per vault;
               schedule: when the next heartbeat and synthesis are due (catch-up included)
    service    the Runner (lease + schedule + runs) that serve, the app and the CLI share,
               and the Ticker that calls it every 30 s; state: the state files' reads
               and writes (.vault/heartbeat/)

The package imports core and search only (tests/test_layers.py); no Qt.
"""
