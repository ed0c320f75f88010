//! Every human view fits the terminal: each runs on a pseudo-terminal of 80
//! columns (opened with libc, no `COLUMNS`) and through a pipe with
//! `--width 60`, and no line of its output may be wider. Without a terminal
//! or `--width`, the fixed layouts are pinned by the snapshots.

use std::ffi::CStr;
use std::fs::File;
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::Stdio;
use std::sync::Mutex;

use crate::common::*;

/// The files with long content the views are run on.
const FILES: [&str; 3] = [
    "fixtures/sample-session.log",
    "tests/corpus/fastmcp/stalled-event-loop.log",
    "fixtures/views/markup-and-escapes.log",
];

/// `ptsname` returns a static buffer: one caller at a time.
static PTSNAME: Mutex<()> = Mutex::new(());

/// A new pseudo-terminal of `cols` columns: its master and its slave.
fn pty(cols: u16) -> (OwnedFd, OwnedFd) {
    // SAFETY: plain libc calls on descriptors this function owns; the name
    // `ptsname` returns is copied before the lock is released.
    unsafe {
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(
            master >= 0,
            "posix_openpt: {}",
            std::io::Error::last_os_error()
        );
        let master = OwnedFd::from_raw_fd(master);
        use std::os::fd::AsRawFd;
        assert_eq!(libc::grantpt(master.as_raw_fd()), 0, "grantpt");
        assert_eq!(libc::unlockpt(master.as_raw_fd()), 0, "unlockpt");
        let name = {
            let _lock = PTSNAME.lock().unwrap_or_else(|e| e.into_inner());
            let name = libc::ptsname(master.as_raw_fd());
            assert!(!name.is_null(), "ptsname");
            CStr::from_ptr(name).to_owned()
        };
        let slave = libc::open(name.as_ptr(), libc::O_RDWR | libc::O_NOCTTY);
        assert!(
            slave >= 0,
            "open {name:?}: {}",
            std::io::Error::last_os_error()
        );
        let slave = OwnedFd::from_raw_fd(slave);
        let size = libc::winsize {
            ws_row: 50,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        assert_eq!(
            libc::ioctl(slave.as_raw_fd(), libc::TIOCSWINSZ, &size),
            0,
            "TIOCSWINSZ"
        );
        (master, slave)
    }
}

/// What `mcpdbg ARGS` writes to a terminal of `cols` columns (stdout and
/// stderr both on it), line ends as `\n`.
fn on_terminal(args: &[&str], cols: u16) -> String {
    let (master, slave) = pty(cols);
    let mut cmd = mcpdbg();
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(slave.try_clone().expect("dup")))
        .stderr(Stdio::from(slave));
    let mut child = cmd.spawn().expect("binary starts");
    // Our copies of the slave go, so that the master reads the end (EOF, or
    // EIO on Linux) once the child has exited.
    drop(cmd);
    let mut master = File::from(master);
    let mut bytes = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        match master.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => bytes.extend_from_slice(&buf[..n]),
        }
    }
    child.wait().expect("binary ends");
    String::from_utf8_lossy(&bytes).replace("\r\n", "\n")
}

/// The display width of a line: ANSI colour sequences stripped, each
/// character one column.
fn columns(line: &str) -> usize {
    let mut n = 0;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // `ESC [ ... m`
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            n += 1;
        }
    }
    n
}

/// Fails with the lines wider than `width`.
fn assert_fits(what: &str, text: &str, width: usize) {
    assert!(text.lines().count() > 1, "{what}: no output:\n{text}");
    let wide: Vec<String> = text
        .lines()
        .filter(|l| columns(l) > width)
        .map(|l| format!("{:4} {l}", columns(l)))
        .collect();
    assert!(
        wide.is_empty(),
        "{what}: {} lines wider than {width}:\n{}",
        wide.len(),
        wide.join("\n")
    );
}

