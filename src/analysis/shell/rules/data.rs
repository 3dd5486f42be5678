//! Databases: SQL clients given destructive SQL (`DROP TABLE|DATABASE|SCHEMA|INDEX|VIEW`,
//! `TRUNCATE`, `DELETE`/`UPDATE` without `WHERE`, `ALTER … DROP`) through their command
//! options, positional SQL or stdin (heredoc/here-string), `dropdb`, `mysqladmin drop`,
//! `redis-cli FLUSHALL|FLUSHDB` (also through `--cluster call` and `EVAL` scripts), `mongosh
//! --eval` with `dropDatabase`/`.drop()`, restores that drop first (`mongorestore --drop`,
//! `pg_restore --clean -d …`), and
//! framework/ORM resets (`rails db:drop`, `prisma migrate reset`, `manage.py flush`,
//! `artisan migrate:fresh`, `flyway clean`, …) → `database-destruction`.
//!
//! The SQL is scanned only where it is SQL: `grep 'DROP TABLE' file` is data. String literals
//! and comments inside the SQL are skipped; a query whose literals make destructive SQL
//! (`SELECT 'DROP TABLE ' || tablename …`) prints that SQL, so a client it is piped into is
//! judged on it.

use super::{parse, shown, Call, Out};
use crate::analysis::shell::command::Cmd;
use crate::analysis::shell::model::Word;
use crate::finding;

