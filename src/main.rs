//! The command-line adapter: parse the arguments (`cli`), run the command
//! (`mcpdbg::cmd`), map the outcome to an exit status. No analysis happens
//! here.

use std::io;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use mcpdbg::cmd;
use mcpdbg::exit::ExitStatus;

mod cli;
mod config;
mod values;

use cli::{Cli, Command, Usage};

fn main() -> ExitCode {
    let parsed = Cli::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    let (mut cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(e) => {
            let hint = cli::server_command_hint(&e, std::env::args_os());
            let _ = e.print();
            if let Some(hint) = hint {
                mcpdbg::say!("{hint}");
            }
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    if let Some(args) = cli::config_args(&cli.command) {
        let start = std::env::current_dir().unwrap_or_default();
        let loaded = match config::load(args.config.as_deref(), args.no_config, &start) {
            Ok(loaded) => loaded,
            Err(message) => {
                mcpdbg::say!("mcpdbg: {message}");
                return ExitCode::from(ExitStatus::Error.code());
            }
        };
        cli::configure(&mut cli.command, &matches, &loaded.settings);
        if let Command::Check(args) = &cli.command {
            if args.show_settings() {
                // Paths are shown escaped, as everywhere on the terminal.
                let text = args.settings_text(&matches, &loaded);
                for line in text.lines() {
                    println!("{}", mcpdbg::text::escape_control(line));
                }
                return ExitCode::SUCCESS;
            }
        }
    }
    let result = match cli.command {
        Command::Check(args) => args.into_check().map(cmd::check::run),
        Command::Validate(args) => args.into_validate().map(|(message, options, output)| {
            cmd::validate::run(message.as_deref(), &options, &output)
        }),
        Command::Timeline(args) => args.into_timeline().map(cmd::timeline::run),
        Command::Stats(args) => Ok(cmd::stats::run(args.into_stats())),
        Command::Record(args) => {
            let (options, check) = args.into_record();
            Ok(cmd::record::run(&options, check))
        }
        Command::Diff(args) => Ok(cmd::diff::diff(args.into_diff())),
        Command::Replay(args) => args.into_replay().map(cmd::diff::replay),
        Command::Mock(args) => Ok(cmd::mock::run(args.into_mock())),
        Command::Probe(args) => {
            args.into_probe()
                .map(|(options, baseline, cost, check, output)| {
                    cmd::probe::run(&options, baseline.as_ref(), &cost, &check, &output)
                })
        }
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