/// Every rule's name, from the catalogue.
fn rule_names() -> Vec<String> {
    let json = json_of(&run(&["rules", "--format", "json"]));
    let list = json.get("rules").unwrap_or(&json);
    list.as_array()
        .expect("a list of rules")
        .iter()
        .map(|r| r["name"].as_str().expect("a name").to_string())
        .collect()
}

/// Every human view, on the files with long content.
fn views() -> Vec<Vec<String>> {
    let mut views: Vec<Vec<&str>> = vec![vec!["rules"]];
    for file in FILES {
        views.push(vec!["check", file]);
        views.push(vec!["timeline", file]);
        views.push(vec!["timeline", "--full", file]);
        views.push(vec!["stats", file]);
    }
    views.push(vec!["stats", FILES[0], FILES[1], FILES[2]]);
    views.push(vec!["diff", FILES[0], FILES[1]]);
    views.push(vec!["diff", FILES[1], FILES[2]]);
    let mut views: Vec<Vec<String>> = views
        .into_iter()
        .map(|v| v.into_iter().map(String::from).collect())
        .collect();
    for rule in rule_names() {
        views.push(vec!["explain".to_string(), rule]);
    }
    views
}

#[test]
fn every_view_fits_an_80_column_terminal() {
    for view in views() {
        let args: Vec<&str> = view.iter().map(String::as_str).collect();
        let text = on_terminal(&args, 80);
        assert_fits(&format!("{args:?} on a terminal"), &text, 80);
    }
}

#[test]
fn every_help_fits_the_terminal() {
    let mut subs = vec![
        "check", "validate", "timeline", "stats", "record", "diff", "replay", "rules", "explain",
        "probe",
    ];
    subs.push("");
    for cols in [60u16, 80] {
        for sub in &subs {
            let mut args: Vec<&str> = sub.split_whitespace().collect();
            args.push("--help");
            let text = on_terminal(&args, cols);
            assert_fits(&format!("{args:?} at {cols}"), &text, usize::from(cols));
        }
    }
}

#[test]
fn width_fits_a_pipe_too() {
    for view in views() {
        let mut args: Vec<&str> = view.iter().map(String::as_str).collect();
        args.insert(1, "--width");
        args.insert(2, "60");
        let out = run(&args);
        let text = String::from_utf8(out.stdout).expect("UTF-8");
        assert_fits(&format!("{args:?}"), &text, 60);
    }
}

#[test]
fn a_terminal_and_its_width_give_the_same_layout() {
    // The terminal's own width and --width through a pipe are one answer.
    for args in [
        vec!["timeline", FILES[0]],
        vec!["stats", FILES[0]],
        vec!["rules"],
    ] {
        let terminal = on_terminal(&args, 80);
        let mut forced = args.clone();
        forced.insert(1, "--width");
        forced.insert(2, "80");
        let piped = String::from_utf8(run(&forced).stdout).expect("UTF-8");
        assert_eq!(terminal, piped, "{args:?}");
    }
}

#[test]
fn the_narrowest_width_still_renders() {
    for view in views() {
        let mut args: Vec<&str> = view.iter().map(String::as_str).collect();
        args.insert(1, "--width");
        args.insert(2, "20");
        let out = run(&args);
        let text = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        // check's exit status is its findings'; the others exit 0 or 1.
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {:?} {stderr}",
            out.status
        );
        // check's findings table keeps a message column of 20; the views
        // made here fit.
        if args[0] != "check" {
            assert_fits(&format!("{args:?}"), &text, 20);
        }
    }
}

#[test]
fn without_a_width_a_pipe_gets_the_fixed_layout() {
    // The snapshots pin the fixed layouts byte for byte; here, only that a
    // pipe does not get a layout fitted to some width.
    for args in [vec!["timeline", FILES[0]], vec!["rules"]] {
        let fixed = String::from_utf8(run(&args).stdout).expect("UTF-8");
        assert!(
            fixed.lines().any(|l| columns(l) > 80),
            "{args:?}: the fixed layout is wider than 80"
        );
    }
}