pub(super) fn apply(c: &Call<'_, '_>, out: &mut Out) {
    let mut sql: Vec<String> = Vec::new();
    let mut reads_stdin = false;
    match c.prog {
        "psql" => {
            let p = parse(
                c.args,
                "cfdhpUvPTFRLoS",
                &[
                    "command", "file", "dbname", "host", "port", "username", "variable", "set",
                    "output", "log-file",
                ],
            );
            sql.extend(p.values("c").chain(p.values("command")).map(str::to_owned));
            if let Some(f) = p.value("f").or_else(|| p.value("file")) {
                sql_file(c, out, f);
            }
            reads_stdin = sql.is_empty();
        }
        "mysql" | "mariadb" => {
            // `-p` asks for the password (never takes the next word); `-pSECRET` is glued.
            let args: Vec<&Word> = c
                .args
                .iter()
                .filter(|w| !(w.text.starts_with("-p") || w.text == "--password"))
                .copied()
                .collect();
            let p = parse(
                &args,
                "euhPDSo",
                &[
                    "execute", "user", "host", "port", "database", "socket", "password",
                ],
            );
            sql.extend(p.values("e").chain(p.values("execute")).map(str::to_owned));
            reads_stdin = sql.is_empty();
        }
        "sqlite3" | "sqlite" | "duckdb" | "litecli" => {
            let p = parse(
                c.args,
                "c",
                &["cmd", "init", "separator", "nullvalue", "newline"],
            );
            sql.extend(p.values("cmd").chain(p.values("c")).map(str::to_owned));
            sql.extend(p.pos.iter().skip(1).map(|w| w.text.clone()));
            if let Some(f) = p.value("init") {
                sql_file(c, out, f);
            }
            reads_stdin = sql.is_empty();
        }
        "sqlcmd" | "osql" | "isql" => {
            let p = parse(c.args, "QqiSUPdo", &[]);
            sql.extend(p.values("Q").chain(p.values("q")).map(str::to_owned));
            if let Some(f) = p.value("i") {
                sql_file(c, out, f);
            }
            reads_stdin = sql.is_empty();
        }
        "clickhouse-client" | "clickhouse" => {
            let p = parse(
                c.args,
                "qhudp",
                &["query", "host", "user", "database", "password", "port"],
            );
            sql.extend(p.values("q").chain(p.values("query")).map(str::to_owned));
            reads_stdin = sql.is_empty();
        }
        "cockroach" | "cqlsh" | "snowsql" | "influx" | "usql" | "pgcli" | "mycli" | "trino"
        | "presto" => {
            let p = parse(c.args, "eqfu", &["execute", "query", "file", "url"]);
            if let Some(f) = p.value("f").or_else(|| p.value("file")) {
                sql_file(c, out, f);
            }
            sql.extend(
                p.values("e")
                    .chain(p.values("execute"))
                    .chain(p.values("q"))
                    .chain(p.values("query"))
                    .map(str::to_owned),
            );
            for w in c.args.windows(2) {
                if let [a, b] = w {
                    if a.text == "-execute" {
                        sql.push(b.text.clone());
                    }
                }
            }
            reads_stdin = sql.is_empty();
        }
        "dropdb" => destroy(out, "`dropdb` deletes a database".to_owned()),
        // Restores that first drop what is there: `mongorestore --drop`, `pg_restore --clean`
        // into a database (without `-d` it only prints a script).
        "mongorestore" if c.args.iter().any(|w| w.text == "--drop") => destroy(
            out,
            "`mongorestore --drop` drops each collection before restoring".to_owned(),
        ),
        "pg_restore" if pg_restore_cleans(c.args) => destroy(
            out,
            "`pg_restore --clean` drops the database's objects before restoring".to_owned(),
        ),
        "mysqladmin" if c.args.iter().any(|w| w.text.eq_ignore_ascii_case("drop")) => {
            destroy(out, "`mysqladmin drop` deletes a database".to_owned());
        }
        "etcdctl" => {
            // `etcdctl del "" --prefix`, `del --from-key ""`: every key of the store.
            let p = parse(
                c.args,
                "w",
                &[
                    "endpoints",
                    "cacert",
                    "cert",
                    "key",
                    "user",
                    "password",
                    "command-timeout",
                    "dial-timeout",
                    "write-out",
                    "range-end",
                ],
            );
            let del = p.pos.first().is_some_and(|w| w.text == "del");
            let whole = p
                .pos
                .get(1)
                .is_none_or(|k| matches!(k.text.as_str(), "" | "/"));
            if del && whole && (p.has("prefix") || p.has("from-key")) {
                destroy(
                    out,
                    "`etcdctl del` on every key empties the store".to_owned(),
                );
            }
        }
        "redis-cli" | "valkey-cli" | "keydb-cli" => {
            // The redis command is the first operand (`redis-cli ECHO FLUSHALL` only echoes);
            // on stdin, the first word of each line.
            let flush = |t: &str| {
                let u = t.trim_matches(|c: char| c == '"' || c == '\'');
                u.eq_ignore_ascii_case("FLUSHALL") || u.eq_ignore_ascii_case("FLUSHDB")
            };
            let p = parse(
                c.args,
                "hpsaunridDI",
                &[
                    "user",
                    "pass",
                    "askpass",
                    "cacert",
                    "cacertdir",
                    "cert",
                    "key",
                    "sni",
                    "eval",
                    "pattern",
                    "count",
                    "quoted-pattern",
                    "rdb",
                    "functions-rdb",
                    "memkeys-samples",
                    "tls-ciphers",
                    "tls-ciphersuites",
                ],
            );
            let first = p.pos.first().map(|w| w.text.as_str());
            let stdin_flush = c.ctx.stdin_text.is_some_and(|t| {
                t.lines()
                    .filter_map(|l| l.split_whitespace().next())
                    .any(flush)
            });
            // `--cluster call HOST:PORT CMD…` runs CMD on every node; `EVAL script n` runs a
            // Lua script whose `redis.call('FLUSHALL')` flushes.
            let cluster_call = c.args.windows(2).position(|p| {
                matches!(p, [a, b] if a.text == "--cluster" && b.text.eq_ignore_ascii_case("call"))
            });
            let cluster_flush = cluster_call.is_some_and(|at| {
                c.args
                    .get(at + 3)
                    .is_some_and(|w| w.text.split_whitespace().next().is_some_and(flush))
            });
            let script_flush = first.is_some_and(|t| {
                (t.eq_ignore_ascii_case("EVAL") || t.eq_ignore_ascii_case("EVAL_RO"))
                    && p.pos.get(1).is_some_and(|code| {
                        super::contains_ci(&code.text, "flushall")
                            || super::contains_ci(&code.text, "flushdb")
                    })
            });
            if first.is_some_and(|t| t.split_whitespace().next().is_some_and(flush))
                || first.is_none() && stdin_flush
                || cluster_flush
                || script_flush
            {
                destroy(out, format!("`{}` flushes every key", c.prog));
            }
            // `redis-cli KEYS '*' | xargs redis-cli DEL`: the keys given at run time are all
            // of them.
            let deletes = first
                .is_some_and(|t| t.eq_ignore_ascii_case("DEL") || t.eq_ignore_ascii_case("UNLINK"));
            if deletes && c.ctx.fed_all_keys && c.cmd.args_unknown {
                destroy(
                    out,
                    format!("`{}` deletes every key another command lists", c.prog),
                );
            }
        }
        "mongo" | "mongosh" => {
            let p = parse(
                c.args,
                "uph",
                &["eval", "host", "port", "username", "password", "file"],
            );
            let mut code: Vec<&str> = p.values("eval").collect();
            code.extend(c.ctx.stdin_text);
            if code.iter().any(|t| mongo_destroys(t)) {
                destroy(out, format!("`{}` drops a database or collection", c.prog));
            }
        }
        "rails" | "rake" | "sequelize" | "sequelize-cli" | "knex" | "typeorm" | "drizzle-kit"
        | "alembic" | "flyway" | "liquibase" | "prisma" | "artisan" | "mix" | "ecto" | "diesel"
        | "sqlx" | "dbmate" | "goose" | "migrate" | "atlas" | "supabase" => orm(c, out),
        "php" if c.arg(0) == Some("artisan") => orm(c, out),
        _ => {}
    }
    if c.prog != "redis-cli" && !reads_stdin && sql.is_empty() {
        return;
    }
    if reads_stdin {
        sql.extend(c.ctx.stdin_text.map(str::to_owned));
    }
    for s in &sql {
        if let Some(why) = destructive_sql(s) {
            destroy(out, format!("`{}` {why}", c.prog));
            break;
        }
    }
    if !reads_stdin {
        generated_sql(out, &sql);
    }
    if reads_stdin {
        for r in c.ctx.redirects {
            if r.kind == crate::analysis::shell::model::RedirectKind::Input {
                sql_file(c, out, &r.target.text);
            }
        }
    }
}

