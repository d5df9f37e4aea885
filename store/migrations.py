"""Schema migrations. Append new migrations at the end; never edit an applied one.

Migration 1 lays out every table the workbench needs so later work fills them
rather than rewriting them. JSON columns hold structured documents whose shape
is owned by the core (`workbench/`).
"""

from __future__ import annotations

import sqlite_utils
from sqlite_utils.migrations import Migrations

migrations = Migrations("hindsight-workbench")

SCHEMA_V1 = """
CREATE TABLE cases (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('historical', 'constructed')),
    domain TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('draft', 'ready', 'excluded')),
    strategies TEXT NOT NULL DEFAULT '[]',      -- JSON list of 'A' | 'B' | 'C'
    decision_date TEXT,
    complexity TEXT,
    concern_domain TEXT,
    rubric TEXT,
    source_path TEXT,
    content_hash TEXT NOT NULL,
    document TEXT NOT NULL,                     -- JSON: the whole parsed case
    updated_at TEXT NOT NULL
);
CREATE INDEX idx_cases_status ON cases (status);

CREATE TABLE rubrics (
    hash TEXT PRIMARY KEY,                      -- sha256 of the rubric file's text
    rubric_id TEXT NOT NULL,
    name TEXT NOT NULL,
    text TEXT NOT NULL,
    definition TEXT NOT NULL,                   -- JSON: criteria, scales, anchors
    source_path TEXT,
    loaded_at TEXT NOT NULL
);
CREATE INDEX idx_rubrics_rubric_id ON rubrics (rubric_id);

CREATE TABLE studies (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    protocol TEXT NOT NULL,
    definition TEXT NOT NULL,                   -- JSON: the parsed study file
    source_text TEXT,                           -- the study file as written
    created_at TEXT NOT NULL,
    frozen_at TEXT,
    freeze_hash TEXT,
    status TEXT NOT NULL DEFAULT 'draft',
    cost_ceiling REAL,
    unblinded_at TEXT,
    unblinded_by TEXT,
    unblind_forced INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE frozen_artefacts (
    study_id TEXT NOT NULL REFERENCES studies (id),
    kind TEXT NOT NULL,                         -- definition | case | rubric | prompt
    ref TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    content TEXT NOT NULL,
    PRIMARY KEY (study_id, kind, ref)
);

CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies (id),
    case_id TEXT NOT NULL REFERENCES cases (id),
    condition TEXT NOT NULL,
    replicate INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'pending',     -- pending | running | done | failed | cancelled
    error TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    started_at TEXT,
    finished_at TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cost REAL,
    cost_unknown INTEGER NOT NULL DEFAULT 0,
    UNIQUE (study_id, case_id, condition, replicate)
);
CREATE INDEX idx_runs_study ON runs (study_id, status);

CREATE TABLE calls (
    id INTEGER PRIMARY KEY,
    study_id TEXT,
    run_id TEXT REFERENCES runs (id),
    turn TEXT,
    role TEXT,
    call_key TEXT NOT NULL,
    attempt INTEGER NOT NULL DEFAULT 1,
    model TEXT NOT NULL,
    api_base TEXT,
    request TEXT NOT NULL,                      -- JSON messages
    settings TEXT NOT NULL,                     -- JSON sampling settings
    replicate INTEGER NOT NULL DEFAULT 0,
    response TEXT,
    finish_reason TEXT,
    status TEXT NOT NULL,                       -- ok | error | replayed
    error TEXT,
    input_tokens INTEGER,
    output_tokens INTEGER,
    cost REAL,
    latency_ms REAL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    log_line INTEGER,
    log_hash TEXT
);
CREATE INDEX idx_calls_key ON calls (call_key, status);
CREATE INDEX idx_calls_run ON calls (run_id);
CREATE INDEX idx_calls_study ON calls (study_id);

CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs (id),
    seq INTEGER NOT NULL,
    turn TEXT,
    kind TEXT NOT NULL,
    agent TEXT,
    payload TEXT NOT NULL DEFAULT '{}',
    at TEXT NOT NULL,
    UNIQUE (run_id, seq)
);

CREATE TABLE outputs (
    run_id TEXT PRIMARY KEY REFERENCES runs (id),
    text TEXT NOT NULL,
    report TEXT NOT NULL DEFAULT '{}',          -- JSON: recommendation, reasoning, risks, confidence
    created_at TEXT NOT NULL
);

CREATE TABLE topology (
    study_id TEXT NOT NULL REFERENCES studies (id),
    case_id TEXT NOT NULL REFERENCES cases (id),
    condition TEXT NOT NULL,
    pattern TEXT NOT NULL,                      -- Basin | Ridge | Plateau
    switching_assumption TEXT,
    convergent_recommendation TEXT,
    detail TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    PRIMARY KEY (study_id, case_id, condition)
);

CREATE TABLE blind_items (
    id TEXT PRIMARY KEY,                        -- opaque, random
    study_id TEXT NOT NULL REFERENCES studies (id),
    case_id TEXT NOT NULL REFERENCES cases (id),
    text TEXT NOT NULL,                         -- scrubbed final output
    pilot INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
CREATE INDEX idx_blind_items_study ON blind_items (study_id);

-- The sealed key: item -> run (and so condition). No rater-facing view reads it.
CREATE TABLE blind_key (
    item_id TEXT PRIMARY KEY REFERENCES blind_items (id),
    study_id TEXT NOT NULL REFERENCES studies (id),
    run_id TEXT REFERENCES runs (id),
    pilot_expectation TEXT,
    scrub_log TEXT NOT NULL DEFAULT '[]',
    sealed_at TEXT NOT NULL
);

CREATE TABLE raters (
    study_id TEXT NOT NULL REFERENCES studies (id),
    name TEXT NOT NULL,
    kind TEXT NOT NULL DEFAULT 'human',         -- human | judge
    seed INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (study_id, name)
);

CREATE TABLE assignments (
    study_id TEXT NOT NULL,
    rater TEXT NOT NULL,
    item_id TEXT NOT NULL REFERENCES blind_items (id),
    position INTEGER NOT NULL,
    side TEXT NOT NULL DEFAULT 'left',
    pilot INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (study_id, rater, item_id),
    FOREIGN KEY (study_id, rater) REFERENCES raters (study_id, name)
);

-- Append-only: an edit or an undo is a new row; the latest row per
-- (rater, item, rubric, criterion) is the rater's current score.
CREATE TABLE scores (
    id INTEGER PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies (id),
    rater TEXT NOT NULL,
    item_id TEXT NOT NULL REFERENCES blind_items (id),
    rubric_hash TEXT NOT NULL,
    criterion TEXT NOT NULL,
    value REAL,
    note TEXT,
    action TEXT NOT NULL DEFAULT 'score',       -- score | note | undo | skip
    source TEXT NOT NULL DEFAULT 'tui',         -- tui | packet | batch
    at TEXT NOT NULL
);
CREATE INDEX idx_scores_lookup ON scores (study_id, rater, item_id);

CREATE TABLE verdicts (
    id INTEGER PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies (id),
    judge TEXT NOT NULL,
    model TEXT NOT NULL,
    item_id TEXT NOT NULL REFERENCES blind_items (id),
    rubric_hash TEXT NOT NULL,
    criterion TEXT NOT NULL,
    value REAL,
    justification TEXT,
    raw TEXT,
    status TEXT NOT NULL,                       -- ok | judge_error
    pipeline TEXT NOT NULL DEFAULT 'direct',    -- direct | adversarial
    confidence TEXT,
    detail TEXT NOT NULL DEFAULT '{}',
    at TEXT NOT NULL
);
CREATE INDEX idx_verdicts_lookup ON verdicts (study_id, item_id);

CREATE TABLE blindness_audits (
    id INTEGER PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies (id),
    item_id TEXT NOT NULL REFERENCES blind_items (id),
    model TEXT NOT NULL,
    guess TEXT,
    correct INTEGER,
    raw TEXT,
    at TEXT NOT NULL
);

CREATE TABLE unblindings (
    id INTEGER PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies (id),
    by TEXT NOT NULL,
    at TEXT NOT NULL,
    forced INTEGER NOT NULL DEFAULT 0,
    reason TEXT
);

CREATE TABLE probes (
    id INTEGER PRIMARY KEY,
    case_id TEXT NOT NULL REFERENCES cases (id),
    model TEXT NOT NULL,
    api_base TEXT,
    asked_at TEXT NOT NULL,
    prompt TEXT NOT NULL,
    answer TEXT,
    verdict TEXT NOT NULL,                      -- recognized | partial | not_recognized | error
    classifier_raw TEXT,
    flagged INTEGER NOT NULL DEFAULT 0,
    call_ids TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX idx_probes_case ON probes (case_id, asked_at);

CREATE TABLE embeddings (
    model TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,                       -- float32, little-endian
    PRIMARY KEY (model, text_hash)
);

CREATE TABLE concern_scores (
    id INTEGER PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies (id),
    run_id TEXT NOT NULL REFERENCES runs (id),
    concern TEXT NOT NULL,
    value REAL,
    source TEXT NOT NULL,                       -- model | rater
    rater TEXT,
    raw TEXT,
    at TEXT NOT NULL
);

CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL                         -- JSON
);
"""


