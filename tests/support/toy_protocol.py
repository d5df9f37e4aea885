"""The smallest complete protocol, defined only in the tests: one item, one call, one metric.

`EchoProtocol` touches no shared code; registering it (the `echo_protocol` fixture, or
`registry.register(EchoProtocol())`) is all it takes for the shared commands and screens to run it.
The plug-in test and the contract suite (tests/contract) both use it.
"""

from __future__ import annotations

import hashlib

import pytest

from store.items import add_items
from workbench.protocol import registry
from workbench.protocol.base import (ItemLoad, MetricsDocument, MetricsTab, MetricsTable, ReportSection, RunPlan,
                                     StudyProtocol)
from workbench.runs.context import RunOutput, user

NAME = "echo-toy"

STUDY = """\
name = "echo-study"
protocol = "echo-toy"

[echo]
question = "What is the capital of the toy country?"
"""


class EchoProtocol(StudyProtocol):
    name = NAME
    title = "Echo: one question, one answer, its length"
    section = "echo"

    def conditions(self):
        return ["ask"]

    def check_section(self, data, definition, bad):
        table = data.get("echo", {})
        question = table.get("question")
        if not isinstance(question, str) or not question.strip():
            bad("echo.question", "is required: the one question to ask")
        return {"question": question or ""}

    def load_items(self, db, study_id, definition, base_dir=None):
        question = definition["echo"]["question"]
        item = {"id": "q1", "payload": {"question": question},
                "content_hash": hashlib.sha256(question.encode()).hexdigest(), "source": "study file"}
        return ItemLoad(added=add_items(db, study_id, [item], kind="question"))

    def frozen_artefacts(self, db, study_id, definition):
        return [("item", "q1", definition["echo"]["question"])]

    def planned_runs(self, db, study_id, definition):
        return [RunPlan("q1", "ask", 0)]

    async def program(self, ctx):
        text = await ctx.turn("ask", "asker", [user(ctx.item["question"])], phase="ask", label="Ask")
        return RunOutput(text=text, report={"length": len(text)})

    def metrics(self, db, study_id, options=None):
        from store.outputs import outputs_for_study

        lengths = [o["report"]["length"] for o in outputs_for_study(db, study_id)]
        doc = {"answers": len(lengths), "mean_length": sum(lengths) / len(lengths) if lengths else None}
        return MetricsDocument(doc, text=f"answers {doc['answers']}, mean length {doc['mean_length']}",
                               csv_columns=["answers"], csv_rows=[{"answers": len(lengths)}])

    def report_sections(self, db, study_id, options=None):
        doc = self.metrics(db, study_id).document
        table = answers_table(doc)
        return [ReportSection("Answers", f"{doc['answers']} answer(s); mean length {doc['mean_length']}.\n\n"
                              f"| {' | '.join(table.columns)} |\n|---|---|\n| {' | '.join(table.rows[0])} |")]

    def metrics_tabs(self, db, study_id, options=None):
        """Its own tab in the shared Metrics section: the one table, handed as plain data."""
        return [MetricsTab("answers", "Answers", tables=[answers_table(self.metrics(db, study_id).document)])]


def answers_table(doc: dict) -> MetricsTable:
    mean = "-" if doc["mean_length"] is None else f"{doc['mean_length']:.1f}"
    return MetricsTable("answers", "Answers and their length", ["answers", "mean length"], [[str(doc["answers"]), mean]])


@pytest.fixture
def echo_protocol():
    """The toy protocol registered for one test."""
    registry.register(EchoProtocol())
    yield EchoProtocol
    registry.unregister(NAME)


PROTOCOL = EchoProtocol()  # what an entry point names: `echo-toy = "tests.support.toy_protocol:PROTOCOL"`
