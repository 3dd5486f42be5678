//! The owner's exec lease command: `/human_gate_exec <1–60>m | status | off`.
//!
//! Only the argument grammar lives here; who may run it is checked twice: the shim registers
//! the command with `requiredScopes: ["operator.admin"]` and passes `senderIsOwner`, and the
//! core refuses anything but `senderIsOwner: true`. The lease covers ordinary `exec` only
//! (see `session/mod.rs`); block rules, cooldowns, critical findings, self-protection and
//! Code Mode stay enforced.

/// Longest lease, in minutes.
pub const MAX_MINUTES: u64 = 60;

/// What the command asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Status,
    Off,
    /// A lease of this many minutes (1–60).
    Minutes(u64),
}

pub const USAGE: &str = "usage: /human_gate_exec <1-60>m | status | off";

/// Parses the text after the command name.
pub fn parse(args: &str) -> Result<Command, String> {
    let a = args.trim().to_ascii_lowercase();
    match a.as_str() {
        "" | "status" => return Ok(Command::Status),
        "off" => return Ok(Command::Off),
        _ => {}
    }
    let digits = a.strip_suffix('m').unwrap_or("");
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "`{}` is not a duration; {USAGE}",
            crate::call::short(args.trim())
        ));
    }
    match digits.parse::<u64>() {
        Ok(n) if (1..=MAX_MINUTES).contains(&n) => Ok(Command::Minutes(n)),
        _ => Err(format!("a lease lasts 1 to 60 minutes; {USAGE}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar() {
        assert_eq!(parse("5m"), Ok(Command::Minutes(5)));
        assert_eq!(parse(" 60M "), Ok(Command::Minutes(60)));
        assert_eq!(parse("1m"), Ok(Command::Minutes(1)));
        assert_eq!(parse(""), Ok(Command::Status));
        assert_eq!(parse("status"), Ok(Command::Status));
        assert_eq!(parse("OFF"), Ok(Command::Off));
        for bad in ["0m", "61m", "5", "m", "5h", "-5m", "1.5m", "100m", "5m now"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