/// A query that builds destructive SQL out of its string literals (`SELECT 'DROP TABLE ' ||
/// tablename || ';' FROM pg_tables`): its output is that SQL, so the literals are what it
/// prints, and a client reading the pipe (`| psql`) is judged on them. Only destructive
/// literal text is passed on: anything else prints what the gate cannot know.
fn generated_sql(out: &mut Out, sql: &[String]) {
    for s in sql {
        if !s.contains('\'') {
            continue;
        }
        let mut literals = String::new();
        let mut inside = false;
        let mut chars = s.chars().peekable();
        while let Some(ch) = chars.next() {
            match (inside, ch) {
                (false, '\'') => inside = true,
                (true, '\'') if chars.peek() == Some(&'\'') => {
                    chars.next();
                    literals.push('\'');
                }
                (true, '\'') => {
                    inside = false;
                    literals.push(' ');
                }
                (true, c) => literals.push(c),
                _ => {}
            }
        }
        if destructive_sql(&literals).is_some() {
            out.effects().prints = Some(literals);
            return;
        }
    }
}

/// `pg_restore -c|--clean` (also in a short-option cluster) with a database to restore into.
fn pg_restore_cleans(args: &[&Word]) -> bool {
    let short = |w: &&&Word, f: char| {
        let t = w.text.as_str();
        !t.starts_with("--")
            && t.len() > 1
            && t.starts_with('-')
            && t.get(1..)
                .is_some_and(|r| r.chars().all(|ch| ch.is_ascii_alphabetic()) && r.contains(f))
    };
    let clean = args.iter().any(|w| w.text == "--clean" || short(&w, 'c'));
    let into_db = args.iter().any(|w| {
        w.text.starts_with("--dbname") || w.text.starts_with("-d") && !w.text.starts_with("--")
    });
    clean && into_db
}

fn destroy(out: &mut Out, why: String) {
    out.not_read_only();
    out.add(&finding::DATABASE_DESTRUCTION, why);
}

