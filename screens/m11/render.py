"""Rich renderings of the M11 metrics document: what the dashboard panes show.

Every number comes from `workbench.protocols.m11.metrics.study_metrics`, the
same document the batch `metrics` and the report print.
"""

from __future__ import annotations

from rich.text import Text

from workbench.protocols.m11.report import num, pct, trend_scope
from workbench.protocols.m11.scoring import score_text
from workbench.runs.view import cost_text

SEVERITY_STYLE = {"critical": "bold red", "major": "yellow", "minor": "dim"}
VERDICT_STYLE = {"valid": "green", "partially valid": "yellow", "invalid": "red"}
BAND_STYLE = {"Strong PASS": "bold green", "PASS": "green", "Borderline": "yellow", "FAIL": "red"}


def _est(e: dict) -> str:
    if e["value"] is None:
        return "undefined"
    ci = f" [{e['ci_low']:.2f}, {e['ci_high']:.2f}]" if e["ci_low"] is not None else ""
    return f"{e['value']:.3f}{ci} n={e['n']}"


def bar(value: float | None, scale: float, width: int) -> str:
    filled = 0 if value is None else int(round(value / scale * width))
    return "█" * filled + "░" * (width - filled)


def overview(doc: dict) -> Text:
    f, bands, b = doc["input_filter"] or {}, doc["bands"], doc["binary"]
    t = Text()
    t.append(f"Module {doc['module']}", style="bold")
    t.append(" · which product attributes are hard constraints (most products: none)\n")
    t.append(f"{len(doc['samples'])} samples · {doc['runs']} pipeline run(s) · {', '.join(doc['conditions'])}\n")
    t.append(f"InputFilter: {f.get('loaded', '-')} loaded, {f.get('excluded', '-')} excluded\n\n")
    t.append("Pass rate  ", style="bold")
    t.append(f"{pct(bands['pass_rate'])} of {bands['n']} scored ({bands['unscored']} unscored)\n")
    t.append("Binary     ", style="bold")
    t.append(f"pass rate {pct(b['binary_pass_rate'])} · agreement {_est(b['agreement'])}\n")
    t.append(f"           kappa {_est(b['kappa'])}\n\n")
    t.append("Band         Likert   samples  observed  expected\n", style="bold")
    for r in bands["rows"]:
        t.append(f"{r['band']:<12}", style=BAND_STYLE[r["band"]])
        observed = "-" if r["percent"] is None else f"{r['percent']:.1f}%"
        t.append(f" {r['likert']:<7} {r['count']:>7}  {observed:>8}  {r['expected_percent'][0]}-{r['expected_percent'][1]}%\n")
    h = doc["human"]
    verdict = {True: "met", False: "not met", None: "not decidable"}[h["passed"]]
    t.append(f"\nHuman r {_est(h['pearson'])} · target > {h['target_r']}: {verdict}\n")
    v = doc["validation"]
    t.append(f"Key validation points met: {v['met']} of {v['checked']}\n")
    e, a = doc["cost"]["estimate"], doc["cost"]["actual"]
    est = "undefined" if e["cost"] is None else f"${e['cost']:.4f}"
    t.append(f"Cost: estimate {est} ({e['calls']} calls) · actual {a.get('text') or cost_text(a['total'], a['cost_unknown'])}")
    return t


def likert(doc: dict) -> Text:
    t = Text()
    t.append("Likert profile (mean per criterion, 0-5)\n", style="bold")
    for c, v in doc["profile"].items():
        t.append(f"{c:<13}{bar(v, 5, 20)} {num(v)}\n")
    t.append("\nOverall score histogram\n", style="bold")
    top = max([h["count"] for h in doc["histogram"]] + [1])
    for h in doc["histogram"]:
        t.append(f"{h['lo']:.1f}-{h['hi']:.1f}  {bar(h['count'], top, 20)} {h['count']}\n")
    t.append("\nTrend\n", style="bold")
    t.append(trend_scope(doc["trend"]) + "\n")
    for tr in doc["trend"]["rows"]:
        t.append(f"{tr['study'][:22]:<22} {tr['kind']:<9} {tr['last_run_at'][:10]} pass {pct(tr['pass_rate']):>6} "
                 f"· mean {num(tr['mean_overall'])}\n", style="bold" if tr["this_study"] else "")
    return t


