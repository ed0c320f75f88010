"""Runs by-server.sql with DuckDB over the JSON Lines of `mcpdbg check
--format jsonl` and prints its rows as a JSON array of [server, rule, count].

    python query.py findings.jsonl
"""

import json
import os
import sys

import duckdb


def main():
    findings = sys.argv[1]
    sql = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "by-server.sql")).read()
    con = duckdb.connect()
    con.execute("SET VARIABLE findings = ?", [findings])
    rows = con.execute(sql).fetchall()
    json.dump([list(r) for r in rows], sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
