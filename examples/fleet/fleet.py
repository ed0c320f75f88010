"""A fleet run of mcpdbg on Ray Data.

Reads a directory of session logs, checks them in batches as a map step
(each batch's paths go to one `mcpdbg check --format jsonl --files-from -`
over a pipe), writes the findings as JSON Lines, and counts them per rule
and per server in the same job. Prints the counts as one JSON object.

    python fleet.py --mcpdbg PATH/TO/mcpdbg --out findings/ LOG_DIR

On a laptop it starts a local Ray cluster (--num-cpus, a 200 MB object
store, no dashboard); with --address it joins a running cluster instead.
See README.md for object storage, Spark and DuckDB.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import ray
from ray.data.expressions import col


def list_logs(root):
    """Every file under root, as absolute paths, in a stable order."""
    paths = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            paths.append(os.path.abspath(os.path.join(folder, name)))
    return paths


def server_of(session):
    """The server a session talked to: the name a log of several servers
    gives it, else the name the server gave in its handshake."""
    if session.get("name"):
        return session["name"]
    server = session.get("server") or {}
    return server.get("name") or "(unknown)"


def check_batch(mcpdbg):
    """The map step: one mcpdbg over a batch of paths, NUL-separated on its
    standard input; one row out per finding, file and unreadable file."""

    def check(batch):
        paths = list(batch["path"])
        listed = b"".join(os.fsencode(p) + b"\0" for p in paths)
        done = subprocess.run(
            [mcpdbg, "check", "--format", "jsonl", "--files-from", "-", "-0",
             "--jobs", "1", "--quiet", "--fail-on", "never"],
            input=listed, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            check=False,
        )
        # 0: checked; 2: some file could not be read (an error record says
        # which). Anything else is mcpdbg failing, which fails the task.
        if done.returncode not in (0, 2):
            raise RuntimeError(
                f"mcpdbg exited with {done.returncode}: {done.stderr.decode(errors='replace')}")
        rows = {k: [] for k in
                ("type", "path", "session", "line", "rule", "severity", "server", "message")}
        servers = {}
        for line in done.stdout.splitlines():
            record = json.loads(line)
            kind = record["type"]
            if kind == "session":
                # A file's sessions come before its findings.
                servers[(record["path"], record["session"])] = server_of(record)
                continue
            finding = kind == "finding"
            rows["type"].append(kind)
            rows["path"].append(record["path"])
            rows["session"].append(record["session"] if finding else -1)
            rows["line"].append(record["line"] if finding else 0)
            rows["rule"].append(record["rule"] if finding else "")
            rows["severity"].append(record["severity"] if finding else "")
            rows["server"].append(
                servers.get((record["path"], record["session"]), "(unknown)") if finding else "")
            rows["message"].append(record.get("message", ""))
        return rows

    return check


def run(args):
    paths = list_logs(args.logs)
    if args.address:
        ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
    else:
        ray.init(num_cpus=args.num_cpus, object_store_memory=200 * 1024 * 1024,
                 include_dashboard=False, log_to_driver=False)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    start = time.monotonic()
    rows = (ray.data.from_items([{"path": p} for p in paths])
            .repartition(max(1, -(-len(paths) // args.batch)))
            .map_batches(check_batch(args.mcpdbg), batch_size=args.batch,
                         batch_format="numpy")
            .materialize())
    mapped = time.monotonic()
    findings = rows.filter(expr=col("type") == "finding").materialize()
    if args.out:
        findings.write_json(args.out)
    total = findings.count()

    # One shuffle for both counts: per (rule, server), folded here.
    by_rule, by_server = {}, {}
    if total:
        grouped = findings.groupby(["rule", "server"], num_partitions=args.num_cpus).count()
        for r in grouped.take_all():
            by_rule[r["rule"]] = by_rule.get(r["rule"], 0) + r["count()"]
            by_server[r["server"]] = by_server.get(r["server"], 0) + r["count()"]

    summary = {
        "files": rows.filter(expr=col("type") == "file").count(),
        "errors": rows.filter(expr=col("type") == "error").count(),
        "findings": total,
        "by_rule": dict(sorted(by_rule.items())),
        "by_server": dict(sorted(by_server.items())),
        # The map step (through mcpdbg), then the whole job with the
        # writing and the counting; the cluster's start is in neither.
        "map_seconds": round(mapped - start, 3),
        "seconds": round(time.monotonic() - start, 3),
    }
    ray.shutdown()
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", help="the directory of session logs")
    parser.add_argument("--mcpdbg", default="mcpdbg", help="the mcpdbg binary")
    parser.add_argument("--out", help="write the findings as JSON Lines into this directory")
    parser.add_argument("--batch", type=int, default=256, help="paths per mcpdbg run")
    parser.add_argument("--num-cpus", type=int, default=2, help="the local cluster's cores")
    parser.add_argument("--address", help="a running Ray cluster to join (e.g. auto)")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