@migrations(name="0001_initial_schema")
def initial_schema(db: sqlite_utils.Database) -> None:
    _execute(db, SCHEMA_V1)


def _execute(db: sqlite_utils.Database, script: str) -> None:
    """Each statement of `script`, in the migration's transaction."""
    for statement in _statements(script):
        db.execute(statement)


def _statements(script: str) -> list[str]:
    # executescript() would commit the migration's transaction; run one statement at a time.
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def migrate(db: sqlite_utils.Database) -> None:
    migrations.apply(db)


def pending(db: sqlite_utils.Database) -> list[str]:
    return [m.name for m in migrations.pending(db)]


@migrations(name="0002_calls_sample_agent")
def calls_sample_agent(db: sqlite_utils.Database) -> None:
    # The gateway records which independent draw (sample) and which agent made each call.
    db.execute("ALTER TABLE calls ADD COLUMN sample INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE calls ADD COLUMN agent TEXT")
    db.execute("CREATE INDEX idx_calls_key_study ON calls (call_key, study_id, status)")


@migrations(name="0003_blinding_packets_undo")
def blinding_packets_undo(db: sqlite_utils.Database) -> None:
    # Blind evaluation: the packet-signing secret (kept off the settings table so no settings
    # view or export ever shows it), the packets a store exported and imported, the researcher's
    # release of a rater held by the calibration pilots, and which score row an undo reverses.
    _execute(db, """
        CREATE TABLE store_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE packet_exports (
            packet_id TEXT PRIMARY KEY,
            study_id TEXT NOT NULL REFERENCES studies (id),
            rater TEXT NOT NULL,
            base_score_id INTEGER NOT NULL DEFAULT 0,
            digest TEXT NOT NULL,
            items INTEGER NOT NULL,
            exported_at TEXT NOT NULL
        );
        CREATE TABLE packet_imports (
            id INTEGER PRIMARY KEY,
            packet_id TEXT NOT NULL REFERENCES packet_exports (packet_id),
            answers_digest TEXT NOT NULL,
            scores_written INTEGER NOT NULL,
            imported_at TEXT NOT NULL
        );
        CREATE TABLE calibration_releases (
            study_id TEXT NOT NULL REFERENCES studies (id),
            rater TEXT NOT NULL,
            by TEXT NOT NULL,
            at TEXT NOT NULL,
            reason TEXT,
            PRIMARY KEY (study_id, rater)
        );
        ALTER TABLE scores ADD COLUMN undoes INTEGER
    """)


