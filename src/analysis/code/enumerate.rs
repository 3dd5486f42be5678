//! Process modules reached as values rather than by member name: copied
//! (`{...require('child_process')}`, `Object.assign({}, cp)`: the copy is the module) or
//! enumerated (`Object.values(cp)`, `Object.entries(cp)`, `Object.getOwnPropertyDescriptors`):
//! which function an index, a `find` or a loop picks is only known at run time, so a call
//! of one runs its first argument as a command (`dynamic-expansion`, and the command text is
//! analysed like any command: `Object.values(cp)[5]('rm -rf ~')` is a broad delete).
//!
//! Followed: the enumeration called through index and method steps
//! (`Object.values(cp)[i](…)`, `Object.entries(cp)[i][1](…)`,
//! `Object.values(cp).find(f)(…)`), names bound to it or to a part of it (`const fns =
//! Object.values(cp)`, `const run = fns[2]`, `const [, run] = Object.entries(cp).find(…)`),
//! and loop variables over it (`for (const [k, f] of Object.entries(cp))`, callbacks of its
//! `forEach`/`map`/`find`…). One pass over the tokens, only where `Object.values`/`entries`
//! appear.

use super::{shell_argv, shell_string, Code, Module, Out, WINDOW};

/// `Object` methods that hand out a module's functions.
const ENUMERATORS: [&str; 3] = ["values", "entries", "getOwnPropertyDescriptors"];

/// Modules whose functions run commands.
pub(super) fn runs_commands(m: Module) -> bool {
    matches!(m, Module::ChildProcess | Module::Execa | Module::ShellJs)
}

