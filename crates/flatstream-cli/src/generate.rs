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
/// description, options and notes as subsections), so that `man flatstream` holds it all.
fn man(cmd: &clap::Command, out: &mut Vec<u8>) -> std::io::Result<()> {
    clap_mangen::Man::new(cmd.clone()).render(out)?;
    for sub in cmd.get_subcommands() {
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
        for line in String::from_utf8_lossy(&text).lines() {
            match line.strip_prefix(".SH ") {
                Some("EXTRA") => writeln!(out, ".SS NOTES")?,
                Some(heading) => writeln!(out, ".SS {heading}")?,
                None => writeln!(out, "{line}")?,
            }
        }
    }
    Ok(())
}
