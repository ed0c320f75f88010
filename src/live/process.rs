//! A server that `probe` and `replay` start and stop: its own process group
//! with piped stdio, and that group signalled when it does not exit.

use std::ffi::OsString;
use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};

use super::transcript::Transcript;

/// The server command as given: its program and arguments, and the line
/// the transcript's first event shows. `Err` when it is empty.
pub(crate) fn command_line(command: &[OsString]) -> io::Result<(&OsString, &[OsString], String)> {
    let Some((program, args)) = command.split_first() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "no server command",
        ));
    };
    let shown: Vec<String> = command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    Ok((program, args, shown.join(" ")))
}

/// Starts `program` with `args` in a process group of its own, its stdin,
/// stdout and stderr piped. When it cannot start, the transcript says so
/// (`WHO: cannot start PROGRAM: ERROR`) and the error carries those words.
pub(crate) fn spawn(
    program: &OsString,
    args: &[OsString],
    transcript: &mut Transcript,
    who: &str,
) -> io::Result<Child> {
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn();
    child.or_else(|e| {
        let text = format!("cannot start {}: {e}", program.to_string_lossy());
        transcript.event(&format!("{who}: {text}"))?;
        transcript.flush()?;
        Err(io::Error::new(e.kind(), text))
    })
}

/// Sends `signal` to the process group [`spawn`] made for `child`: the
/// server and whatever it started.
pub(crate) fn signal_group(child: &Child, signal: i32) {
    let group = child.id() as libc::pid_t;
    // SAFETY: kill(2) on the process group mcpdbg created for this child;
    // it takes plain integers and touches no memory of ours.
    unsafe { libc::kill(-group, signal) };
}
