"""Text for the faultline screens (Rich markup), from the core's plain data."""

from __future__ import annotations

from rich.markup import escape


def fmt(est: dict | None) -> str:
    if not est:
        return "—"
    if est.get("value") is None:
        return f"undefined: {est.get('undefined_reason')}"
    text = f"{est['value']:.3f}"
    if est.get("ci_low") is not None:
        text += f" [{est['ci_low']:.3f}, {est['ci_high']:.3f}]"
    return text


def verdict(doc: dict) -> str:
    """The study's headline (its acc_headline), and the other self-consistency comparison, labelled."""
    from workbench.protocols.faultline.report import beside

    h = doc["headline"]
    colour = {"yes": "green", "no": "red"}.get(h["answer"], "yellow")
    diff = h["mean_difference"]
    ci = (f"mean ACC difference {fmt(diff)}" if diff["value"] is not None else "mean ACC difference undefined")
    text = (f"[b]{escape(h['question'])}: [{colour}]{h['answer']}[/][/b]\n"
            f"{escape(h['comparison'])}: {escape(ci)} — {escape(h['why'])}")
    if found := beside(h):
        tag, row = found
        p = row["mann_whitney"]["details"].get("p_value")
        text += (f"\n[dim]{escape(tag)}: {escape(fmt(row['mean_difference']))}"
                 + (f", Mann-Whitney p = {p:.3g}" if p is not None else "") + "[/dim]")
    return text


def message(m: dict, name: str) -> str:
    label = {"opening": "opening", "closing": "closing", "round": f"round {m['round']}"}.get(m["phase"], m["phase"])
    return f"[b]{escape(name)}[/b] [dim]{escape(m['id'])} · {label}[/dim]\n{escape(m['text'] or '')}"


def stance_chart(view: dict) -> str:
    """Opening → closing stance per persona on each claim, as −2…+2 bars."""
    stances = view["stances"]
    claims = [c["id"] for c in view["topic"]["contested"] + view["topic"]["verifiable"]]
    lines = []
    for p in view["personas"]:
        lines.append(f"[b]{escape(p['name'])}[/b]")
        o, c = stances["opening"].get(p["id"]), stances["closing"].get(p["id"])
        if o is None and c is None:
            lines.append("  no stances extracted (extraction errors are counted, not filled in)")
            continue
        for cid in claims:
            lines.append(f"  {cid[:20]:<20} {_bar(o.get(cid) if o else None)} → {_bar(c.get(cid) if c else None)}")
    return "\n".join(lines)


def _bar(v: int | None) -> str:
    if v is None:
        return "  ·  "
    cells = ["-", "-", "|", "+", "+"]
    return "".join(("█" if (i - 2) * v > 0 and abs(i - 2) <= abs(v) else ch if i == 2 else "·")
                   for i, ch in enumerate(cells)) + f" {v:+d}"
