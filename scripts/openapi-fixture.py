"""Writes test/fixtures/zulip-openapi-fl420.json from Zulip's OpenAPI YAML: the machine-readable
parts only (paths, parameters, schemas, examples), without prose. Usage:
    python3 scripts/openapi-fixture.py /path/to/zulip-openapi.yaml
(Python because no YAML parser is among Confab's npm dependencies.)"""
import json
import sys

import yaml

PROSE = {"description", "summary", "tags", "info", "servers", "externalDocs", "x-curl-examples-parameters",
         "x-parameter-description", "x-response-description", "x-python-examples-extra-imports", "x-draft-example"}
# Keys of these maps are names (a property may be called "description"), not schema keywords.
NAME_MAPS = {"properties", "paths", "schemas", "responses", "parameters", "content", "examples", "requestBodies"}


def strip(node, names_here=False):
    if isinstance(node, dict):
        if names_here:
            return {k: strip(v) for k, v in node.items()}
        return {k: strip(v, k in NAME_MAPS) for k, v in node.items() if k not in PROSE}
    if isinstance(node, list):
        return [strip(x) for x in node]
    return node


spec = yaml.safe_load(open(sys.argv[1]))
with open("test/fixtures/zulip-openapi-fl420.json", "w") as out:
    json.dump(strip(spec), out, separators=(",", ":"), default=str)