def confidence(doc: dict) -> Text:
    c, r = doc["confidence"], doc["retries"]
    t = Text()
    t.append("Confidence (spread of the overall across runs)\n", style="bold")
    for level, n in c["counts"].items():
        t.append(f"{level:<12}{bar(n, max(c['n'], 1), 20)} {n}\n")
    t.append(f"\nVariance by criterion (run to run, {c['samples_with_spread']} samples)\n", style="bold")
    for k, v in c["variance_by_criterion"].items():
        t.append(f"{k:<13}{num(v, 3)}\n")
    t.append("\nRetries\n", style="bold")
    t.append(f"{r['runs_retried']} of {r['runs']} runs retried: "
             + (", ".join(f"{k} {v}" for k, v in sorted(r["retries"].items())) or "none") + "\n")
    t.append("Counted errors: " + (", ".join(f"{k} {v}" for k, v in sorted(r["counted_errors"].items())) or "none"))
    t.append(f"\nSycophancy unresolved: {r['sycophancy_unresolved']}")
    return t


def sample_label(s: dict) -> Text:
    t = Text(f"{s['id'][:22]:<22} ")
    t.append(f"{score_text(s['overall']):>3}", style=BAND_STYLE.get(s["band"] or "", "dim"))
    return t


def item_column(title: str, body: str) -> Text:
    t = Text()
    t.append(title + "\n", style="bold underline")
    t.append(body)
    return t


def sample_io(sample: dict) -> tuple[Text, Text, Text]:
    item = sample["item"]
    given = f"{item.get('title') or '(untitled)'}\nUse: {item['validated_use']}\n" + "\n".join(
        f"· {a}" for a in item["attribute_table"])
    output = "hard_constraints:\n" + ("\n".join(f"· {c}" for c in item["hard_constraints"]) or "(none)") + \
        f"\n\n{item.get('reasoning') or ''}"
    expected = "(not given)" if item.get("expected") is None else (
        "\n".join(f"· {c}" for c in item["expected"]) or "(none)")
    return item_column("Input", given), item_column("Module output", output), item_column("Expected", expected)


def debate(sample: dict) -> Text:
    t = Text()
    t.append(f"{sample['id']}: overall {score_text(sample['overall'])} ", style="bold")
    t.append(sample["band"] or "unscored", style=BAND_STYLE.get(sample["band"] or "", "dim"))
    t.append(f" · confidence {sample['confidence'] or '-'} · binary {sample['binary'] or '-'}\n")
    for v in sample["never_violations"]:
        t.append(f"NEVER violation: {v['constraint']} ({v['category']})\n", style="red")
    for p in sample["validation"]:
        mark = {True: "✓", False: "✗", None: "?"}[p["ok"]]
        t.append(f"{mark} {p['point']}: {p['rule']} (observed {num(p['observed'])})\n")
    for rep in sample["pipeline_runs"]:
        t.append(f"\nRun {rep['run_index'] + 1}", style="bold")
        if rep["status"] != "ok":
            t.append(f": counted error at {rep['failed_stage']} ({rep['error']})\n", style="red")
            continue
        t.append(f": overall {score_text(rep['overall'])} {rep['band']}\n")
        rebuttals = {r["id"]: r for r in rep["debate"]["rebuttals"]}
        for w in rep["debate"]["weaknesses"]:
            t.append(f"{w['id']} [{w['severity']}] ", style=SEVERITY_STYLE.get(w["severity"], ""))
            t.append(f"{w['category']}: {w['issue']}\n")
            r = rebuttals.get(w["id"])
            if r:
                t.append("   ↳ ")
                t.append(r["verdict"], style=VERDICT_STYLE.get(r["verdict"], ""))
                t.append(f": {r['argument']}\n")
        for earlier in (rep.get("judge_verdicts") or [])[:-1]:   # a sycophancy retry's first verdict
            flag = "flagged sycophantic" if earlier.get("sycophantic") else "replaced"
            t.append(f"Judge, round {earlier['round']} ({flag}): overall {score_text(earlier['overall'])} "
                     f"{earlier['band']}; " + ", ".join(f"{c} {v}" for c, v in earlier["scores"].items()) + "\n",
                     style="dim")
        t.append("Judge: " + ", ".join(f"{c} {v}" for c, v in rep["scores"].items()) + "\n")
        t.append(f"{rep['summary']}\n", style="italic")
        for m in rep["debate"]["metajudge"]:
            flag = "error" if "error" in m else ("sycophantic" if m["sycophantic"] else "not sycophantic")
            t.append(f"MetaJudge: {flag}. {m.get('reason') or m.get('error') or ''}\n",
                     style="yellow" if flag != "not sycophantic" else "")
    return t
