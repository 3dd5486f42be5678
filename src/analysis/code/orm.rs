//! Database destruction through query builders, ORMs and database clients' own methods (the
//! SQL they are given is [`super::database_text`]'s concern): what `DROP`, `TRUNCATE`,
//! `DELETE`/`UPDATE` without `WHERE` and `FLUSHALL` are to the shell's SQL rule.
//!
//! - **always** (as a method, whoever the receiver): knex/TypeORM/Sequelize/MikroORM schema
//!   drops (`dropTable`, `dropTableIfExists`, `dropSchema…`, `dropAllTables`,
//!   `dropAllSchemas`, `dropDatabase`, `dropCollection`, `clearDatabase`, `clearTable`,
//!   `refreshDatabase`) and Redis `flushall`/`flushdb` in every spelling: no other meaning of
//!   these names is in use;
//! - **by shape**, where the name alone is common:
//!   - `deleteMany()` / `deleteMany({})` / `deleteMany({where: {}})` (Prisma, MongoDB,
//!     Mongoose) and `updateMany` with no filter (`{data}` without `where`, or `{}` first) —
//!     a filter that is an object with keys, or a value only known at run time, is scoped;
//!   - `drop()` with no argument, an options object or a callback (Sequelize, MongoDB
//!     collections): the other `drop`s in use — lodash `_.drop(array, n)`, iterator helpers
//!     and Node streams `drop(n)` — always take a count, and lodash's receiver is excluded;
//!   - `truncate()` with no argument or an options object (knex, Sequelize), never on `fs`
//!     (a file truncation is a write) or lodash (`_.truncate(text, opts)`);
//!   - `del()` / `delete()` with no argument closing a knex chain that names a table
//!     (`knex('t')…`, `….from('t')…`, `….table('t')…`) with no `where…` step; a scoped
//!     delete is left to the tool kind's approval;
//!   - `sync({force: true})` (Sequelize), `synchronize(true)` (TypeORM drops first),
//!     `destroy({truncate: true})` / `destroy({where: {}})` (Sequelize; `socket.destroy()`,
//!     `row.destroy()` and `dataSource.destroy()` are no such shape), `remove({})`,
//!     `deleteAll()` / `destroyAll()` (LoopBack, Waterline) with no filter,
//!     `bulkDelete('t')` / `bulkDelete('t', null|{})`;
//!   - TypeORM `getRepository(E).clear()` (or a receiver named `…repository`/`…repo`):
//!     `clear` truncates there, while `map.clear()` is no database;
//!   - `new DataSource({dropSchema: true})` / `createConnection({dropSchema: true})`;
//!   - Mongo commands `command({dropDatabase: 1})` / `{drop: 'c'}` (also `runCommand`,
//!     Prisma `$runCommandRaw`), Redis commands sent raw (`sendCommand(['FLUSHALL'])`,
//!     `call('flushdb')`, `send_command`).
//!
//! The check runs only for calls whose name is in [`METHODS`]; each looks at a bounded
//! number of tokens around the call.

use super::{short, Code, Out, Recv, WINDOW};
use crate::finding;

/// Call names this module looks at (a cheap test before anything else).
pub(super) const METHODS: [&str; 43] = [
    "dropTable",
    "dropTableIfExists",
    "dropSchema",
    "dropSchemaIfExists",
    "dropAllTables",
    "dropAllSchemas",
    "dropDatabase",
    "dropCollection",
    "clearDatabase",
    "clearTable",
    "refreshDatabase",
    "flushall",
    "flushdb",
    "flushAll",
    "flushDb",
    "FLUSHALL",
    "FLUSHDB",
    "deleteMany",
    "updateMany",
    "deleteAll",
    "destroyAll",
    "drop",
    "truncate",
    "del",
    "delete",
    "sync",
    "synchronize",
    "destroy",
    "clear",
    "remove",
    "bulkDelete",
    "command",
    "runCommand",
    "$runCommandRaw",
    "sendCommand",
    "send_command",
    "call",
    "DataSource",
    "createConnection",
    "executeCommand",
    "rawCommand",
    "deleteFrom",
    "updateTable",
];

/// The member chain a method call at token `i` closes: its head token and the method names
/// on the way (nearest first, the head's name last when it is a name).
struct Chain<'c> {
    head: usize,
    names: Vec<&'c str>,
}

