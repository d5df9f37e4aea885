"""The hash-chained call log: verify re-walks it and names the first broken line."""

from __future__ import annotations

import json

from workbench.gateway import CallRequest, ModelSettings, verify_log
from workbench.gateway.calllog import GENESIS, CallLog, line_hash


async def write_calls(make_gateway, n=4, study="s-log"):
    gateway = make_gateway()
    for i in range(n):
        await gateway.call(CallRequest(messages=[{"role": "user", "content": f"q{i}"}],
                                       settings=ModelSettings(model="mock"), study_id=study, replicate=i))
    return gateway.log_path(study)


async def test_log_lines_chain_and_carry_the_record(make_gateway, db_path):
    path = await write_calls(make_gateway)
    assert path.parent == db_path.parent / "store.logs" and path.name == "s-log.jsonl"
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    assert [e["seq"] for e in entries] == [1, 2, 3, 4]
    assert entries[0]["prev_hash"] == GENESIS
    for prev, entry in zip(entries, entries[1:]):
        assert entry["prev_hash"] == prev["hash"]
    for entry in entries:
        assert entry["hash"] == line_hash(entry)
        for field in ("messages", "settings", "model", "replicate", "sample", "response", "input_tokens",
                      "output_tokens", "cost", "latency_ms", "started_at", "finished_at", "error", "attempt"):
            assert field in entry
    assert verify_log(path).ok and verify_log(path).lines == 4


async def test_tampering_one_line_is_named(make_gateway):
    path = await write_calls(make_gateway)
    lines = path.read_text().splitlines()
    entry = json.loads(lines[2])
    entry["response"] = entry["response"].replace("placeholder", "forged")
    lines[2] = json.dumps(entry)
    path.write_text("\n".join(lines) + "\n")
    result = verify_log(path)
    assert not result.ok and result.broken_line == 3 and "altered" in result.reason


async def test_removed_and_reordered_lines_are_named(make_gateway):
    path = await write_calls(make_gateway)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:1] + lines[2:]) + "\n")
    assert verify_log(path).broken_line == 2
    path.write_text("\n".join([lines[0], lines[2], lines[1], lines[3]]) + "\n")
    assert verify_log(path).broken_line == 2


async def test_rehashed_forgery_still_breaks_the_next_link(make_gateway):
    path = await write_calls(make_gateway)
    lines = path.read_text().splitlines()
    entry = json.loads(lines[1])
    entry["response"] = "forged"
    entry["hash"] = line_hash(entry)  # a careful forger recomputes this line's hash
    lines[1] = json.dumps(entry)
    path.write_text("\n".join(lines) + "\n")
    assert verify_log(path).broken_line == 3


def test_append_continues_a_chain_written_by_another_writer(tmp_path):
    path = tmp_path / "x.jsonl"
    CallLog(path).append({"n": 1})
    CallLog(path).append({"n": 2})  # a second process: it must read the tail, not restart the chain
    writer = CallLog(path)
    writer.append({"n": 3})
    writer.append({"n": 4})
    result = verify_log(path)
    assert result.ok and result.lines == 4


def test_many_records_appended_at_once_are_the_lines_appended_one_by_one(tmp_path):
    records = [{"study_id": "s", "call_key": f"k{i}", "response": f"ré {i}", "messages": [{"content": "q"}]}
               for i in range(5)]
    one_by_one, at_once = CallLog(tmp_path / "one.jsonl"), CallLog(tmp_path / "logs" / "many.jsonl")
    links = [one_by_one.append(r) for r in records[:2]] + one_by_one.append_many(records[2:])
    assert at_once.append_many(records[:3]) + at_once.append_many(records[3:]) == links
    assert (tmp_path / "logs" / "many.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()
    assert [seq for seq, _ in links] == [1, 2, 3, 4, 5] and verify_log(tmp_path / "one.jsonl").lines == 5
    # another writer's line in between: the next batch chains onto it
    CallLog(tmp_path / "one.jsonl").append({"call_key": "other"})
    assert [seq for seq, _ in one_by_one.append_many(records[:2])] == [7, 8]
    assert verify_log(tmp_path / "one.jsonl").ok
    assert [e["call_key"] for e in one_by_one.entries_except({1, 2, 3, 4, 5})] == ["other", "k0", "k1"]
