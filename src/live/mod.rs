//! What runs live and reads the clock: the recorder (`record`), replaying a
//! session against a server (`replay`), serving a recorded server to a live
//! client (`mock`), following a growing file (`follow`)
//! and the progress line of a long check and the time of each file's check
//! (`progress`).

pub mod follow;
pub mod mock;
mod output;
pub mod probe;
mod process;
pub mod progress;
pub mod record;
pub mod replay;
mod transcript;

/// The name of a signal number, for events and messages.
pub(crate) fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        libc::SIGHUP => "SIGHUP",
        libc::SIGKILL => "SIGKILL",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGPIPE => "SIGPIPE",
        _ => "signal",
    }
}