fn chain<'c>(code: &'c Code, i: usize) -> Chain<'c> {
    let mut k = i;
    let mut names = Vec::new();
    for _ in 0..WINDOW {
        if k < 2 || !code.prev_punct(k, ".") {
            break;
        }
        let mut p = k - 2;
        let mut groups = 0;
        while groups < WINDOW && (code.punct(p, ")") || code.punct(p, "]")) {
            match code.open.at(p).and_then(|o| o.checked_sub(1)) {
                Some(q) => p = q,
                None => break,
            }
            groups += 1;
        }
        match code.ident(p) {
            Some(n) => names.push(n),
            None => {
                k = p;
                break;
            }
        }
        k = p;
    }
    Chain { head: k, names }
}

/// The method names called after the call whose `(` is at `open` (`.where(…).execute()`).
fn forward<'c>(code: &'c Code, open: usize) -> Vec<&'c str> {
    let mut names = Vec::new();
    let mut k = code.group_end(open) + 1;
    for _ in 0..WINDOW {
        if !code.punct(k, ".") {
            break;
        }
        let Some(n) = code.ident(k + 1) else { break };
        names.push(n);
        k += 2;
        if code.punct(k, "(") {
            k = code.group_end(k) + 1;
        }
    }
    names
}

fn scoped(names: &[&str]) -> bool {
    names
        .iter()
        .any(|n| n.to_ascii_lowercase().contains("where"))
}

/// The argument is an object literal with no entries (`{}`).
fn empty_object(code: &Code, r: (usize, usize)) -> bool {
    code.is_group(r, "{") && r.1 == r.0 + 2
}

/// A value that is `true` when read as a flag (anything but `false`, `0`, `null`,
/// `undefined`).
fn truthy(code: &Code, (a, b): (usize, usize)) -> bool {
    !(b == a + 1
        && code
            .tok(a)
            .is_some_and(|t| matches!(&*t.text, "false" | "0" | "null" | "undefined")))
}

/// An object literal whose `where` is absent, empty, `undefined` or `null` (and no spread
/// could bring one in).
fn no_where(code: &Code, r: (usize, usize)) -> bool {
    match code.key(r, "where") {
        Ok(v) => empty_object(code, v) || !truthy(code, v),
        Err(spread) => !spread && code.is_group(r, "{"),
    }
}

/// The first text of a command given as a string or an array (`'FLUSHALL'`, `['FLUSHALL']`).
fn command_word(code: &Code, r: (usize, usize)) -> Option<String> {
    let r = if code.is_group(r, "[") {
        *code.parts(r.0).first()?
    } else {
        r
    };
    code.literal(r)
}

