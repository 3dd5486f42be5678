//! posix lexer (in progress).
