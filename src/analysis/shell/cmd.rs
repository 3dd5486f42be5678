//! cmd lexer (in progress).