/// `psql -f F`, `mysql < F`: SQL from a file, scanned when the command line shows its text
/// (written earlier on the line, or a process substitution: `psql -f <(echo 'DROP …')`).
fn sql_file(c: &Call<'_, '_>, out: &mut Out, f: &str) {
    out.not_read_only();
    if let Some((text, partial)) = c.ctx.known.text(f) {
        if let Some(why) = destructive_sql(text) {
            destroy(out, format!("`{}` {why}", c.prog));
        }
        if !partial {
            return;
        }
    }
    out.effects().executes.push(f.to_owned());
    out.add(
        &finding::INTERPRETER_FILE,
        format!("`{}` runs the SQL file {}", c.prog, shown(f)),
    );
}

fn mongo_destroys(code: &str) -> bool {
    let compact: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    compact.contains("dropDatabase(")
        || compact.contains(".drop(")
        || compact.contains("deleteMany({})")
        || compact.contains("remove({})")
        || compact.contains("dropAllUsers(")
}

/// Framework and migration tools that wipe a database.
fn orm(c: &Call<'_, '_>, out: &mut Out) {
    let words: Vec<String> = c.args.iter().map(|w| w.text.to_ascii_lowercase()).collect();
    let has = |s: &str| words.iter().any(|w| w == s);
    let hit = words.iter().any(|w| {
        matches!(
            w.as_str(),
            "db:drop"
                | "db:reset"
                | "db:purge"
                | "db:schema:load"
                | "db:migrate:reset"
                | "db:seed:replant"
                | "db:structure:load"
                | "db:wipe"
                | "migrate:fresh"
                | "migrate:reset"
                | "migrate:refresh"
                | "db:migrate:undo:all"
                | "schema:drop"
                | "ecto.drop"
                | "ecto.reset"
                | "clean"
                | "drop-all"
                | "dropall"
                | "drop"
        )
    }) && (c.prog != "mix" || words.iter().any(|w| w.starts_with("ecto.")))
        || c.prog == "prisma"
            && (has("reset") || has("--force-reset") || has("--accept-data-loss"))
        || c.prog == "knex" && has("migrate:rollback") && has("--all")
        || c.prog == "alembic" && has("downgrade") && has("base")
        || c.prog == "supabase"
            && has("db")
            && has("reset")
            && (has("--linked") || has("--db-url"))
        || matches!(c.prog, "diesel" | "sqlx") && has("database") && (has("reset") || has("drop"))
        || c.prog == "dbmate" && has("drop");
    if hit {
        destroy(
            out,
            format!(
                "`{} {}` wipes a database",
                c.prog,
                words.first().map(String::as_str).unwrap_or("")
            ),
        );
    }
}

/// `python manage.py flush|reset_db|sqlflush`: Django database wipes.
pub(super) fn manage_py(c: &Call<'_, '_>, out: &mut Out) {
    let Some(at) = c.args.iter().position(|w| w.text.ends_with("manage.py")) else {
        return;
    };
    if c.args.get(at + 1).is_some_and(|w| {
        matches!(
            w.text.as_str(),
            "flush" | "reset_db" | "reset_schema" | "drop_test_database"
        )
    }) {
        destroy(out, "`manage.py` wipes the database".to_owned());
    }
}

