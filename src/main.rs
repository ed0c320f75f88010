//! The command-line adapter: parse the arguments (`cli`), run the command
//! (`mcpdbg::cmd`), map the outcome to an exit status. No analysis happens
//! here.

use std::io;
use std::process::ExitCode;

use clap::Parser;

use mcpdbg::cmd;
use mcpdbg::exit::ExitStatus;

mod cli;

use cli::{Cli, Command, Usage};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let hint = cli::server_command_hint(&e, std::env::args_os());
            let _ = e.print();
            if let Some(hint) = hint {
                mcpdbg::say!("{hint}");
            }
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    let result = match cli.command {
        Command::Check(args) => args.into_check().map(cmd::check::run),
        Command::Validate(args) => {
            let (message, options, output) = args.into_validate();
            Ok(cmd::validate::run(message.as_deref(), &options, &output))
        }
        Command::Timeline(args) => args.into_timeline().map(cmd::timeline::run),
        Command::Stats(args) => Ok(cmd::stats::run(args.into_stats())),
        Command::Record(args) => {
            let (options, check) = args.into_record();
            Ok(cmd::record::run(&options, check))
        }
        Command::Diff(args) => Ok(cmd::diff::diff(args.into_diff())),
        Command::Replay(args) => Ok(cmd::diff::replay(args.into_replay())),
        Command::Probe(args) => args.into_probe().map(|(options, baseline, check, output)| {
            cmd::probe::run(&options, baseline.as_ref(), &check, &output)
        }),
        Command::Rules(args) => Ok(cmd::catalogue::rules(args.format(), args.width())),
        Command::Explain(args) => args
            .into_explain()
            .map(|(rule, format, width)| cmd::catalogue::explain(rule, format, width)),
    };
    ExitCode::from(status(result).code())
}

/// The exit status of a command's outcome: a usage error and a failed read
/// or write are 2 (said on stderr), a closed standard output (`| head`) is 0.
fn status(result: Result<io::Result<ExitStatus>, Usage>) -> ExitStatus {
    match result {
        Ok(Ok(status)) => status,
        Ok(Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitStatus::Clean,
        Ok(Err(e)) => {
            // The message may name a file or quote the log: shown escaped.
            mcpdbg::say!("mcpdbg: {e}");
            ExitStatus::Error
        }
        Err(Usage(message)) => {
            mcpdbg::say!("{message}");
            ExitStatus::Error
        }
    }
}