@migrations(name="0004_protocol_items_artifacts")
def protocol_items_artifacts(db: sqlite_utils.Database) -> None:
    # Protocols beyond hindsight run over items that are not cases (debate topics, module outputs,
    # imported interactions): a run's, blind item's and topology row's case_id holds the item id,
    # so it can no longer reference cases. The checks are deferred to the commit, by which time
    # each rebuilt table has its old name back.
    db.execute("PRAGMA defer_foreign_keys = ON")
    for table in ("runs", "blind_items", "topology"):
        db[table].transform(drop_foreign_keys=["case_id"])
    _execute(db, """
        CREATE INDEX IF NOT EXISTS idx_runs_study ON runs (study_id, status);
        CREATE INDEX IF NOT EXISTS idx_blind_items_study ON blind_items (study_id);
        CREATE TABLE items (
            study_id TEXT NOT NULL REFERENCES studies (id),
            id TEXT NOT NULL,                       -- unique within the study; runs.case_id names it
            kind TEXT NOT NULL,                     -- the protocol's own: topic, module_output, interaction, ...
            payload TEXT NOT NULL,                  -- JSON: the item as the protocol reads it
            content_hash TEXT NOT NULL,
            source TEXT,                            -- file:line it was loaded from
            created_at TEXT NOT NULL,
            PRIMARY KEY (study_id, id)
        );
        CREATE INDEX idx_items_kind ON items (study_id, kind);
        CREATE TABLE artifacts (
            id INTEGER PRIMARY KEY,
            study_id TEXT NOT NULL REFERENCES studies (id),
            run_id TEXT REFERENCES runs (id),       -- NULL: belongs to the study (a belief graph, a sample)
            kind TEXT NOT NULL,                     -- the protocol's own: belief_graph, crux_card, extraction, ...
            key TEXT NOT NULL,                      -- unique within (study, run, kind)
            payload TEXT NOT NULL,                  -- JSON
            created_at TEXT NOT NULL,
            UNIQUE (study_id, run_id, kind, key)
        );
        CREATE INDEX idx_artifacts_study ON artifacts (study_id, kind)
    """)


