"""Agent trajectories API: stores validated trajectories in memory and serves search, running totals and
aggregate reports over HTTP (JSON in, JSON out)."""

from __future__ import annotations

import argparse
import base64
import json
import re
import threading
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

MAX_BODY = 5 * 1024 * 1024
ROLES = ("user", "system", "assistant", "environment")
TEXT_FIELDS = ("task", "environment", "model", "framework")
REQUIRED = ("date", "trajectory", *TEXT_FIELDS, "metrics")
STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
TOTALS = ("output_tokens", "cost")


class ApiError(Exception):
    """An answer other than success: HTTP status, error code, message and the field it is about."""

    def __init__(self, status: int, code: str, message: str, field_path: str | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.field_path = status, code, message, field_path

    def body(self) -> dict:
        return {"error": {"code": self.code, "message": self.message, "field_path": self.field_path}}


def invalid_input(message: str, field_path: str | None = None) -> ApiError:
    return ApiError(400, "INVALID_INPUT", message, field_path)


def invalid_query(message: str, field_path: str) -> ApiError:
    return ApiError(400, "INVALID_QUERY", message, field_path)


def not_found() -> ApiError:
    return ApiError(404, "NOT_FOUND", "trajectory not found")


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_stamp(value: object) -> datetime | None:
    """``value`` as a UTC datetime when it is a ``YYYY-MM-DDTHH:MM:SSZ`` timestamp, else None."""
    if not isinstance(value, str) or not STAMP.fullmatch(value):
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None


def is_count(value: object) -> bool:
    return type(value) is int and value >= 0


def is_amount(value: object) -> bool:
    return type(value) in (int, float) and value >= 0


ASSISTANT_NUMBERS = {"input_tokens": (is_count, "an integer >= 0"), "output_tokens": (is_count, "an integer >= 0"),
                     "cost": (is_amount, "a number >= 0")}


# --- validation -------------------------------------------------------------------------------------------


def check_text(document: dict, name: str, fail) -> None:
    value = document[name]
    if not isinstance(value, str) or not 1 <= len(value) <= 200:
        raise fail(f"{name} must be a string of 1 to 200 characters", name)


def check_metrics(metrics: object, fail) -> None:
    if not isinstance(metrics, dict) or len(metrics) > 50:
        raise fail("metrics must be an object of at most 50 entries", "metrics")
    for key, value in metrics.items():
        if not key:
            raise fail("metric keys must be non-empty", "metrics")
        if len(key) > 64:
            raise fail("metric keys must be at most 64 characters", f"metrics.{key}")
        if not isinstance(value, str | int | float):
            raise fail("metric values must be strings, numbers or booleans", f"metrics.{key}")


def check_numbers(step: dict, path: str, fail) -> None:
    if step.get("role") == "assistant":
        for name, (valid, what) in ASSISTANT_NUMBERS.items():
            if not valid(step.get(name)):
                raise fail(f"assistant.{name} must be {what}", f"{path}.{name}")
        return
    for name in ASSISTANT_NUMBERS:
        if step.get(name) is not None:
            raise fail(f"{name} must be null on a non-assistant step", f"{path}.{name}")


def check_step(step: object, path: str, fail) -> None:
    if not isinstance(step, dict):
        raise fail("a step must be an object", path)
    if step.get("role") not in ROLES:
        raise fail(f"role must be one of {', '.join(ROLES)}", f"{path}.role")
    content = step.get("content")
    if not isinstance(content, str) or not 1 <= len(content) <= 50_000:
        raise fail("content must be a string of 1 to 50000 characters", f"{path}.content")
    check_numbers(step, path, fail)


def check_steps(steps: object, prefix: str, fail, last: dict | None = None) -> None:
    """Every step valid, and the assistant steps' running totals never going down from ``last`` (the last
    assistant step before these, if any)."""
    if not isinstance(steps, list) or not steps:
        raise fail(f"{prefix} must be a non-empty list of steps", prefix)
    for index, step in enumerate(steps):
        path = f"{prefix}[{index}]"
        check_step(step, path, fail)
        if step["role"] != "assistant":
            continue
        for name in TOTALS:
            if last is not None and step[name] < last[name]:
                raise fail(f"assistant.{name} must be cumulative and non-decreasing across assistant steps",
                           f"{path}.{name}")
        last = step


def check_assistant_before_end(steps: list, fail) -> None:
    assistants = [index for index, step in enumerate(steps) if step["role"] == "assistant"]
    if len(steps) >= 3 and assistants == [len(steps) - 1]:
        raise fail("an assistant step must appear before the end of the trajectory", "trajectory")


def check_document(document: object) -> datetime:
    """Validate a submitted trajectory; its date as a datetime. Raises ApiError (400) at the first problem."""
    if not isinstance(document, dict):
        raise invalid_input("the body must be a JSON object")
    missing = [name for name in REQUIRED if name not in document]
    if missing:
        raise invalid_input(f"missing required field: {missing[0]}", missing[0])
    date = parse_stamp(document["date"])
    if date is None or date > datetime.now(UTC):
        raise invalid_input("date must be a past YYYY-MM-DDTHH:MM:SSZ timestamp", "date")
    for name in TEXT_FIELDS:
        check_text(document, name, invalid_input)
    check_metrics(document["metrics"], invalid_input)
    check_steps(document["trajectory"], "trajectory", invalid_input)
    check_assistant_before_end(document["trajectory"], invalid_input)
    return date


# --- storage ----------------------------------------------------------------------------------------------


@dataclass
class Record:
    """One stored trajectory: the document as submitted, its date, when it was stored."""

    id: str
    document: dict
    date: datetime
    created_at: str

    def finals(self) -> dict:
        assistants = [step for step in self.document["trajectory"] if step["role"] == "assistant"]
        last = assistants[-1] if assistants else {"output_tokens": 0, "cost": 0}
        return {"steps": len(self.document["trajectory"]), "final_output_tokens": last["output_tokens"],
                "final_cost": last["cost"]}

    def summary(self) -> dict:
        head = {name: self.document[name] for name in ("date", *TEXT_FIELDS, "metrics")}
        return {"id": self.id, **head, **self.finals()}


class Store:
    """Every record, under one lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.records: dict[str, Record] = {}

    def add(self, record: Record) -> None:
        with self.lock:
            self.records[record.id] = record

    def get(self, identifier: str) -> Record:
        with self.lock:
            if identifier not in self.records:
                raise not_found()
            return self.records[identifier]

    def all(self) -> list[Record]:
        with self.lock:
            return list(self.records.values())


STORE = Store()


# --- queries ----------------------------------------------------------------------------------------------


def query_stamp(value: str, name: str) -> datetime:
    moment = parse_stamp(value)
    if moment is None:
        raise invalid_query(f"{name} must be a YYYY-MM-DDTHH:MM:SSZ timestamp", name)
    return moment


def query_text(value: str, name: str) -> str:
    if not value:
        raise invalid_query(f"{name} must not be empty", name)
    return value


def mentions(record: Record, text: str) -> bool:
    needle = text.lower()
    texts = [record.document["task"], *(step["content"] for step in record.document["trajectory"])]
    return any(needle in haystack.lower() for haystack in texts)


FILTERS = {
    **{name: (lambda value, name: value, lambda record, value, name=name: record.document[name] == value)
       for name in TEXT_FIELDS},
    "start": (query_stamp, lambda record, value: record.date >= value),
    "end": (query_stamp, lambda record, value: record.date < value),
    "q": (query_text, mentions),
}
"""Query parameter -> (its value parsed or refused, whether a record matches it)."""


def matching(params: dict[str, str]) -> list[Record]:
    """The stored records matching every filter of ``params``. Raises ApiError (400) on an invalid one."""
    values = {name: FILTERS[name][0](value, name) for name, value in params.items() if name in FILTERS}
    if "start" in values and "end" in values and values["start"] >= values["end"]:
        raise invalid_query("start must be earlier than end", "start")
    return [record for record in STORE.all() if all(FILTERS[name][1](record, value) for name, value in values.items())]


def encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"offset": offset}).encode()).decode()


def decode_cursor(token: str) -> int:
    try:
        offset = json.loads(base64.urlsafe_b64decode(token.encode("ascii"))).get("offset")
    except (ValueError, AttributeError):
        offset = None
    if not is_count(offset):
        raise invalid_query("cursor is not one this service gave out", "cursor")
    return offset


def page_limit(params: dict[str, str]) -> int:
    text = params.get("limit", "50")
    if not re.fullmatch(r"\d{1,3}", text) or not 1 <= int(text) <= 100:
        raise invalid_query("limit must be an integer from 1 to 100", "limit")
    return int(text)


def search(params: dict[str, str]) -> dict:
    limit = page_limit(params)
    offset = decode_cursor(params["cursor"]) if "cursor" in params else 0
    records = sorted(matching(params), key=lambda record: record.id)
    records.sort(key=lambda record: record.date, reverse=True)
    more = offset + limit < len(records)
    return {"items": [record.summary() for record in records[offset:offset + limit]],
            "next_cursor": encode_cursor(offset + limit) if more else None}


def midnight(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0)


WINDOWS = {
    "none": lambda moment: None,
    "day": lambda moment: stamp(midnight(moment)),
    "week": lambda moment: stamp(midnight(moment) - timedelta(days=moment.weekday())),
    "month": lambda moment: stamp(midnight(moment).replace(day=1)),
}
GROUPS = ("none", "task", "model", "environment")
EMPTY_ROW = {"bucket": None, "group": None, "count_runs": 0, "sum_cost": 0, "avg_steps": 0, "avg_output_tokens": 0}


def choice(params: dict[str, str], name: str, allowed) -> str:
    value = params.get(name, "none")
    if value not in allowed:
        raise invalid_query(f"{name} must be one of {', '.join(allowed)}", name)
    return value


def row(bucket: str | None, group: dict | None, records: list[Record]) -> dict:
    finals = [record.finals() for record in records]
    count = len(finals)
    return {"bucket": bucket, "group": group, "count_runs": count,
            "sum_cost": sum(final["final_cost"] for final in finals),
            "avg_steps": round(sum(final["steps"] for final in finals) / count, 3),
            "avg_output_tokens": round(sum(final["final_output_tokens"] for final in finals) / count, 3)}


def report(params: dict[str, str]) -> dict:
    group_by = choice(params, "group_by", GROUPS)
    window = WINDOWS[choice(params, "window", WINDOWS)]
    cells: dict[tuple, list[Record]] = {}
    for record in matching(params):
        value = None if group_by == "none" else record.document[group_by]
        cells.setdefault((window(record.date), value), []).append(record)
    rows = [row(bucket, None if value is None else {group_by: value}, records)
            for (bucket, value), records in cells.items()]
    rows.sort(key=lambda item: (item["bucket"] is None, item["bucket"] or "",
                                next(iter((item["group"] or {"": ""}).values())), item["count_runs"], item["sum_cost"]))
    return {"rows": rows or [dict(EMPTY_ROW)]}


# --- endpoints --------------------------------------------------------------------------------------------


@dataclass
class Request:
    """What an endpoint gets: the path's captured id, the query parameters, the headers, the JSON body."""

    match: re.Match
    params: dict[str, str]
    headers: object
    read_json: object


def create(request: Request) -> tuple[int, dict]:
    document = request.read_json()
    date = check_document(document)
    record = Record(str(uuid.uuid4()), document, date, stamp(datetime.now(UTC)))
    STORE.add(record)
    return 201, {**record.summary(), "created_at": record.created_at}


def read(request: Request) -> tuple[int, dict]:
    record = STORE.get(request.match["id"])
    return 200, {"id": record.id, "record": record.document, "derived": record.finals()}


def totals(request: Request) -> tuple[int, dict]:
    record = STORE.get(request.match["id"])
    current = {"output_tokens": 0, "cost": 0}
    entries = []
    for index, step in enumerate(record.document["trajectory"]):
        current = step if step["role"] == "assistant" else current
        entries.append({"step_index": index, "role": step["role"],
                        "cumulative_output_tokens": current["output_tokens"], "cumulative_cost": current["cost"]})
    return 200, {"id": record.id, "running_totals": entries}


ROUTES = [
    ("POST", re.compile(r"/trajectories"), create),
    ("GET", re.compile(r"/trajectories"), lambda request: (200, search(request.params))),
    ("GET", re.compile(r"/trajectories/(?P<id>[^/]+)"), read),
    ("GET", re.compile(r"/trajectories/(?P<id>[^/]+)/totals"), totals),
    ("GET", re.compile(r"/reports"), lambda request: (200, report(request.params))),
]


class Handler(BaseHTTPRequestHandler):
    """Routes each request to its endpoint and writes the JSON answer."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        return

    def read_json(self) -> object:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self.discard(length)
            raise ApiError(413, "PAYLOAD_TOO_LARGE", "the body is over 5 MiB")
        media = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        body = self.rfile.read(length)
        if media != "application/json":
            raise ApiError(415, "UNSUPPORTED_MEDIA_TYPE", "the body must be application/json")
        try:
            return json.loads(body)
        except ValueError as error:
            raise invalid_input(f"the body is not JSON: {error}") from error

    def discard(self, length: int) -> None:
        """Read and drop what arrives of a refused body (for up to a second of silence), then close."""
        self.close_connection = True
        self.connection.settimeout(1)
        try:
            while length > 0 and (chunk := self.rfile.read1(min(length, 1 << 16))):
                length -= len(chunk)
        except TimeoutError:
            return

    def answer(self, method: str) -> None:
        url = urlsplit(self.path)
        params = {name: values[-1] for name, values in parse_qs(url.query, keep_blank_values=True).items()}
        try:
            for verb, pattern, endpoint in ROUTES:
                match = pattern.fullmatch(url.path)
                if verb == method and match:
                    self.send(*endpoint(Request(match, params, self.headers, self.read_json)))
                    return
            raise ApiError(404, "NOT_FOUND", f"no endpoint {method} {url.path}")
        except ApiError as error:
            self.send(error.status, error.body())

    def send(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        self.answer("GET")

    def do_POST(self) -> None:  # noqa: N802 - the base class's name
        self.answer("POST")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--address", default="0.0.0.0")
    options = parser.parse_args()
    server = ThreadingHTTPServer((options.address, options.port), Handler)
    server.daemon_threads = True
    print(f"READY agent_trajectories_api {options.address} {options.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
