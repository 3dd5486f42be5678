//! Semantic analysis of a call's parameters (shell commands in three dialects, Code Mode
//! source, file mutations). Analyzers only ever add findings; the reducer may only raise the
//! policy decision. (Work in progress: the lexers land first; wiring into the gate follows.)

pub mod shell;
