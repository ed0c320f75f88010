//! The fleet example (examples/fleet/) on a real, local Ray cluster of two
//! cores: its per-rule and per-server counts must equal those of one
//! `mcpdbg check --format jsonl` over the same files, and the findings it
//! writes must be as many. Ray and DuckDB come from
//! examples/fleet/requirements.txt, installed by scripts/test, which
//! exports MCPDBG_TEST_FLEET_PYTHON.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::*;

fn fleet_python() -> PathBuf {
    let python = std::env::var_os("MCPDBG_TEST_FLEET_PYTHON").unwrap_or_else(|| {
        panic!(
            "MCPDBG_TEST_FLEET_PYTHON is not set: run scripts/test, which installs Ray \
             (examples/fleet/requirements.txt) into target/fleet-venv and sets it"
        )
    });
    let python = PathBuf::from(python);
    assert!(
        python.exists(),
        "{} does not exist: run scripts/test",
        python.display()
    );
    python
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The server of a session record, as the example names it.
fn server_of(session: &Value) -> String {
    session["name"]
        .as_str()
        .filter(|s| !s.is_empty())
        .or_else(|| session["server"]["name"].as_str().filter(|s| !s.is_empty()))
        .unwrap_or("(unknown)")
        .to_string()
}

/// The direct run's counts, in the example's shape, and its records.
fn direct(files: &[PathBuf]) -> (Value, Vec<u8>) {
    let mut child = mcpdbg()
        .args([
            "check",
            "--format",
            "jsonl",
            "--files-from",
            "-",
            "-0",
            "--fail-on",
            "never",
            "-q",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("mcpdbg runs");
    let mut list = Vec::new();
    for f in files {
        list.extend_from_slice(f.to_str().expect("utf-8 path").as_bytes());
        list.push(0);
    }
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(&list));
    let out = child.wait_with_output().expect("mcpdbg ends");
    writer.join().expect("writer").expect("list written");
    // 2: the fixtures that hold no MCP message are refused (an error record each).
    assert_eq!(out.status.code(), Some(2), "every file readable but those");
    let mut servers = BTreeMap::new();
    let (mut n_files, mut errors, mut findings) = (0, 0, 0);
    let mut by_rule: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_server: BTreeMap<String, u64> = BTreeMap::new();
    for line in String::from_utf8(out.stdout.clone())
        .expect("utf-8")
        .lines()
    {
        let r: Value = serde_json::from_str(line).expect("a JSON record");
        let key = (
            r["path"].as_str().unwrap().to_string(),
            r["session"].as_u64(),
        );
        match r["type"].as_str().unwrap() {
            "file" => n_files += 1,
            "error" => errors += 1,
            "session" => {
                servers.insert(key, server_of(&r));
            }
            "finding" => {
                findings += 1;
                *by_rule
                    .entry(r["rule"].as_str().unwrap().into())
                    .or_default() += 1;
                let server = servers.get(&key).cloned().unwrap_or("(unknown)".into());
                *by_server.entry(server).or_default() += 1;
            }
            other => panic!("unknown record type {other}"),
        }
    }
    let counts = serde_json::json!({
        "files": n_files, "errors": errors, "findings": findings,
        "by_rule": by_rule, "by_server": by_server,
    });
    (counts, out.stdout)
}

#[test]
fn the_ray_example_counts_what_one_direct_run_counts() {
    let python = fleet_python();
    let logs = root().join("fixtures");
    let mut files = Vec::new();
    walk(&logs, &mut files);
    let out_dir = root().join("target/test-scratch/fleet/findings");
    let _ = std::fs::remove_dir_all(&out_dir);
    std::fs::create_dir_all(out_dir.parent().unwrap()).expect("scratch");
    let run = Command::new(&python)
        .current_dir(root())
        .arg("examples/fleet/fleet.py")
        .arg("--mcpdbg")
        .arg(env!("CARGO_BIN_EXE_mcpdbg"))
        .arg("--out")
        .arg(&out_dir)
        .args(["--batch", "16", "--num-cpus", "2"])
        .arg(&logs)
        .output()
        .expect("the example runs");
    assert!(
        run.status.success(),
        "the example failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut ray: Value = serde_json::from_slice(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&run.stdout)));
    for timer in ["map_seconds", "seconds"] {
        assert!(ray[timer].as_f64().is_some(), "{timer}");
        ray.as_object_mut().unwrap().remove(timer);
    }
    let (want, records) = direct(&files);
    assert_eq!(ray, want, "Ray's counts against the direct run's");
    // Every file is a `file` record but the two that hold no MCP message
    // (fixtures/inputs/vscode-info-level.log, fixtures/tee/hang.stderr.log).
    assert_eq!(want["errors"], 2, "{want}");
    assert_eq!(want["files"], files.len() - 2);
    assert!(want["findings"].as_u64().unwrap() > 100, "{want}");
    assert!(want["by_server"].as_object().unwrap().len() > 3, "{want}");

    // The findings it wrote: one JSON object per line, as many as counted.
    let mut written = Vec::new();
    walk(&out_dir, &mut written);
    let mut rules: BTreeMap<String, u64> = BTreeMap::new();
    for file in written {
        for line in std::fs::read_to_string(&file).expect("read").lines() {
            let row: Value = serde_json::from_str(line).expect("a JSON line");
            assert_eq!(row["type"], "finding");
            *rules
                .entry(row["rule"].as_str().unwrap().into())
                .or_default() += 1;
        }
    }
    assert_eq!(
        serde_json::json!(rules),
        want["by_rule"],
        "the written findings"
    );

    // The DuckDB query of the README, over the direct run's records: per
    // server and rule, adding up to the same per-server counts.
    let jsonl = root().join("target/test-scratch/fleet/direct.jsonl");
    std::fs::write(&jsonl, &records).expect("write the records");
    let query = Command::new(&python)
        .current_dir(root())
        .arg("examples/fleet/query.py")
        .arg(&jsonl)
        .output()
        .expect("the query runs");
    assert!(
        query.status.success(),
        "the DuckDB query failed:\n{}",
        String::from_utf8_lossy(&query.stderr)
    );
    let rows: Vec<(String, String, u64)> =
        serde_json::from_slice(&query.stdout).expect("rows as JSON");
    let mut by_server: BTreeMap<String, u64> = BTreeMap::new();
    for (server, _, n) in &rows {
        *by_server.entry(server.clone()).or_default() += n;
    }
    assert_eq!(
        serde_json::json!(by_server),
        want["by_server"],
        "DuckDB per server"
    );
    assert!(rows.windows(2).all(|w| w[0].2 >= w[1].2), "sorted by count");
}
