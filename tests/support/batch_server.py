"""The loopback server with OpenAI's Files and Batches endpoints, for provider batch mode's tests.

    POST /v1/files                    upload a JSONL file (multipart, purpose=batch)
    GET  /v1/files/{id}/content       a file's bytes (input, output or error file)
    POST /v1/batches                  create a batch over an uploaded file (metadata kept)
    GET  /v1/batches/{id}             its state; every poll advances it (validating -> in_progress ->
                                      completed), answering each line with the chat server's replies
    GET  /v1/batches                  the list (newest first), as `alist_batches` reads it
    POST /v1/batches/{id}/cancel      cancel

Each line of a batch is answered exactly as `POST /v1/chat/completions` would answer it (the queue, the
responder, the default echo), so `server.count` counts the model requests a batch made. A reply with a
status other than 200 becomes a line of the error file. `expire_after` lines: the next batch to finish
expires after answering that many, and the rest are reported as `batch_expired` in the error file.
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import threading
import time
from typing import Any

from tests.support.loopback import LoopbackServer, Reply, _Handler


class BatchServer(LoopbackServer):
    def __init__(self, *args: Any, polls_to_complete: int = 2, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.polls_to_complete = polls_to_complete
        self.expire_after: int | None = None
        self.files: dict[str, dict] = {}
        self.batches: dict[str, dict] = {}
        self.batches_created = 0
        self.uploads = 0
        self.fail_create_after_accepting = False  # create the batch, then answer 500 (a lost response)
        self._ids = itertools.count(1)
        self._batch_lock = threading.Lock()

    thread_name = "loopback-batch"

    def handler(self) -> type:
        return _BatchHandler

    # --- the provider's side ------------------------------------------------------------------
    def _new_id(self, prefix: str) -> str:
        return f"{prefix}-{next(self._ids)}"

    def add_file(self, data: bytes, purpose: str, filename: str = "file.jsonl") -> dict:
        fid = self._new_id("file")
        doc = {"id": fid, "object": "file", "bytes": len(data), "created_at": int(time.time()),
               "filename": filename, "purpose": purpose, "status": "processed"}
        self.files[fid] = {"doc": doc, "data": data}
        return doc

    def create_batch(self, body: dict) -> dict:
        with self._batch_lock:
            bid = self._new_id("batch")
            self.batches_created += 1
            lines = [json.loads(line) for line in self.files[body["input_file_id"]]["data"].splitlines() if line.strip()]
            doc = {"id": bid, "object": "batch", "endpoint": body.get("endpoint"), "errors": None,
                   "input_file_id": body["input_file_id"], "completion_window": body.get("completion_window"),
                   "status": "validating", "output_file_id": None, "error_file_id": None,
                   "created_at": int(time.time()), "in_progress_at": None, "expires_at": None,
                   "completed_at": None, "failed_at": None, "expired_at": None, "cancelled_at": None,
                   "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
                   "metadata": body.get("metadata") or {}}
            self.batches[bid] = {"doc": doc, "lines": lines, "polls": 0}
            return doc

    def poll(self, bid: str) -> dict:
        with self._batch_lock:
            batch = self.batches[bid]
            doc = batch["doc"]
            if doc["status"] in ("completed", "expired", "cancelled", "failed"):
                return doc
            batch["polls"] += 1
            if batch["polls"] == 1:
                doc["status"], doc["in_progress_at"] = "in_progress", int(time.time())
            if batch["polls"] >= self.polls_to_complete:
                self._finish(batch)
            return doc

    def _finish(self, batch: dict) -> None:
        doc = batch["doc"]
        out, err = [], []
        for n, line in enumerate(batch["lines"]):
            if self.expire_after is not None and n >= self.expire_after:
                err.append({"id": f"req-{n}", "custom_id": line["custom_id"], "response": None,
                            "error": {"code": "batch_expired", "message": "the batch expired first"}})
                continue
            body = line["body"]
            reply = self._next_reply(body, {})
            if reply.status_code != 200:
                err.append({"id": f"req-{n}", "custom_id": line["custom_id"],
                            "response": {"status_code": reply.status_code, "request_id": f"req-{n}",
                                         "body": {"error": {"message": reply.content or "failed"}}},
                            "error": None})
                continue
            handler = _BatchHandler.__new__(_BatchHandler)
            handler.owner = self
            out.append({"id": f"req-{n}", "custom_id": line["custom_id"],
                        "response": {"status_code": 200, "request_id": f"req-{n}",
                                     "body": handler._completion(body, reply)}, "error": None})
        if out:
            doc["output_file_id"] = self.add_file(_jsonl(out), "batch_output")["id"]
        if err:
            doc["error_file_id"] = self.add_file(_jsonl(err), "batch_output")["id"]
        doc["request_counts"] = {"total": len(batch["lines"]), "completed": len(out), "failed": len(err)}
        expired = self.expire_after is not None and self.expire_after < len(batch["lines"])
        self.expire_after = None  # one batch expires; the next ones finish
        doc["status"] = "expired" if expired else "completed"
        doc["expired_at" if expired else "completed_at"] = int(time.time())


def _jsonl(rows: list[dict]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in rows)


class _BatchHandler(_Handler):
    owner: BatchServer

    def do_GET(self) -> None:
        path = self.path.split("?")[0].rstrip("/")
        parts = path.split("/")
        owner = self.owner
        if path.endswith("/batches"):
            docs = sorted((b["doc"] for b in owner.batches.values()), key=lambda d: d["id"], reverse=True)
            self._send_json(200, {"object": "list", "data": docs, "has_more": False,
                                  "first_id": docs[0]["id"] if docs else None,
                                  "last_id": docs[-1]["id"] if docs else None})
        elif len(parts) >= 2 and parts[-2] == "batches" and parts[-1] in owner.batches:
            self._send_json(200, owner.poll(parts[-1]))
        elif path.endswith("/content") and parts[-2] in owner.files:
            self._send_raw(200, owner.files[parts[-2]]["data"], {"Content-Type": "application/octet-stream"})
        elif len(parts) >= 2 and parts[-2] == "files" and parts[-1] in owner.files:
            self._send_json(200, owner.files[parts[-1]]["doc"])
        else:
            super().do_GET()

    def do_POST(self) -> None:
        path = self.path.split("?")[0].rstrip("/")
        owner = self.owner
        if path.endswith("/files"):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            fields = _multipart(self.headers.get("Content-Type", ""), raw)
            owner.uploads += 1
            self._send_json(200, owner.add_file(fields["file"][1], fields.get("purpose", (None, b"batch"))[1].decode(),
                                                fields["file"][0] or "file.jsonl"))
        elif path.endswith("/batches"):
            length = int(self.headers.get("Content-Length") or 0)
            doc = owner.create_batch(json.loads(self.rfile.read(length) or b"{}"))
            if owner.fail_create_after_accepting:
                self._send_json(500, {"error": {"message": "the batch was created, the answer lost"}})
            else:
                self._send_json(200, doc)
        elif path.endswith("/cancel"):
            bid = path.split("/")[-2]
            owner.batches[bid]["doc"]["status"] = "cancelled"
            self._send_json(200, owner.batches[bid]["doc"])
        else:
            super().do_POST()


def _multipart(content_type: str, raw: bytes) -> dict[str, tuple[str | None, bytes]]:
    """name -> (filename, bytes) of a multipart/form-data body."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw)
    fields = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        fields[name] = (part.get_filename(), part.get_payload(decode=True) or b"")
    return fields


__all__ = ["BatchServer", "Reply"]
