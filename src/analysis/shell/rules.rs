//! Per-command rules: what one effective command (after wrapper peeling) does.
//!
//! Input is a [`Cmd`] from [`super::command::peel`] plus the little context the rules need; output
//! is a [`Verdict`]: findings from the one table in `crate::finding`, payloads to analyse one
//! level deeper, a category, and the command's *effects* (network sink, secret read, files it
//! writes, downloads or executes) that the driver combines across commands of a script
//! (pipes into shells, download-then-execute chains, secret read plus network sink).

use super::command::{Cmd, Payload};
use super::model::Redirect;
use crate::finding::Finding;

/// What kind of work a command is, for reuse scopes and the read-only auto-pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    ReadOnly,
    DevBuild,
    DevTest,
    DevFormat,
    SourceControl,
}

/// Facts the driver combines across the commands of one script.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Effects {
    /// Sends data over the network (curl, wget, nc, scp, ssh, iwr, …), in any direction.
    pub network: bool,
    /// Fetches remote content to stdout (`curl URL`, `wget -O- URL`, `iwr URL`): piping it
    /// into an interpreter runs remote code.
    pub downloads_to_stdout: bool,
    /// Files it downloads to (`curl -o f`, `wget -O f`, `iwr -OutFile f`).
    pub downloads_to: Vec<String>,
    /// Reads a credential path or dumps the environment.
    pub reads_secret: bool,
    /// Decodes encoded data to stdout (`base64 -d`, `xxd -r`, `openssl enc -d`, `tr …`).
    pub decodes: bool,
    /// Literal text it prints to stdout (`echo 'x'`, `printf 'x'`, `cat <<EOF`), when known.
    pub prints: Option<String>,
    /// Reads program text from stdin and runs it (a shell or interpreter with no script
    /// argument, `iex`, `python -`, `sh -s`).
    pub runs_stdin: bool,
    /// Files it executes as a program or script (`./x.sh`, `bash x.sh`, `python x.py`,
    /// `source x`).
    pub executes: Vec<String>,
    /// Files it makes executable (`chmod +x f`).
    pub makes_executable: Vec<String>,
}

/// Everything one command contributes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Verdict {
    pub findings: Vec<Finding>,
    pub payloads: Vec<Payload>,
    pub category: Option<Category>,
    /// True only when the command certainly only reads (its category is ReadOnly and nothing
    /// in it writes, deletes, sends or runs anything else).
    pub read_only: bool,
    /// False when the rules could not tell what the command does (e.g. an unknown
    /// subcommand shape that matters) — adds `analysis-incomplete` too.
    pub complete: bool,
    pub effects: Effects,
}

/// Context of one command inside its script.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// Redirections of the simple command this came from.
    pub redirects: &'a [Redirect],
    /// Heredoc / here-string bodies fed to its stdin, if any.
    pub stdin_text: Option<&'a str>,
    /// It receives a pipe from the previous command.
    pub piped_in: bool,
}

/// Applies every rule to one command.
pub fn check(cmd: &Cmd<'_>, ctx: &Context<'_>) -> Verdict {
    let _ = (cmd, ctx);
    Verdict {
        complete: true,
        ..Verdict::default()
    }
}
