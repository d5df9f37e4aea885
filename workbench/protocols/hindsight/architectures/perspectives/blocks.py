"""B3 reader: structured blocks: a reply that is a JSON object, or holds one or a ```yaml block, listing
the perspectives.
"""

from __future__ import annotations

import re

from workbench.protocols.hindsight.architectures.lines import Section
from workbench.protocols.hindsight.architectures.perspectives.titles import STOP, synth_title


_FENCED = re.compile(r"```[\w-]*[ \t]*\n(.*?)\n[ \t]*```", re.DOTALL)
_LIST_KEYS = ("perspectives", "viewpoints", "views", "lenses", "angles", "stakeholders", "voices")
_NAME_KEYS = ("name", "title", "perspective", "viewpoint", "view", "lens", "label", "role", "stakeholder")


def json_sections(text: str) -> tuple[str, list[Section]] | None:
    """A reply whose perspectives are a JSON object (the whole reply, or a fenced block in it) or a ```yaml block:
    listed under a key such as "perspectives" (a section per item, titled by its name), or given as name → text (a
    section per name but the synthesis's). (layout, sections), or None when the reply holds no such object."""
    import json

    layout, data = "yaml", _yaml_fenced(text)
    if data is None:
        layout = "json"
        fenced = _FENCED.search(text)
        body = fenced.group(1).strip() if fenced else text.strip()
        if not body.startswith("{"):
            return None
        try:
            data = json.loads(body)
        except ValueError:
            return None
    if not isinstance(data, dict):
        return None
    items = next((data[k] for k in data if str(k).casefold() in _LIST_KEYS), None)
    if items is None and len(data) >= 2 and all(isinstance(v, (str, dict)) for v in data.values()):
        items = [{"name": k, "text": v if isinstance(v, str) else json.dumps(v)} for k, v in data.items()
                 if not (synth_title(k) or STOP.match(k))]
    if not isinstance(items, list):
        return None
    sections = []
    for n, item in enumerate(items, start=1):
        if isinstance(item, dict):
            title = next((str(v) for k, v in item.items() if str(k).casefold() in _NAME_KEYS and isinstance(v, str)),
                         "")
            rest = " ".join(str(v) for k, v in item.items() if str(k).casefold() not in _NAME_KEYS)
            sections.append(Section(n, title.strip(), rest.strip() or title.strip()))
        else:
            sections.append(Section(n, "", str(item)))
    return layout, sections


_YAML_FENCED = re.compile(r"```ya?ml[ \t]*\n(.*?)\n[ \t]*```", re.DOTALL | re.IGNORECASE)


def _yaml_fenced(text: str):
    """The mapping of a ```yaml block that lists the perspectives (a small model's way), or None. Only a fence named
    YAML is read as YAML: plain `Title: text` lines would parse as a mapping too."""
    fenced = _YAML_FENCED.search(text)
    if not fenced:
        return None
    import yaml

    try:
        data = yaml.safe_load(fenced.group(1))
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) and any(str(k).casefold() in _LIST_KEYS for k in data) else None
