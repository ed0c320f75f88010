//! Who wrote what: the direction of a line ([`Dir`]) and the side that sent
//! a message ([`Side`]). Vocabulary shared by every stage; no state.

/// Who wrote a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dir {
    /// The client wrote it to the server's stdin.
    ClientToServer,
    /// The server wrote it to its stdout.
    ServerToClient,
    /// The server wrote it to its stderr.
    Stderr,
    /// The format does not say (a plain `tee` of the pipe).
    Unknown,
}

impl Dir {
    /// The wire name used in the JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Dir::ClientToServer => "client-to-server",
            Dir::ServerToClient => "server-to-client",
            Dir::Stderr => "server-stderr",
            Dir::Unknown => "unknown",
        }
    }

    /// The side that wrote the line, in prose.
    pub fn writer(self) -> &'static str {
        match self {
            Dir::ClientToServer => "client",
            Dir::ServerToClient | Dir::Stderr => "server",
            Dir::Unknown => "unknown side",
        }
    }

    /// The direction as an index into per-direction arrays of four.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The direction an answer travels: the opposite of a message's
    /// (stderr and unknown stay what they are).
    pub fn reverse(self) -> Dir {
        match self {
            Dir::ClientToServer => Dir::ServerToClient,
            Dir::ServerToClient => Dir::ClientToServer,
            other => other,
        }
    }

    /// A short arrow for tables.
    pub fn arrow(self) -> &'static str {
        match self {
            Dir::ClientToServer => "C->S",
            Dir::ServerToClient => "S->C",
            Dir::Stderr => "S!",
            Dir::Unknown => "?",
        }
    }
}

/// The sender of a request: each side has its own id namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Client,
    Server,
    /// A plain log where the sender could not be inferred.
    Unknown,
}

impl Side {
    /// The side that wrote a line (stderr is the server's).
    pub fn of(dir: Dir) -> Side {
        match dir {
            Dir::ClientToServer => Side::Client,
            Dir::ServerToClient | Dir::Stderr => Side::Server,
            Dir::Unknown => Side::Unknown,
        }
    }

    /// The direction of what this side sends.
    pub fn dir(self) -> Dir {
        match self {
            Side::Client => Dir::ClientToServer,
            Side::Server => Dir::ServerToClient,
            Side::Unknown => Dir::Unknown,
        }
    }

    pub fn other(self) -> Side {
        match self {
            Side::Client => Side::Server,
            Side::Server => Side::Client,
            Side::Unknown => Side::Unknown,
        }
    }

    /// The side as an index into per-side arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Side::Client => "client",
            Side::Server => "server",
            Side::Unknown => "unknown side",
        }
    }
}
