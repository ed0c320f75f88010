"""Reads mcpdbg's CI output formats with real, pinned libraries, for
tests/it/ci_formats.rs (run with the Python of target/ci-venv).

  validate.py sarif SCHEMA FILE...   validates each SARIF file against the
                                     JSON schema with jsonschema (formats
                                     checked too); prints each error, exits 1
                                     if there was one
  validate.py junit FILE             parses a JUnit XML file with junitparser
                                     and prints what it read as JSON
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


if __name__ == "__main__":
    if sys.argv[1] == "sarif":
        sys.exit(sarif(sys.argv[2], sys.argv[3:]))
    if sys.argv[1] == "junit":
        sys.exit(junit(sys.argv[2]))
    sys.exit(f"unknown verb {sys.argv[1]}")