impl Code<'_> {
    /// The module an expression is: a name bound to one, or a load with a literal name
    /// (`require('m')`, `await import('m')`).
    pub(super) fn module_expr(&self, (a, b): (usize, usize)) -> Option<Module> {
        let a = if self.is_ident(a, "await") { a + 1 } else { a };
        if b == a + 1 {
            return self.module_named(self.ident(a)?);
        }
        let open = self.loader_call(a)?;
        if self.group_end(open) + 1 != b {
            return None;
        }
        let spec = self.parts(open).first().and_then(|&p| self.literal(p))?;
        Some(super::module_of(&spec))
    }

    /// `{...M}` or `Object.assign({}, M)` copying a module `M`.
    pub(super) fn module_copy(&self, (a, b): (usize, usize)) -> Option<Module> {
        if self.is_group((a, b), "{") {
            if let [(p, q)] = self.parts(a).as_slice() {
                if self.punct(*p, "...") {
                    return self.module_expr((p + 1, *q));
                }
            }
            return None;
        }
        let assign = self.is_ident(a, "Object")
            && self.punct(a + 1, ".")
            && self.is_ident(a + 2, "assign")
            && self.punct(a + 3, "(")
            && self.group_end(a + 3) + 1 == b;
        if !assign {
            return None;
        }
        match self.parts(a + 3).as_slice() {
            [first, m] if self.is_group(*first, "{") && first.1 == first.0 + 2 => {
                self.module_expr(*m)
            }
            _ => None,
        }
    }

    /// `Object.values(M)` with `M` a process module, the `values` (or `entries`) token at `i`.
    fn enumerates_process(&self, i: usize) -> bool {
        self.ident(i).is_some_and(|n| ENUMERATORS.contains(&n))
            && self.prev_punct(i, ".")
            && i >= 2
            && self.is_ident(i - 2, "Object")
            && self.punct(i + 1, "(")
            && self
                .parts(i + 1)
                .first()
                .and_then(|&r| self.module_expr(r))
                .is_some_and(runs_commands)
    }

    /// The expression ending at token `end` (its last token) comes from a process module's
    /// enumeration: walking back over index groups, calls and `.name` steps reaches
    /// `Object.values(M)` or a name in [`Code::proc_fns`].
    pub(super) fn ends_in_process_list(&self, end: usize) -> bool {
        if self.proc_fns.is_empty() && !self.enumerated {
            return false;
        }
        let mut k = end;
        for _ in 0..WINDOW {
            if self.punct(k, "]") || self.punct(k, ")") {
                let Some(o) = self.open.at(k) else {
                    return false;
                };
                if self.punct(k, ")") && o >= 1 && self.enumerates_process(o - 1) {
                    return true;
                }
                let Some(p) = o.checked_sub(1) else {
                    return false;
                };
                k = p;
                continue;
            }
            let Some(name) = self.ident(k) else {
                return false;
            };
            if !self.prev_punct(k, ".") {
                return self.proc_fns.contains(name);
            }
            let Some(p) = k.checked_sub(2) else {
                return false;
            };
            k = p;
        }
        false
    }

    /// Names bound to an enumeration of a process module, or to a part of one
    /// ([`Code::proc_fns`]).
    pub(super) fn collect_proc_fns(&mut self) {
        let mut any = false;
        for i in 0..self.toks.len() {
            if self.ident(i).is_some_and(|n| ENUMERATORS.contains(&n)) && self.enumerates_process(i)
            {
                any = true;
                break;
            }
        }
        if !any {
            return;
        }
        self.enumerated = true;
        let mut found: Vec<String> = Vec::new();
        for i in 0..self.toks.len() {
            // `x = …`, `[a, b] = …`, `{a} = …`, `for (const x of …)`, `f => …` in a callback
            let assignment = self.punct(i, "=")
                && !self.punct(i + 1, "=")
                && !i.checked_sub(1).and_then(|p| self.tok(p)).is_some_and(|t| {
                    t.kind == super::Kind::Punct && matches!(&*t.text, "=" | "!" | "<" | ">")
                });
            if !assignment && !self.is_ident(i, "of") {
                continue;
            }
            let lhs_end = i;
            let a = i + 1;
            let end = self.expr_end(a);
            if end <= a {
                continue;
            }
            let Some(last) = end.checked_sub(1) else {
                continue;
            };
            // The value's own chain end (a callback's `=>` is not part of it).
            if !self.ends_in_process_list(last) && !self.starts_with_process_list(a, end) {
                continue;
            }
            let Some(l) = lhs_end.checked_sub(1) else {
                continue;
            };
            if let Some(n) = self.ident(l).filter(|_| !self.prev_punct(l, ".")) {
                found.push(n.to_owned());
            } else if self.punct(l, "]") || self.punct(l, "}") {
                if let Some(o) = self.open.at(l).filter(|&o| l - o <= WINDOW) {
                    for k in o + 1..l {
                        if let Some(n) = self.ident(k) {
                            if !self.punct(k + 1, ":") {
                                found.push(n.to_owned());
                            }
                        }
                    }
                }
            }
            // `list.forEach(f => f(cmd))`, `.find((f) => …)`: the callbacks' parameters.
            let mut j = a;
            while j < end {
                if self.punct(j, "=>") && j >= 1 {
                    let p = j - 1;
                    if let Some(n) = self.ident(p) {
                        found.push(n.to_owned());
                    } else if self.punct(p, ")") {
                        if let Some(o) = self.open.at(p) {
                            for k in o + 1..p {
                                if let Some(n) = self.ident(k) {
                                    found.push(n.to_owned());
                                }
                            }
                        }
                    }
                }
                j += 1;
            }
            for n in found.drain(..) {
                self.proc_fns.insert(n);
            }
        }
    }

    /// The value `(a, end)` starts with a name in [`Code::proc_fns`] or an enumeration
    /// (`fns[2]`, `Object.values(cp).find(…)` followed by more steps).
    fn starts_with_process_list(&self, a: usize, end: usize) -> bool {
        let a = if self.is_ident(a, "await") { a + 1 } else { a };
        if self.ident(a).is_some_and(|n| self.proc_fns.contains(n)) {
            return true;
        }
        self.is_ident(a, "Object")
            && self.punct(a + 1, ".")
            && a + 2 < end
            && self.enumerates_process(a + 2)
    }
}

/// A call of a function taken from a process module by enumeration, with the arguments in
/// the group opened at `open`.
pub(super) fn process_call(code: &Code, out: &mut Out, shown: &str, open: usize) {
    out.dynamic(format!(
        "{shown} calls a process function chosen at run time"
    ));
    let parts = code.parts(open);
    if let Some(&r) = parts.first() {
        shell_string(code, out, shown, r);
    }
    if parts.len() > 1 {
        shell_argv(
            code,
            out,
            shown,
            parts.first().copied(),
            parts.get(1).copied(),
            parts.get(2).copied(),
        );
    }
}
