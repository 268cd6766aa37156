#!/usr/bin/env python3
"""Checks a settings schema (JSON Schema, draft 2020-12) with python's jsonschema.

usage: validate-json-schema.py SCHEMA.json [--reject JSON ...]

- the schema must be a valid draft 2020-12 schema (Draft202012Validator.check_schema);
- each property's default must validate against that property (formats checked), and the
  defaults together against the whole schema;
- each --reject JSON instance must fail validation (the validator is really checking).

Prints one line, "ok: the schema is valid, N defaults validate, M wrong instances rejected", and
exits 0; on a failure prints what failed and exits 1. Exits 3, printing "jsonschema is missing",
where the jsonschema package can't be imported. Used by .ci/run and by the end-to-end tests
(ExampleTests).
"""

import json
import sys

try:
    import jsonschema
except ImportError:
    print("jsonschema is missing")
    sys.exit(3)


def main(arguments):
    if not arguments:
        print(__doc__.strip().splitlines()[2])
        return 64
    with open(arguments[0], encoding="utf-8") as file:
        schema = json.load(file)
    rejected = []
    rest = arguments[1:]
    while rest:
        if rest[0] != "--reject" or len(rest) < 2:
            print("unexpected argument: " + rest[0])
            return 64
        rejected.append(json.loads(rest[1]))
        rest = rest[2:]

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        print("not a valid draft 2020-12 schema: " + error.message)
        return 1
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    failures = []
    defaults = {}
    for key, property in sorted(schema.get("properties", {}).items()):
        if "default" not in property:
            continue
        defaults[key] = property["default"]
        validator = jsonschema.Draft202012Validator(property, format_checker=checker)
        for error in validator.iter_errors(property["default"]):
            failures.append("the default of '%s' doesn't validate: %s" % (key, error.message))
    whole = jsonschema.Draft202012Validator(schema, format_checker=checker)
    for error in whole.iter_errors(defaults):
        failures.append("the defaults together don't validate: " + error.message)
    for instance in rejected:
        if whole.is_valid(instance):
            failures.append("a wrong instance validates: " + json.dumps(instance, sort_keys=True))
    if failures:
        print("\n".join(failures))
        return 1
    print(
        "ok: the schema is valid, %d defaults validate, %d wrong instances rejected"
        % (len(defaults), len(rejected))
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
