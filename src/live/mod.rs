//! What runs live and reads the clock: the recorder (`record`), replaying a
//! session against a server (`replay`), following a growing file (`follow`)
//! and the progress line of a long check (`progress`).

pub mod follow;
pub mod progress;
pub mod record;
pub mod replay;
