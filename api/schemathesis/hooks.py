"""Schemathesis hooks for the rules of this API that JSON Schema cannot state.

- A useChat body (UIChatRequest) goes with the UI message stream protocol,
  and its last message must be the user's question: a schema can neither
  tie a body to a query parameter nor name an array's last item.
- Each supplied context key appears once (after white space becomes _).
- Cursors and resume points are opaque tokens the API issued.

Only positive cases are filtered; negative ones go out as generated.
"""

import schemathesis


def _is_ui_body(body):
    """A useChat body: messages and no message (a regenerate adds retry, a
    supply contextSupply)."""
    return isinstance(body, dict) and isinstance(body.get("messages"), list) and body.get("message") is None


def _asks_a_question(message):
    if not isinstance(message, dict) or message.get("role") != "user":
        return False
    if isinstance(message.get("content"), str):
        return message["content"].strip() != ""
    parts = message.get("parts")
    if not isinstance(parts, list):
        return False
    text = "".join(p.get("text", "") for p in parts if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str))
    return text.strip() != "" and len(text) <= 32000


@schemathesis.hook("filter_case")
def ui_bodies_end_with_a_question(ctx, case):
    if case.meta is None or not case.meta.generation.mode.is_positive or not _is_ui_body(case.body):
        return True
    if case.body.get("retry") is True or isinstance(case.body.get("contextSupply"), dict):
        return True  # a retry or an answered request asks the stored question
    messages = case.body["messages"]
    return isinstance(messages, list) and len(messages) > 0 and _asks_a_question(messages[-1])


@schemathesis.hook("map_case")
def ui_bodies_use_the_ui_protocol(ctx, case):
    if _is_ui_body(case.body):
        case.query = dict(case.query or {}, protocol="ui-message-stream")
        for name in list(case.headers or {}):
            if name.lower() == "x-stream-protocol":
                case.headers[name] = "ui-message-stream"
    return case


def _supplied_keys(body):
    supply = body.get("contextSupply") if isinstance(body, dict) else None
    items = (supply if isinstance(supply, dict) else body if isinstance(body, dict) else {}).get("items")
    if not isinstance(items, list):
        return []
    return ["_".join(str(it.get("key", "")).split()) for it in items if isinstance(it, dict)]


@schemathesis.hook("filter_case")
def each_key_once_and_issued_cursors(ctx, case):
    """Rules no schema states: each supplied key once, and a page cursor is
    one the API issued (it is opaque; a generated one is refused)."""
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return True
    keys = _supplied_keys(case.body)
    if len(keys) != len(set(keys)):
        return False
    return not (case.query or {}).get("cursor")


@schemathesis.hook("filter_case")
def issued_resume_points(ctx, case):
    """A feed's resume point (Last-Event-ID, since) is a cursor the feed issued."""
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return True
    headers = {k.lower(): v for k, v in (case.headers or {}).items()}
    query = case.query or {}
    return not query.get("lastEventId") and not query.get("since") and not headers.get("last-event-id")
