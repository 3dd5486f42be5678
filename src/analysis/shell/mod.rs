//! Shell command analysis: one lexer per dialect (POSIX sh, PowerShell, CMD) producing the
//! shared [`model`], analysed under all three because the host does not say which shell runs.

pub mod analyze;
pub mod args;
pub mod cmd;
pub mod command;
pub mod model;
pub mod posix;
pub mod pwsh;
pub mod rules;
pub mod vars;