@migrations(name="0005_call_log_heads")
def call_log_heads(db: sqlite_utils.Database) -> None:
    # The head of a study's hash-chained call log (its line count and last hash), kept when a run or
    # a judging command ends and when a report is written: `log verify` refuses a log that is shorter
    # than this record or whose line at that position hashes differently (a truncated or re-chained log).
    _execute(db, """
        CREATE TABLE call_log_heads (
            id INTEGER PRIMARY KEY,
            study_id TEXT,                          -- NULL: the log of calls outside any study
            lines INTEGER NOT NULL,
            head TEXT NOT NULL,                     -- the hash of line `lines`
            recorded_by TEXT NOT NULL,              -- run | judge | report
            recorded_at TEXT NOT NULL
        );
        CREATE INDEX idx_call_log_heads_study ON call_log_heads (study_id, id)
    """)


@migrations(name="0006_hindsight_fidelity")
def hindsight_fidelity(db: sqlite_utils.Database) -> None:
    # Issue 13. Three append-only records, the latest row of a key being the current one:
    # a person's review of an automatic topology coding (Basin / Ridge / Plateau) with the reason;
    # an adjudicated value for an item whose raters disagreed by more than the pre-registered margin
    # (a third rater's score, or the two raters' recorded consensus); and each round of the human
    # pilot: the pilot kappa per metric against its target, and the rubric versions it was scored on.
    _execute(db, """
        CREATE TABLE topology_reviews (
            id INTEGER PRIMARY KEY,
            study_id TEXT NOT NULL REFERENCES studies (id),
            case_id TEXT NOT NULL,
            condition TEXT NOT NULL,
            automatic_pattern TEXT,                 -- what the topology step said (NULL: none stored)
            pattern TEXT NOT NULL,                  -- Basin | Ridge | Plateau, as the reviewer codes it
            switching_assumption TEXT,
            reviewer TEXT NOT NULL,
            reason TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX idx_topology_reviews ON topology_reviews (study_id, case_id, condition, id);
        CREATE TABLE adjudications (
            id INTEGER PRIMARY KEY,
            study_id TEXT NOT NULL REFERENCES studies (id),
            item_id TEXT NOT NULL,
            rubric_id TEXT NOT NULL,
            criterion TEXT NOT NULL,
            value REAL NOT NULL,
            method TEXT NOT NULL CHECK (method IN ('third_rater', 'consensus')),
            adjudicator TEXT NOT NULL,              -- the third rater, or "rater-a + rater-b"
            note TEXT,
            created_at TEXT NOT NULL
        );
        CREATE INDEX idx_adjudications ON adjudications (study_id, item_id, rubric_id, criterion, id);
        CREATE TABLE pilot_rounds (
            id INTEGER PRIMARY KEY,
            study_id TEXT NOT NULL REFERENCES studies (id),
            round INTEGER NOT NULL,
            rubric_hashes TEXT NOT NULL,            -- JSON {rubric_id: hash} the round was scored on
            results TEXT NOT NULL,                  -- JSON [{metric, kappa, target, passed, reason}]
            passed INTEGER NOT NULL,
            note TEXT,                              -- the recorded refinement that opened the next round
            created_at TEXT NOT NULL,
            UNIQUE (study_id, round)
        );
        CREATE TABLE rubric_refinements (
            id INTEGER PRIMARY KEY,
            study_id TEXT NOT NULL REFERENCES studies (id),
            rubric_id TEXT NOT NULL,
            old_hash TEXT NOT NULL,
            new_hash TEXT NOT NULL,
            reason TEXT NOT NULL,
            by TEXT NOT NULL,
            created_at TEXT NOT NULL
        )
    """)