/// Database destruction by the method `name` called at token `i` (its `(` at `i + 1`).
pub(super) fn destruction(code: &Code, out: &mut Out, i: usize, name: &str) {
    let method = code.prev_punct(i, ".");
    let recv = i.checked_sub(2).and_then(|r| code.ident(r));
    let args = code.parts(i + 1);
    let first = args.first().copied();
    let why: Option<&str> = match name {
        "dropTable" | "dropTableIfExists" | "dropSchema" | "dropSchemaIfExists"
        | "dropAllTables" | "dropAllSchemas" | "dropDatabase" | "dropCollection"
        | "clearDatabase" | "clearTable" | "refreshDatabase"
            if method =>
        {
            Some("drops or empties database objects")
        }
        "flushall" | "flushdb" | "flushAll" | "flushDb" | "FLUSHALL" | "FLUSHDB" if method => {
            Some("flushes every key")
        }
        "deleteMany" if method => match first {
            None => Some("deletes every record (no filter)"),
            Some(r) if empty_object(code, r) || no_where_prisma(code, r) => {
                Some("deletes every record (an empty filter)")
            }
            _ => None,
        },
        "updateMany" if method => match first {
            Some(r)
                if empty_object(code, r) || (code.key(r, "data").is_ok() && no_where(code, r)) =>
            {
                Some("overwrites every record (no filter)")
            }
            _ => None,
        },
        "deleteAll" | "destroyAll" if method => match first {
            None => Some("deletes every record (no filter)"),
            Some(r) if empty_object(code, r) => Some("deletes every record (an empty filter)"),
            _ => None,
        },
        "drop" if method && !matches!(recv, Some("_" | "lodash" | "R" | "fp")) => match first {
            None => Some("drops a table or collection"),
            Some(r) if code.is_group(r, "{") || super::is_callback(code, r) => {
                Some("drops a table or collection")
            }
            _ => None,
        },
        "truncate"
            if method
                && !matches!(recv, Some("_" | "lodash"))
                && !matches!(
                    super::receiver(code, i),
                    Recv::Module(super::Module::Fs | super::Module::FsExtra | super::Module::Deno)
                ) =>
        {
            match first {
                None => Some("truncates a table"),
                Some(r) if code.is_group(r, "{") => Some("truncates a table"),
                _ => None,
            }
        }
        // Kysely: `db.deleteFrom('t').execute()`, `db.updateTable('t').set(…).execute()`
        "deleteFrom" | "updateTable" if method => {
            let after = forward(code, i + 1);
            let runs = after.iter().any(|n| n.starts_with("execute"));
            (runs && !scoped(&after) && !scoped(&chain(code, i).names)).then_some(
                if name == "deleteFrom" {
                    "deletes every row of a table (no `where`)"
                } else {
                    "overwrites every row of a table (no `where`)"
                },
            )
        }
        "del" | "delete" if method && args.is_empty() => {
            let c = chain(code, i);
            let after = forward(code, i + 1);
            let head_table = code.punct(c.head + 1, "(")
                && code.ident(c.head).is_some()
                && code
                    .parts(c.head + 1)
                    .first()
                    .is_some_and(|&r| code.literal(r).is_some());
            let table = head_table
                || c.names
                    .iter()
                    .chain(after.iter())
                    .any(|n| matches!(*n, "from" | "table" | "into"));
            (table && !scoped(&c.names) && !scoped(&after))
                .then_some("deletes every row of a table (no `where`)")
        }
        "sync" if method => first
            .and_then(|r| code.key(r, "force").ok())
            .filter(|&v| truthy(code, v))
            .map(|_| "drops and recreates tables (`force`)"),
        "synchronize" if method => first
            .filter(|&(a, b)| b == a + 1 && code.is_ident(a, "true"))
            .map(|_| "drops the schema before synchronizing"),
        "destroy" if method => match first {
            Some(r) if code.is_group(r, "{") => {
                let truncate = code.key(r, "truncate").is_ok_and(|v| truthy(code, v));
                let all = code.key(r, "where").is_ok_and(|v| empty_object(code, v));
                (truncate || all).then_some("deletes every row of a table")
            }
            _ => None,
        },
        "remove" if method => first
            .filter(|&r| empty_object(code, r))
            .map(|_| "deletes every document (an empty filter)"),
        "bulkDelete" if method => match args.get(1) {
            None => Some("deletes every row of a table (no filter)"),
            Some(&r) if empty_object(code, r) || !truthy(code, r) => {
                Some("deletes every row of a table (no filter)")
            }
            _ => None,
        },
        // TypeORM `manager.clear(User)` truncates the entity's table.
        "clear"
            if method
                && args.len() == 1
                && recv.is_some_and(|r| r.to_ascii_lowercase().ends_with("manager")) =>
        {
            Some("truncates a table (an entity manager's `clear`)")
        }
        "clear" if method && args.is_empty() => {
            let c = chain(code, i);
            let repo = c.names.iter().any(|n| {
                matches!(
                    *n,
                    "getRepository" | "getTreeRepository" | "getMongoRepository"
                )
            }) || recv.is_some_and(|r| {
                let r = r.to_ascii_lowercase();
                r.ends_with("repository") || r.ends_with("repo")
            });
            repo.then_some("truncates a table (a repository's `clear`)")
        }
        "command" | "runCommand" | "$runCommandRaw" | "executeCommand" | "rawCommand"
        | "sendCommand" | "send_command" | "call"
            if method =>
        {
            let Some(r) = first else { return };
            let mongo = code.is_group(r, "{")
                && (code.key(r, "dropDatabase").is_ok() || code.key(r, "drop").is_ok());
            let redis = command_word(code, r).is_some_and(|w| {
                matches!(
                    w.trim().to_ascii_uppercase().as_str(),
                    "FLUSHALL" | "FLUSHDB"
                )
            });
            if mongo {
                Some("drops a database or collection")
            } else if redis {
                Some("flushes every key")
            } else {
                None
            }
        }
        "DataSource" | "createConnection" => first
            .and_then(|r| code.key(r, "dropSchema").ok())
            .filter(|&v| truthy(code, v))
            .map(|_| "drops the schema when it connects (`dropSchema`)"),
        _ => None,
    };
    if let Some(why) = why {
        let shown = match recv.filter(|_| method) {
            Some(r) => format!("`{}.{}`", short(r), short(name)),
            None => format!("`{}`", short(name)),
        };
        out.add(&finding::DATABASE_DESTRUCTION, format!("{shown} {why}"));
    }
}

/// Prisma's `{where: {}}` (or `where` empty/absent with no other filter key): a `deleteMany`
/// argument that filters nothing. A MongoDB filter object with keys filters.
fn no_where_prisma(code: &Code, r: (usize, usize)) -> bool {
    code.key(r, "where").is_ok() && no_where(code, r)
}
