//! `flatstream --generate`: shell completions and the man page, written from the same clap
//! command as `--help` (as `rg --generate` does), so that they never disagree with it.

use crate::failure::{Failure, Status};
use crate::options::{Cli, Generate};
use clap::CommandFactory;
use clap_complete::Shell;
use std::io::Write;

/// Prints what `kind` names on stdout.
pub(crate) fn print(kind: Generate) -> Result<Status, Failure> {
    let mut cmd = Cli::command();
    let mut text = Vec::new();
    let shell = match kind {
        Generate::CompleteBash => Some(Shell::Bash),
        Generate::CompleteZsh => Some(Shell::Zsh),
        Generate::CompleteFish => Some(Shell::Fish),
        Generate::CompletePowershell => Some(Shell::PowerShell),
        Generate::Man => None,
    };
    match shell {
        Some(shell) => clap_complete::generate(shell, &mut cmd, "flatstream", &mut text),
        None => {
            // One page for the command and its subcommands, as `man flatstream` shows.
            cmd.build();
            man(&cmd, &mut text).map_err(Failure::stdout)?;
        }
    }
    let mut out = std::io::stdout().lock();
    out.write_all(&text).map_err(Failure::stdout)?;
    out.flush().map_err(Failure::stdout)?;
    Ok(Status::Ok)
}

/// The man page: the command's own page, then a section per subcommand (its synopsis,
/// description, options and notes as subsections), so that `man flatstream` holds it all. The
/// notes (each command's after-help: conventions, exit statuses) are laid out by hand in
/// `--help`, and are printed as they are (no fill).
fn man(cmd: &clap::Command, out: &mut Vec<u8>) -> std::io::Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut page)?;
    copy_roff(&page, None, out)?;
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("flatstream {}", sub.get_name());
        let page = clap_mangen::Man::new(sub.clone().bin_name(name.clone()));
        let mut text = Vec::new();
        page.render_synopsis_section(&mut text)?;
        page.render_description_section(&mut text)?;
        page.render_options_section(&mut text)?;
        if sub.get_after_help().is_some() {
            page.render_extra_section(&mut text)?;
        }
        writeln!(out, ".SH \"{}\"", name.to_uppercase())?;
        copy_roff(&text, Some(".SS"), out)?;
    }
    Ok(())
}

/// Copies clap_mangen's roff to `out`: its after-help section (which it calls EXTRA) without
/// fill, the string definitions it repeats before each section left out after the first page,
/// and with `subsection`, its section headings as subsections.
fn copy_roff(roff: &[u8], subsection: Option<&str>, out: &mut Vec<u8>) -> std::io::Result<()> {
    let mut verbatim = false;
    for line in String::from_utf8_lossy(roff).lines() {
        if subsection.is_some() && (line.starts_with(".ie \\n(.g") || line.starts_with(".el .ds")) {
            continue;
        }
        if let Some(heading) = line.strip_prefix(".SH ") {
            if verbatim {
                writeln!(out, ".fi")?;
                verbatim = false;
            }
            let heading = match (heading, subsection) {
                ("EXTRA", None) => "\"CONVENTIONS AND EXIT STATUS\"",
                ("EXTRA", Some(_)) => "NOTES",
                (heading, _) => heading,
            };
            writeln!(out, "{} {heading}", subsection.unwrap_or(".SH"))?;
            if line == ".SH EXTRA" {
                writeln!(out, ".nf")?;
                verbatim = true;
            }
            continue;
        }
        writeln!(out, "{line}")?;
    }
    if verbatim {
        writeln!(out, ".fi")?;
    }
    Ok(())
}