@migrations(name="0007_connection_changes")
def connection_changes(db: sqlite_utils.Database) -> None:
    # The gateway's adaptive connections: every change of an endpoint's limit, with the study whose call
    # caused it (study show, the run display and the report name them).
    _execute(db, """
        CREATE TABLE connection_changes (
            id INTEGER PRIMARY KEY,
            study_id TEXT,                          -- NULL: a call outside any study
            endpoint TEXT NOT NULL,                 -- the api_base, or the provider of a hosted model
            old INTEGER NOT NULL,
            new INTEGER NOT NULL,
            reason TEXT NOT NULL,                   -- interrupted stream | 429 Too Many Requests | ... | calls succeeding
            at TEXT NOT NULL
        );
        CREATE INDEX idx_connection_changes_study ON connection_changes (study_id, id)
    """)


@migrations(name="0008_call_log_repairs")
def call_log_repairs(db: sqlite_utils.Database) -> None:
    # A torn last line of a call log (a full disk, a crash mid-write) that the store never recorded is cut
    # away before the next call; each cut is kept here and named by `log verify`.
    _execute(db, """
        CREATE TABLE call_log_repairs (
            id INTEGER PRIMARY KEY,
            study_id TEXT,                          -- NULL: the log of calls outside any study
            line INTEGER NOT NULL,                  -- the torn line's number
            bytes INTEGER NOT NULL,                 -- how many bytes were removed
            at TEXT NOT NULL
        )
    """)


@migrations(name="0009_structured_replies")
def structured_replies(db: sqlite_utils.Database) -> None:
    # How each reply of a structured step was read (issue 19 item 4): parsed as is, repaired by the parser,
    # or unparsed. One row per reply, keyed within its study so a resumed run's replayed reply replaces its row.
    _execute(db, """
        CREATE TABLE structured_replies (
            study_id TEXT NOT NULL,
            key TEXT NOT NULL,                      -- the reply: run id (or graphs, judge …) and turn / attempt
            step TEXT NOT NULL,                     -- report extraction | judge | claims | m11 critic | ...
            outcome TEXT NOT NULL,                  -- parsed | repaired | unparsed
            detail TEXT NOT NULL DEFAULT '',        -- the parser's fixes, or why the reply was unusable
            at TEXT NOT NULL,
            PRIMARY KEY (study_id, key)
        );
        CREATE INDEX idx_structured_replies_step ON structured_replies (study_id, step)
    """)