/// Why an SQL text destroys data, if it does.
pub fn destructive_sql(sql: &str) -> Option<&'static str> {
    let mut statement: Vec<String> = Vec::new();
    let mut found = None;
    let check = |words: &[String]| -> Option<&'static str> {
        let first = words.first().map(String::as_str).unwrap_or("");
        let has = |w: &str| words.iter().any(|x| x == w);
        let drop_target = words.windows(2).any(|p| {
            matches!(p, [a, b] if a == "DROP" && matches!(b.as_str(),
                "TABLE" | "DATABASE" | "SCHEMA" | "INDEX" | "VIEW" | "MATERIALIZED" | "COLLECTION"
                | "KEYSPACE" | "TABLESPACE" | "COLUMN" | "OWNED" | "USER" | "ROLE" | "TRIGGER"
                | "FUNCTION" | "PROCEDURE" | "SEQUENCE" | "TYPE" | "EXTENSION" | "STAGE" | "WAREHOUSE"))
        });
        let first_verb = words
            .iter()
            .find(|w| {
                matches!(
                    w.as_str(),
                    "SELECT"
                        | "INSERT"
                        | "UPDATE"
                        | "DELETE"
                        | "TRUNCATE"
                        | "DROP"
                        | "ALTER"
                        | "CREATE"
                        | "MERGE"
                )
            })
            .map(String::as_str)
            .unwrap_or(first);
        if drop_target {
            Some("drops database objects")
        } else if first_verb == "TRUNCATE" || first == "TRUNCATE" {
            Some("truncates a table")
        } else if first_verb == "DELETE" && !has("WHERE") {
            Some("deletes every row of a table")
        } else if first_verb == "UPDATE" && !has("WHERE") && has("SET") {
            Some("overwrites every row of a table")
        } else if first == "FLUSHALL" || first == "FLUSHDB" {
            Some("flushes every key")
        } else {
            None
        }
    };
    let mut word = String::new();
    let mut chars = sql.chars().peekable();
    let push_word = |word: &mut String, statement: &mut Vec<String>| {
        if !word.is_empty() {
            statement.push(word.to_ascii_uppercase());
            word.clear();
        }
    };
    while let Some(ch) = chars.next() {
        match ch {
            '\'' => {
                push_word(&mut word, &mut statement);
                while let Some(n) = chars.next() {
                    if n == '\'' {
                        if chars.peek() == Some(&'\'') {
                            chars.next();
                            continue;
                        }
                        break;
                    }
                    if n == '\\' {
                        chars.next();
                    }
                }
            }
            '-' if chars.peek() == Some(&'-') => {
                push_word(&mut word, &mut statement);
                for n in chars.by_ref() {
                    if n == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                push_word(&mut word, &mut statement);
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
            }
            ';' => {
                push_word(&mut word, &mut statement);
                if found.is_none() {
                    found = check(&statement);
                }
                statement.clear();
            }
            c if c.is_alphanumeric() || c == '_' => word.push(c),
            _ => push_word(&mut word, &mut statement),
        }
        if found.is_some() {
            return found;
        }
    }
    push_word(&mut word, &mut statement);
    found.or_else(|| check(&statement))
}

