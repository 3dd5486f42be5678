//! pwsh lexer (in progress).
