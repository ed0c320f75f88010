//! One module per subcommand: each takes its options and writers and
//! returns what the exit status is made of.

pub mod validate;
