//! The exit status of a command: what `main` turns into the process's.

/// How a command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// 0: nothing at or above `--fail-on`, no difference, the output written.
    Clean,
    /// 1: findings at or above `--fail-on`, or the sessions differ.
    Findings,
    /// 2: a usage error, or an input that could not be read.
    Error,
    /// The status of a server that `record` ran (its exit code, or 128 + N
    /// for signal N), or of a start failure (127).
    Code(u8),
}

impl ExitStatus {
    /// The process's exit code.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Clean => 0,
            ExitStatus::Findings => 1,
            ExitStatus::Error => 2,
            ExitStatus::Code(n) => n,
        }
    }
}