@migrations(name="0010_provider_batches")
def provider_batches(db: sqlite_utils.Database) -> None:
    # Provider batch mode (`--provider-batch`): each batch sent to a provider's Batches API, and each request
    # in it with the record its result will enter the call log and `calls` as. A batch row is written before
    # the provider is asked (state `submitting`, found again by its metadata after a kill), so a resume polls
    # what is open instead of paying for it twice. `calls.via` names the batch a call's reply came from.
    _execute(db, """
        CREATE TABLE provider_batches (
            id TEXT PRIMARY KEY,                    -- ours, sent as metadata.workbench_batch
            study_id TEXT,
            provider TEXT NOT NULL,                 -- litellm's custom_llm_provider (openai)
            api_base TEXT,
            model TEXT NOT NULL,
            provider_batch_id TEXT,                 -- NULL until the provider accepted it
            input_file_id TEXT,
            output_file_id TEXT,
            error_file_id TEXT,
            state TEXT NOT NULL,                    -- submitting | validating | in_progress | finalizing |
                                                    -- completed | expired | failed | cancelled | recorded
            requests INTEGER NOT NULL,
            completed INTEGER NOT NULL DEFAULT 0,
            failed INTEGER NOT NULL DEFAULT 0,
            cost REAL,                              -- at the batch price
            direct_cost REAL,                       -- the same tokens at the direct price
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE INDEX idx_provider_batches_study ON provider_batches (study_id, created_at);
        CREATE TABLE provider_batch_requests (
            batch_id TEXT NOT NULL REFERENCES provider_batches (id),
            custom_id TEXT NOT NULL,                -- the call key
            study_id TEXT,
            record TEXT NOT NULL,                   -- the call record but its outcome (JSON)
            state TEXT NOT NULL,                    -- open | recorded | failed
            PRIMARY KEY (batch_id, custom_id)
        );
        CREATE INDEX idx_provider_batch_requests_key ON provider_batch_requests (study_id, custom_id, state);
        ALTER TABLE calls ADD COLUMN via TEXT
    """)


@migrations(name="0011_truncated_outputs")
def truncated_outputs(db: sqlite_utils.Database) -> None:
    # A reply cut at max_tokens (finish_reason "length") is a state of its own: the run keeps how many of its
    # turns stayed cut (after any continuation), its output whether the text readers get ends in a cut. A run
    # whose program ended in a counted error gets status 'done_with_errors' (runs.status is free text).
    _execute(db, """
        ALTER TABLE runs ADD COLUMN truncated_turns INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE outputs ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0
    """)


@migrations(name="0012_probe_classification")
def probe_classification(db: sqlite_utils.Database) -> None:
    # A probe keeps the classifier's side next to the probed model's answer: which model classified, its own
    # verdict, the event it says was identified, and whether that event only restated the case (issue 25).
    db.execute("ALTER TABLE probes ADD COLUMN classification TEXT")  # JSON; NULL on earlier probes


@migrations(name="0013_evaluator_quality")
def evaluator_quality(db: sqlite_utils.Database) -> None:
    # Evaluator quality control (issue 32). `planted_items` is sealed like `blind_key`: which blind items are
    # gold (known scores) or attention checks (an instructed answer), and what they expect; nothing a rater or
    # judge receives reads it. `scores.seconds`: open-to-save time of a score on the desk (or from a packet).
    # `evaluator_decisions`: the pre-registered exclusion rules applied to each evaluator, and overrides with
    # their reason (append-only; the latest row per evaluator holds). `verdict_reviews`: a researcher's blind
    # review of a judge's verdicts (append-only; the verdict row itself is never changed). `planted_audits`: the
    # blindness audit of planted items (can a model tell a gold item from a real one?).
    _execute(db, """
        CREATE TABLE planted_items (
            item_id TEXT PRIMARY KEY REFERENCES blind_items (id),
            study_id TEXT NOT NULL REFERENCES studies (id),
            kind TEXT NOT NULL CHECK (kind IN ('gold', 'attention')),
            expected TEXT NOT NULL,                 -- JSON: {rubric id: {criterion id: value}}
            source TEXT NOT NULL,                   -- the gold file's item name, or 'outcome:<case>:<level>'
            sealed_at TEXT NOT NULL
        );
        CREATE INDEX idx_planted_items_study ON planted_items (study_id);
        ALTER TABLE scores ADD COLUMN seconds REAL;
        CREATE TABLE evaluator_decisions (
            id INTEGER PRIMARY KEY,
            study_id TEXT NOT NULL REFERENCES studies (id),
            evaluator TEXT NOT NULL,
            kind TEXT NOT NULL,                     -- human | judge
            excluded INTEGER NOT NULL,
            rules TEXT NOT NULL DEFAULT '[]',       -- JSON: the rules that fired
            quality TEXT NOT NULL DEFAULT '{}',     -- JSON: the figures the decision read
            act TEXT NOT NULL,                      -- rules | override
            reason TEXT,
            by TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX idx_evaluator_decisions_study ON evaluator_decisions (study_id, evaluator);
        CREATE TABLE verdict_reviews (
            id INTEGER PRIMARY KEY,
            study_id TEXT NOT NULL REFERENCES studies (id),
            verdict_id INTEGER NOT NULL REFERENCES verdicts (id),
            judge TEXT NOT NULL,
            item_id TEXT NOT NULL,
            rubric_hash TEXT NOT NULL,
            criterion TEXT NOT NULL,
            original REAL,
            mark TEXT NOT NULL CHECK (mark IN ('right', 'corrected')),
            corrected REAL,
            reason TEXT,
            by TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX idx_verdict_reviews_study ON verdict_reviews (study_id, judge);
        CREATE TABLE planted_audits (
            id INTEGER PRIMARY KEY,
            study_id TEXT NOT NULL REFERENCES studies (id),
            item_id TEXT NOT NULL,
            model TEXT NOT NULL,
            guess TEXT,                             -- study | check | NULL (never answered)
            planted INTEGER NOT NULL,               -- the truth (a gold item), read from the sealed table
            raw TEXT,
            at TEXT NOT NULL
        );
        CREATE INDEX idx_planted_audits_study ON planted_audits (study_id, model)
    """)


