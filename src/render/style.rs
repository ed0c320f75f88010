//! How human output should look: what every human renderer is told.

/// How human output should look.
#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    pub color: bool,
    /// The columns the tables fit in; `None`: the fixed layout (pipes,
    /// files, snapshots).
    pub width: Option<usize>,
}
