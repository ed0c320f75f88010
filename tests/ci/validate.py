"""Reads mcpdbg's CI output formats with real, pinned libraries, for
tests/it/ci_formats.rs (run with the Python of target/ci-venv).

  validate.py sarif SCHEMA FILE...   validates each SARIF file against the
                                     JSON schema with jsonschema (formats
                                     checked too); prints each error, exits 1
                                     if there was one
  validate.py junit FILE             parses a JUnit XML file with junitparser
                                     and prints what it read as JSON
  validate.py otlp FILE...           parses each OTLP/JSON file into the
                                     official ExportTraceServiceRequest
                                     (opentelemetry-proto) with unknown
                                     fields refused, checks that writing it
                                     back loses nothing, and prints what it
                                     read as JSON (one object per file)
"""

import importlib.metadata
import json
import sys


def sarif(schema_path, files):
    import jsonschema

    # The schema file starts with a byte-order mark.
    with open(schema_path, encoding="utf-8-sig") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    errors = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for error in validator.iter_errors(doc):
            errors += 1
            where = "/".join(str(p) for p in error.absolute_path)
            print(f"{path}: {where}: {error.message}")
    version = importlib.metadata.version("jsonschema")
    print(f"jsonschema {version}: {len(files)} file(s), {errors} error(s)", file=sys.stderr)
    return 1 if errors else 0


def junit(path):
    import junitparser

    xml = junitparser.JUnitXml.fromfile(path)
    declared = {
        "tests": xml.tests,
        "failures": xml.failures,
        "errors": xml.errors,
        "skipped": xml.skipped,
    }
    suites = []
    for suite in xml:
        attrs = {
            "tests": suite.tests,
            "failures": suite.failures,
            "errors": suite.errors,
            "skipped": suite.skipped,
        }
        properties = {p.name: p.value for p in suite.properties()}
        cases = []
        for case in suite:
            results = []
            for r in case.result:
                results.append({
                    "kind": type(r).__name__,
                    "message": r.message,
                    "type": r.type,
                    "text": r.text,
                })
            cases.append({
                "name": case.name,
                "classname": case.classname,
                "results": results,
                "system_out": case.system_out,
            })
        suite.update_statistics()
        recounted = {
            "tests": suite.tests,
            "failures": suite.failures,
            "errors": suite.errors,
            "skipped": suite.skipped,
        }
        suites.append({
            "name": suite.name,
            "declared": attrs,
            "recounted": recounted,
            "properties": properties,
            "cases": cases,
        })
    xml.update_statistics()
    recounted = {
        "tests": xml.tests,
        "failures": xml.failures,
        "errors": xml.errors,
        "skipped": xml.skipped,
    }
    json.dump({"declared": declared, "recounted": recounted, "suites": suites}, sys.stdout)
    return 0


# The fields OTLP/JSON writes as lowercase hex, where protobuf's own JSON
# mapping (which json_format follows) expects base64 for bytes fields.
HEX_FIELDS = ("traceId", "spanId", "parentSpanId")


def hex_to_base64(node):
    import base64

    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key in HEX_FIELDS and isinstance(value, str):
                out[key] = base64.b64encode(bytes.fromhex(value)).decode()
            else:
                out[key] = hex_to_base64(value)
        return out
    if isinstance(node, list):
        return [hex_to_base64(v) for v in node]
    return node


def otlp(files):
    from google.protobuf import json_format
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    def value(v):
        kind = v.WhichOneof("value")
        return getattr(v, kind) if kind else None

    summaries = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        converted = hex_to_base64(doc)
        request = ExportTraceServiceRequest()
        # Strict: a misspelt field is an error, not a silent drop.
        json_format.Parse(json.dumps(converted), request, ignore_unknown_fields=False)
        back = json_format.MessageToDict(request, use_integers_for_enums=True)
        # Read back as the file says it: every field, value and type kept.
        lost = back != converted
        spans = []
        resources = []
        for rs in request.resource_spans:
            resources.append({a.key: value(a.value) for a in rs.resource.attributes})
            for ss in rs.scope_spans:
                for s in ss.spans:
                    spans.append({
                        "trace_id": s.trace_id.hex(),
                        "span_id": s.span_id.hex(),
                        "parent_span_id": s.parent_span_id.hex(),
                        "name": s.name,
                        "kind": s.kind,
                        "start": s.start_time_unix_nano,
                        "end": s.end_time_unix_nano,
                        "status_code": s.status.code,
                        "status_message": s.status.message,
                        "attributes": {a.key: value(a.value) for a in s.attributes},
                        "events": [
                            {
                                "name": e.name,
                                "time": e.time_unix_nano,
                                "attributes": {a.key: value(a.value) for a in e.attributes},
                            }
                            for e in s.events
                        ],
                        "links": [
                            {"trace_id": l.trace_id.hex(), "span_id": l.span_id.hex()}
                            for l in s.links
                        ],
                        "scope": ss.scope.name,
                    })
        summaries.append({"file": path, "lost": lost, "resources": resources, "spans": spans})
    version = importlib.metadata.version("opentelemetry-proto")
    print(f"opentelemetry-proto {version}: {len(files)} file(s)", file=sys.stderr)
    json.dump(summaries, sys.stdout)
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "otlp":
        sys.exit(otlp(sys.argv[2:]))
    if sys.argv[1] == "sarif":
        sys.exit(sarif(sys.argv[2], sys.argv[3:]))
    if sys.argv[1] == "junit":
        sys.exit(junit(sys.argv[2]))
    sys.exit(f"unknown verb {sys.argv[1]}")