@migrations(name="0014_call_journal")
def call_journal(db: sqlite_utils.Database) -> None:
    # The request journal (issue 34): a request is journaled before it is sent, and its entry removed in the
    # transaction that records its call. An entry left behind was sent and never answered: after a crash it is
    # marked lost (`lost_at`), counted and priced by its estimate (prompt tokens, max_tokens).
    _execute(db, """
        CREATE TABLE call_journal (
            id INTEGER PRIMARY KEY,
            study_id TEXT,
            run_id TEXT,
            turn TEXT,
            agent TEXT,
            call_key TEXT NOT NULL,
            attempt INTEGER NOT NULL,
            model TEXT NOT NULL,
            api_base TEXT,
            prompt_tokens INTEGER NOT NULL,
            max_tokens INTEGER,
            cost_estimate REAL,
            sent_at TEXT NOT NULL,
            pid INTEGER NOT NULL,
            lost_at TEXT
        );
        CREATE INDEX idx_call_journal_study ON call_journal (study_id, id);
        -- a run's (re)start deletes its artifacts by run: without this, a scan of every study's artifacts
        CREATE INDEX IF NOT EXISTS idx_artifacts_run ON artifacts (run_id)
    """)


@migrations(name="0015_study_lineage")
def study_lineage(db: sqlite_utils.Database) -> None:
    # Lineage (issue 42): for each study, every earlier study in the store that used some of the same data (items
    # or cases), what it had reported, and why this study's results are exploratory, recorded at create and at
    # freeze; the latest record holds (`recorded_at`).
    _execute(db, """
        CREATE TABLE study_lineage (
            study_id TEXT NOT NULL,
            earlier_study TEXT NOT NULL,
            shared INTEGER NOT NULL,
            earlier_results_at TEXT,
            reported TEXT NOT NULL,
            matches TEXT NOT NULL,
            exploratory TEXT,
            recorded_at TEXT NOT NULL,
            PRIMARY KEY (study_id, earlier_study)
        )
    """)


@migrations(name="0016_desk_links")
def desk_links(db: sqlite_utils.Database) -> None:
    # The served desk's links (issue 44): one row per link issued to a rater of a study. The token itself is
    # never stored, only its SHA-256; a link is live until it expires or is revoked.
    _execute(db, """
        CREATE TABLE desk_links (
            id INTEGER PRIMARY KEY,
            study_id TEXT NOT NULL,
            rater TEXT NOT NULL,
            token_hash TEXT NOT NULL UNIQUE,
            issued_at TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            revoked_at TEXT
        );
        CREATE INDEX idx_desk_links_rater ON desk_links (study_id, rater)
    """)