/// A key-value client that prints every key of its store (`redis-cli KEYS '*'`,
/// `redis-cli --scan` without a narrower `--pattern`): what it feeds to `xargs` is every key.
pub fn lists_all_keys(cmd: &Cmd<'_>) -> bool {
    if !matches!(
        cmd.program.as_str(),
        "redis-cli" | "valkey-cli" | "keydb-cli"
    ) {
        return false;
    }
    let args = cmd.argv.get(1..).unwrap_or(&[]);
    let all = |w: Option<&&Word>| w.is_none_or(|w| w.text.trim_matches(['"', '\'']) == "*");
    if args.iter().any(|w| w.text == "--scan") {
        let pattern = args.iter().position(|w| w.text == "--pattern");
        return pattern.is_none() || all(pattern.and_then(|p| args.get(p + 1)));
    }
    args.iter()
        .position(|w| w.text.eq_ignore_ascii_case("KEYS"))
        .is_some_and(|at| all(args.get(at + 1)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::destructive_sql;
    use crate::finding::*;

    #[test]
    fn sql_scan() {
        assert!(destructive_sql("DROP TABLE users").is_some());
        assert!(destructive_sql("drop database prod;").is_some());
        assert!(destructive_sql("TRUNCATE orders").is_some());
        assert!(destructive_sql("DELETE FROM users").is_some());
        assert!(destructive_sql("delete from users;").is_some());
        assert!(destructive_sql("SELECT 1; DROP SCHEMA public CASCADE").is_some());
        assert!(destructive_sql("ALTER TABLE t DROP COLUMN c").is_some());
        assert!(destructive_sql("UPDATE users SET admin = true").is_some());
        assert!(destructive_sql("DELETE FROM users WHERE id = 1").is_none());
        assert!(destructive_sql("UPDATE users SET x = 1 WHERE id = 2").is_none());
        assert!(destructive_sql("SELECT 'DROP TABLE x'").is_none());
        assert!(destructive_sql("SELECT 1 -- DROP TABLE x").is_none());
        assert!(destructive_sql("SELECT * FROM dropped_tables").is_none());
        assert!(destructive_sql("SELECT 1").is_none());
    }

    #[test]
    fn database_clients() {
        for s in [
            "psql -c 'DROP TABLE users'",
            "psql -d app -c 'TRUNCATE orders'",
            "psql --command='drop database prod'",
            "mysql -e 'DROP DATABASE prod'",
            "mysql -u root -p db -e \"DELETE FROM users\"",
            "sqlite3 app.db 'DROP TABLE users'",
            "sqlcmd -Q 'DROP TABLE x'",
            "clickhouse-client --query 'TRUNCATE TABLE x'",
            "cockroach sql -e 'DROP DATABASE x'",
            "psql <<< 'DROP TABLE users'",
            "dropdb prod",
            "mysqladmin -u root drop prod",
            "redis-cli FLUSHALL",
            "redis-cli -n 2 flushdb",
            "redis-cli <<< FLUSHALL",
            "mongosh --eval 'db.dropDatabase()'",
            "mongo app --eval 'db.users.drop()'",
            "rails db:drop",
            "bin/rails db:reset",
            "rake db:schema:load",
            "npx prisma migrate reset --force",
            "prisma db push --force-reset",
            "python manage.py flush --noinput",
            "php artisan migrate:fresh",
            "flyway clean",
            "sequelize db:drop",
            "knex migrate:rollback --all",
            "alembic downgrade base",
        ] {
            assert_has(s, &DATABASE_DESTRUCTION);
            assert_critical(s);
        }
        for s in [
            "psql -c 'SELECT 1'",
            "psql -c 'DELETE FROM users WHERE id = 3'",
            "grep 'DROP TABLE' file",
            "rg 'DROP TABLE' src/",
            "echo 'DROP TABLE users'",
            "redis-cli GET x",
            "rails db:migrate",
            "sqlite3 app.db .tables",
            "mongosh --eval 'db.users.find()'",
        ] {
            assert_not(s, &DATABASE_DESTRUCTION);
            assert_not_critical(s);
        }
        assert_has("psql -f migrate.sql", &INTERPRETER_FILE);
        assert_has("mysql app < dump.sql", &INTERPRETER_FILE);
    }

    #[test]
    fn etcd_whole_keyspace_deletes() {
        for s in [
            "etcdctl del \"\" --prefix",
            "etcdctl --endpoints=http://e:2379 del --from-key ''",
            "etcdctl del / --prefix",
        ] {
            assert_has(s, &DATABASE_DESTRUCTION);
        }
        for s in [
            "etcdctl del /app/config --prefix",
            "etcdctl del foo",
            "etcdctl get \"\" --prefix",
        ] {
            assert_not(s, &DATABASE_DESTRUCTION);
        }
    }

    #[test]
    fn redis_command_is_the_first_operand() {
        for s in [
            "redis-cli -h db -p 6380 FLUSHALL",
            "redis-cli -a secret flushdb",
            "redis-cli --user u --pass p FLUSHALL ASYNC",
            "redis-cli <<< 'FLUSHDB'",
        ] {
            assert_has(s, &DATABASE_DESTRUCTION);
        }
        for s in [
            "redis-cli ECHO 'FLUSHALL'",
            "redis-cli SET k FLUSHALL",
            "redis-cli -h FLUSHALL GET k",
            "redis-cli <<< 'ECHO FLUSHALL'",
        ] {
            assert_not(s, &DATABASE_DESTRUCTION);
        }
    }

    #[test]
    fn mysql_password_option_takes_no_separate_value() {
        for s in [
            "mysql -u root -p -e \"truncate table logs\"",
            "mysql -u root -pSECRET -e 'drop table x'",
            "mariadb -p --execute='DROP DATABASE app'",
            "mysql --password -e 'truncate t'",
        ] {
            assert_has(s, &DATABASE_DESTRUCTION);
        }
        assert_not("mysql -u root -p -e 'select 1'", &DATABASE_DESTRUCTION);
    }
}
