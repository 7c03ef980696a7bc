# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The fields of records, read through docs/events.schema.json.

A field is named by its owner and its name: the owner is the schema's
definition it belongs to ("process", "entry", "where", ...), "record" for a
record's own top-level fields, "record/KIND" for those only an event kind
has, or the owner's path for an object written inline ("process.cgroup").
fields_of() says which fields one record has; schema_fields() lists every
field the schema names. The harness collects the first over every record the
suite produced (PGT_FIELDS), and tests/check-fields reads the two against
each other and against docs/events.md."""
import re


def _resolve(schema, node, owner, out):
    """The object nodes @node stands for, with their owners, into @out."""
    if not isinstance(node, dict):
        return out
    ref = node.get("$ref")
    if ref:
        name = ref.rsplit("/", 1)[1]
        return _resolve(schema, schema["definitions"][name], name, out)
    for key in ("oneOf", "anyOf", "allOf"):
        for sub in node.get(key, []):
            _resolve(schema, sub, owner, out)
    if any(k in node for k in ("properties", "required", "items")):
        out.append((node, owner))
    return out


def _branches(schema, kind):
    """The then-branches of the record's allOf that apply to @kind."""
    for br in schema.get("allOf", []):
        ev = br.get("if", {}).get("properties", {}).get("event", {})
        kinds = ev.get("enum") or ([ev["const"]] if "const" in ev else [])
        if kind is None or kind in kinds:
            for k in kinds if kind is None else [kind]:
                yield br["then"], "record/" + k


def documented_names(events_md):
    """Every name docs/events.md gives in backquotes (`a.b`, `a_hex`), and
    in a table's list of an object's members ({"ip", "port"})."""
    out = set()
    for tok in re.findall(r"`([^`\n]+)`", events_md):
        out |= set(re.findall(r"[a-z_][a-z0-9_]*", tok))
    for tok in re.findall(r"\{((?:\s*\"\w+\",?)+)\s*\}", events_md):
        out |= set(re.findall(r'"(\w+)"', tok))
    return out


def fields_of(schema, record, seen, unknown):
    """Add each field @record has to @seen, as (owner, name); a key that no
    schema node names, where some node says what the object holds, goes to
    @unknown as its path."""
    roots = [(schema, "record")] + list(_branches(schema, record.get("event")))
    _walk(schema, record, roots, "", seen, unknown)


def _walk(schema, value, cands, path, seen, unknown):
    nodes = []
    for node, owner in cands:
        _resolve(schema, node, owner, nodes)
    if isinstance(value, dict):
        described = [(n, o) for n, o in nodes if "properties" in n or "required" in n]
        for key, v in value.items():
            sub, named = [], False
            for n, o in described:
                if key in n.get("properties", {}):
                    seen.add((o, key))
                    sub.append((n["properties"][key], o + "." + key))
                    named = True
                elif key in n.get("required", []):
                    seen.add((o, key))
                    named = True
            if described and not named and not any(
                    isinstance(n.get("additionalProperties"), dict) for n, _ in described):
                unknown.add(path + key)
            _walk(schema, v, sub, path + key + ".", seen, unknown)
    elif isinstance(value, list):
        sub = [(n["items"], o + "[]") for n, o in nodes if isinstance(n.get("items"), dict)]
        for v in value:
            _walk(schema, v, sub, path + "[].", seen, unknown)


def schema_fields(schema):
    """Every (owner, name) the schema names."""
    out = set()
    todo = [(schema, "record")] + list(_branches(schema, None))
    done = set()
    while todo:
        node, owner = todo.pop()
        for n, o in _resolve(schema, node, owner, []):
            if (id(n), o) in done:
                continue
            done.add((id(n), o))
            for key, sub in n.get("properties", {}).items():
                out.add((o, key))
                todo.append((sub, o + "." + key))
            out |= {(o, key) for key in n.get("required", [])}
            if isinstance(n.get("items"), dict):
                todo.append((n["items"], o + "[]"))
    return out
