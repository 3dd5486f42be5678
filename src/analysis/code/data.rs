//! Text held in data: object and array literals bound to a name once, read back by member
//! (`const c = {cmd: '…'}; exec(c.cmd)`, `cfg['cmd']`, `cfg[key]` with a constant key,
//! `tasks.clean.run`, `a[0]`, `a.at(-1)`, `['…'][1]` inline, `Object.freeze({…})` enum-likes,
//! `as const` objects, a name assigned another container (`const cfg = base`), and a
//! string's characters by index (`abc[17]`)).
//!
//! A container whose content may change is not read precisely: a member written
//! (`c.cmd = …`, `a[1] = …`, `c.n += …`), a mutating array method (`push`, `unshift`,
//! `splice`, `fill`, `sort`, `reverse`, `copyWithin`, `pop`, `shift`), or any use of the name
//! other than a member read or an alias (passed to a function, spread, iterated, returned).
//! Its members then read as only known at run time ([`super::UNKNOWN`]), and
//! [`Code::container_texts`] gives every text it was built or written with, so a command
//! taken from it is still analysed in each reading (the stricter answer).
//!
//! Two linear passes over the tokens, before values are computed ([`Code::collect_values`]
//! reads containers: `const line = parts.join(' ')`); the second only when some container
//! exists.

use super::{Code, UNKNOWN, WINDOW};
use std::collections::BTreeMap;

/// Array methods that change the array they are called on.
const MUTATORS: [&str; 9] = [
    "push",
    "unshift",
    "splice",
    "fill",
    "sort",
    "reverse",
    "copyWithin",
    "pop",
    "shift",
];

/// The parts of a container's literal, and an object's keys (see [`Code::container_index`]).
pub(super) struct Index {
    parts: Vec<(usize, usize)>,
    /// Key → value range; `None` for an array, or an object with a spread.
    keys: Option<BTreeMap<String, (usize, usize)>>,
}

/// Accessors followed into nested containers.
const MAX_MEMBER_STEPS: usize = 16;

impl Code<'_> {
    /// Fills [`Code::containers`], [`Code::container_alias`] and [`Code::changed`].
    pub(super) fn collect_containers(&mut self) {
        let mut count: BTreeMap<String, usize> = BTreeMap::new();
        let mut found: Vec<(String, usize)> = Vec::new();
        let mut aliases: Vec<(String, String)> = Vec::new();
        for i in 0..self.toks.len() {
            let Some(name) = self.ident(i) else { continue };
            if self.prev_punct(i, ".") {
                continue;
            }
            let plain = self.punct(i + 1, "=") && !self.punct(i + 2, "=");
            let compound = matches!(
                self.tok(i + 1).map(|t| &*t.text),
                Some("+" | "-" | "|" | "&" | "?" | "*")
            ) && self.punct(i + 2, "=");
            if !plain && !compound {
                continue;
            }
            *count.entry(name.to_owned()).or_default() += 1;
            if compound {
                continue;
            }
            let a = i + 2;
            let end = self.expr_end(a);
            if let Some(open) = self.literal_container((a, end)) {
                found.push((name.to_owned(), open));
            } else if end == a + 1 {
                if let Some(src) = self.ident(a) {
                    aliases.push((name.to_owned(), src.to_owned()));
                }
            }
        }
        let once = |n: &str| count.get(n) == Some(&1);
        for (name, open) in found {
            if once(&name) {
                self.containers.insert(name, open);
                self.index_container(open);
            }
        }
        // In source order, so a chain (`b = a; c = b`) reaches the first container.
        for (name, src) in aliases {
            if !once(&name) || self.containers.contains_key(&name) {
                continue;
            }
            let root = self
                .container_alias
                .get(&src)
                .cloned()
                .unwrap_or_else(|| src.clone());
            if self.containers.contains_key(&root) {
                self.container_alias.insert(name, root);
            }
        }
        if !self.containers.is_empty() {
            self.container_uses();
        }
    }

    fn index_container(&mut self, open: usize) {
        let parts = self.parts(open);
        let keys = if self.punct(open, "{") {
            let mut keys = BTreeMap::new();
            let mut spread = false;
            for &(a, b) in &parts {
                if self.punct(a, "...") {
                    spread = true;
                    continue;
                }
                let Some(t) = self
                    .tok(a)
                    .filter(|t| matches!(t.kind, super::Kind::Ident | super::Kind::Str))
                else {
                    continue;
                };
                let v = if self.punct(a + 1, ":") {
                    (a + 2, b)
                } else if b == a + 1 {
                    (a, b)
                } else {
                    continue;
                };
                keys.entry(t.text.to_string()).or_insert(v);
            }
            (!spread).then_some(keys)
        } else {
            None
        };
        self.container_index.insert(open, Index { parts, keys });
    }

    /// `key` of the object literal `node` (indexed when it is a container's own literal).
    fn member_of(&self, node: (usize, usize), key: &str) -> Option<(usize, usize)> {
        match self.container_index.get(&node.0) {
            Some(Index {
                keys: Some(keys), ..
            }) => keys.get(key).copied(),
            _ => self.key(node, key).ok(),
        }
    }

    /// Element `idx` of the array literal `node`, unless a spread comes first.
    fn element_of(&self, node: (usize, usize), idx: usize) -> Option<(usize, usize)> {
        let owned;
        let parts: &[(usize, usize)] = match self.container_index.get(&node.0) {
            Some(ix) => &ix.parts,
            None => {
                owned = self.parts(node.0);
                &owned
            }
        };
        if parts.iter().take(idx + 1).any(|p| self.punct(p.0, "...")) {
            return None;
        }
        parts.get(idx).copied()
    }

    /// `{…}`, `[…]`, `Object.freeze({…})` spanning exactly `(a, b)`: the literal's opener.
    fn literal_container(&self, (a, b): (usize, usize)) -> Option<usize> {
        if self.is_group((a, b), "{") || self.is_group((a, b), "[") {
            return Some(a);
        }
        let freeze = self.is_ident(a, "Object")
            && self.punct(a + 1, ".")
            && self.is_ident(a + 2, "freeze")
            && self.punct(a + 3, "(")
            && self.group_end(a + 3) + 1 == b;
        if freeze {
            if let [inner] = self.parts(a + 3).as_slice() {
                if self.is_group(*inner, "{") || self.is_group(*inner, "[") {
                    return Some(inner.0);
                }
            }
        }
        None
    }

    /// The container a name stands for: (its root name, its literal's opener).
    pub(super) fn container(&self, name: &str) -> Option<(&str, usize)> {
        if self.containers.is_empty() {
            return None;
        }
        let root = self.container_alias.get(name).map_or(name, String::as_str);
        self.containers
            .get_key_value(root)
            .map(|(k, &v)| (k.as_str(), v))
    }

    /// The container a name stands for when its content never changes.
    pub(super) fn fixed_container(&self, name: &str) -> Option<usize> {
        let (root, open) = self.container(name)?;
        (!self.changed.contains_key(root)).then_some(open)
    }

    /// Marks containers whose content may change, and remembers what is written into them.
    fn container_uses(&mut self) {
        let mut changed: Vec<(String, Option<(usize, usize)>)> = Vec::new();
        for i in 0..self.toks.len() {
            let Some(name) = self.ident(i) else { continue };
            if self.prev_punct(i, ".") {
                continue;
            }
            let Some((root, _)) = self.container(name) else {
                continue;
            };
            let root = root.to_owned();
            // The assignment that binds the name.
            if self.punct(i + 1, "=") && !self.punct(i + 2, "=") {
                continue;
            }
            // The source of an alias (`const cfg = base`).
            if self.prev_punct(i, "=")
                && i >= 2
                && self
                    .ident(i - 2)
                    .is_some_and(|l| self.container_alias.get(l) == Some(&root))
            {
                continue;
            }
            // The source of a destructuring (`const {cmd} = cfg`): reads.
            if self.prev_punct(i, "=")
                && i >= 2
                && (self.punct(i - 2, "}") || self.punct(i - 2, "]"))
                && self.expr_end(i) == i + 1
            {
                continue;
            }
            // Walk the member chain: `.name` and `[…]` steps.
            let mut k = i + 1;
            let mut first_method = None;
            for _ in 0..MAX_MEMBER_STEPS {
                if self.punct(k, ".") && self.ident(k + 1).is_some() {
                    if first_method.is_none() && k == i + 1 {
                        first_method = self.ident(k + 1);
                    }
                    k += 2;
                } else if self.punct(k, "[") && self.close.at(k).is_some() {
                    k = self.step(k);
                } else {
                    break;
                }
            }
            if k == i + 1 {
                // A bare use: passed, spread, iterated, returned — unless only read.
                if !self.read_only_use(i) {
                    changed.push((root, None));
                }
                continue;
            }
            let assigned = (self.punct(k, "=") && !self.punct(k + 1, "="))
                || (matches!(
                    self.tok(k).map(|t| &*t.text),
                    Some("+" | "-" | "|" | "&" | "?" | "*")
                ) && self.punct(k + 1, "="))
                || (self.punct(k, "+") && self.punct(k + 1, "+"))
                || (self.punct(k, "-") && self.punct(k + 1, "-"));
            if assigned {
                let a = if self.punct(k, "=") { k + 1 } else { k + 2 };
                changed.push((root, Some((a, self.expr_end(a)))));
            } else if first_method.is_some_and(|m| MUTATORS.contains(&m))
                && k == i + 3
                && self.punct(k, "(")
            {
                let parts = self.parts(k);
                if parts.is_empty() {
                    changed.push((root.clone(), None));
                }
                for p in parts {
                    changed.push((root.clone(), Some(p)));
                }
            }
        }
        for (root, w) in changed {
            let slot = self.changed.entry(root).or_default();
            if let Some(w) = w {
                if slot.len() < super::VALUES_PER_NAME {
                    slot.push(w);
                }
            }
        }
    }

    /// The bare name at `i` is only read: iterated (`of`, `in`), spread into a copy, given
    /// to `typeof`, or the first argument of a function that does not change its argument
    /// (`JSON.stringify`, `console.*`, `Object.keys/values/entries`, `structuredClone`, …).
    fn read_only_use(&self, i: usize) -> bool {
        let Some(p) = i.checked_sub(1) else {
            return false;
        };
        if matches!(self.ident(p), Some("of" | "in" | "typeof")) || self.punct(p, "...") {
            return true;
        }
        if !self.punct(p, "(") {
            return false;
        }
        let callee = |names: &[&str]| -> bool {
            let mut k = p;
            for want in names.iter().rev() {
                let Some(q) = k.checked_sub(1) else {
                    return false;
                };
                if *want == "*" {
                    if self.ident(q).is_none() {
                        return false;
                    }
                } else if !self.is_ident(q, want) {
                    return false;
                }
                k = q;
                if want != names.first().unwrap_or(want) {
                    if !self.prev_punct(k, ".") {
                        return false;
                    }
                    k -= 1;
                }
            }
            !self.prev_punct(k, ".")
        };
        const READERS: [&[&str]; 12] = [
            &["JSON", "stringify"],
            &["console", "*"],
            &["Object", "keys"],
            &["Object", "values"],
            &["Object", "entries"],
            &["Object", "freeze"],
            &["Object", "getOwnPropertyNames"],
            &["Array", "isArray"],
            &["structuredClone"],
            &["String"],
            &["Boolean"],
            &["inspect"],
        ];
        READERS.iter().any(|names| callee(names))
    }

    /// A member read of a container (`c.cmd`, `c['cmd']`, `c[k]`, `a[0]`, `t.a.b`, `['x'][0]`):
    /// `Some(Some(range))` of the member's value, `Some(None)` when it is only known at run time,
    /// `None` when `(x, y)` is no such read.
    pub(super) fn member_node(
        &self,
        (x, y): (usize, usize),
        depth: u8,
    ) -> Option<Option<(usize, usize)>> {
        if y <= x + 1 {
            return None;
        }
        let member_end =
            self.punct(y - 1, "]") || (self.ident(y - 1).is_some() && self.prev_punct(y - 1, "."));
        if !member_end {
            return None;
        }
        let (mut node, mut k) = if let Some(name) = self.ident(x) {
            let (root, open) = self.container(name)?;
            if self.changed.contains_key(root) {
                return Some(None);
            }
            ((open, self.group_end(open) + 1), x + 1)
        } else if self.punct(x, "[") || self.punct(x, "{") {
            let c = self.close.at(x)?;
            if !self.punct(c + 1, "[") {
                return None;
            }
            ((x, c + 1), c + 1)
        } else {
            return None;
        };
        for _ in 0..MAX_MEMBER_STEPS {
            if k >= y {
                return Some(Some(node));
            }
            let key = if self.punct(k, ".") {
                let n = self.ident(k + 1)?;
                k += 2;
                n.to_owned()
            } else if self.punct(k, "[") {
                let c = self.close.at(k)?;
                let v = self.value((k + 1, c), depth + 1);
                k = c + 1;
                if v.contains(UNKNOWN) {
                    return Some(None);
                }
                v
            } else {
                return None;
            };
            let next = if self.is_group(node, "{") {
                match self.member_of(node, &key) {
                    Some(r) => r,
                    None => return Some(None),
                }
            } else if self.is_group(node, "[") {
                let Ok(idx) = key.parse::<usize>() else {
                    return Some(None);
                };
                match self.element_of(node, idx) {
                    Some(r) => r,
                    None => return Some(None),
                }
            } else {
                return Some(None);
            };
            node = self.unwrap_member(next)?;
        }
        Some(None)
    }

    /// A member's value range, followed into a container it names or freezes.
    fn unwrap_member(&self, r: (usize, usize)) -> Option<(usize, usize)> {
        if r.1 == r.0 + 1 {
            if let Some(open) = self.ident(r.0).and_then(|n| self.container(n)) {
                let (root, open) = open;
                if self.changed.contains_key(root) {
                    return None;
                }
                return Some((open, self.group_end(open) + 1));
            }
        }
        match self.literal_container(r) {
            Some(open) => Some((open, self.group_end(open) + 1)),
            None => Some(r),
        }
    }

    /// The value of a member read ([`Code::member_node`]), or of a character of a known
    /// string (`abc[17]`, `'abc'[1]`); `None` when `(x, y)` is neither.
    pub(super) fn member_value(&self, (x, y): (usize, usize), depth: u8) -> Option<String> {
        if let Some(node) = self.member_node((x, y), depth) {
            return Some(match node {
                Some(r) => self.value(r, depth + 1),
                None => UNKNOWN.to_string(),
            });
        }
        // `s[3]`: one UTF-16 unit of a known string.
        if y <= x + 1 || !self.punct(y - 1, "]") {
            return None;
        }
        let open = self.open.at(y - 1).filter(|&o| o > x)?;
        let s = self.known((x, open), depth + 1)?;
        let idx = self.known((open + 1, y - 1), depth + 1)?;
        let idx: usize = idx.parse().ok()?;
        let units: Vec<u16> = s.encode_utf16().collect();
        Some(match units.get(idx) {
            Some(&u) => String::from_utf16_lossy(&[u])
                .chars()
                .map(super::sanitize)
                .collect(),
            None => UNKNOWN.to_string(),
        })
    }

    /// Every text a container named `name` was built or written with (each element's or
    /// member's value, and for an array all its elements joined by spaces): the readings of a
    /// member only known at run time.
    pub(super) fn container_texts(&self, name: &str, budget: &mut usize) -> Vec<String> {
        let Some((root, open)) = self.container(name) else {
            return Vec::new();
        };
        let end = self.group_end(open);
        if end - open > *budget {
            return Vec::new();
        }
        *budget -= end - open;
        let mut out = Vec::new();
        let mut elems = Vec::new();
        let array = self.punct(open, "[");
        // Leaves of nested literals, by a bounded scan of the literal's tokens.
        for k in open + 1..end {
            if let Some(t) = self.tok(k) {
                if matches!(t.kind, super::Kind::Str | super::Kind::Tpl) && !self.punct(k + 1, ":")
                {
                    out.push(t.text.to_string());
                }
            }
        }
        if array {
            for p in self.parts(open) {
                elems.push(self.value(p, 0));
            }
        }
        for &w in self.changed.get(root).into_iter().flatten() {
            let v = self.value(w, 0);
            elems.push(v.clone());
            out.push(v);
        }
        if array && !elems.is_empty() {
            out.push(elems.join(" "));
        }
        out
    }

    /// Loop variables and callback parameters over texts known before run time take each
    /// element as a value (`for (const c of ['…']) exec(c)`, `cmds.forEach((c) => exec(c))`,
    /// `Object.values(cmds).map(c => …)`): several values, so a command made of one reads as
    /// only known at run time with every element as a reading. Runs after the values pass.
    pub(super) fn collect_loop_values(&mut self) {
        let mut found: Vec<(String, Vec<String>)> = Vec::new();
        // Elements computed in all: linear in the code (a list looped over many times is
        // computed once per name).
        let mut budget = self.toks.len();
        let mut by_name: BTreeMap<&str, Option<Vec<String>>> = BTreeMap::new();
        for i in 0..self.toks.len() {
            let Some(word) = self.ident(i) else { continue };
            let (param, list) = match word {
                // `for (const c of list)`
                "of" => {
                    let Some(p) = i.checked_sub(1) else { continue };
                    let declared =
                        p >= 1 && matches!(self.ident(p - 1), Some("const" | "let" | "var"));
                    let Some(param) = self.ident(p).filter(|_| declared) else {
                        continue;
                    };
                    let end = self.expr_end(i + 1);
                    (param, (i + 1, end))
                }
                // `list.forEach(c => …)` and the other element callbacks
                "forEach" | "map" | "flatMap" | "filter" | "some" | "every" | "find"
                    if self.prev_punct(i, ".") && self.punct(i + 1, "(") =>
                {
                    let Some(&(a, b)) = self.parts(i + 1).first() else {
                        continue;
                    };
                    let a = if self.is_ident(a, "async") { a + 1 } else { a };
                    let param = if self.punct(a + 1, "=>") {
                        self.ident(a)
                    } else if self.punct(a, "(") && self.punct(a + 2, ")") && b > a + 3 {
                        self.ident(a + 1)
                    } else if self.is_ident(a, "function") && self.punct(a + 1, "(") {
                        self.ident(a + 2)
                    } else {
                        None
                    };
                    let Some(param) = param else { continue };
                    let Some(last) = i.checked_sub(2) else {
                        continue;
                    };
                    (param, (self.chain_back(last), i - 1))
                }
                _ => continue,
            };
            if list.1 <= list.0 || budget == 0 {
                continue;
            }
            let items = match self.ident(list.0).filter(|_| list.1 == list.0 + 1) {
                Some(n) => by_name
                    .entry(n)
                    .or_insert_with(|| self.items(list, 0))
                    .clone(),
                None => self.items(list, 0),
            };
            budget = budget.saturating_sub((list.1 - list.0) + items.as_ref().map_or(0, Vec::len));
            if let Some(items) = items {
                let known: Vec<String> = items
                    .into_iter()
                    .filter(|v| !v.contains(UNKNOWN))
                    .take(super::VALUES_PER_NAME)
                    .collect();
                if !known.is_empty() {
                    found.push((param.to_owned(), known));
                }
            }
        }
        for (param, items) in found {
            let slot = self.values.entry(param).or_default();
            // At least two values: one element is still a value set at run time.
            if slot.is_empty() {
                slot.push(None);
            }
            for v in items {
                if slot.len() < super::VALUES_PER_NAME {
                    slot.push(Some(v));
                }
            }
        }
    }

    /// The first token of the expression whose last token is `end`: back over `.name`
    /// steps, calls and index groups, to a name, a literal or a group.
    pub(super) fn chain_back(&self, end: usize) -> usize {
        let mut k = end;
        for _ in 0..WINDOW {
            if self.punct(k, "]") || self.punct(k, ")") {
                let Some(o) = self.open.at(k) else { return k };
                // A call's or index's callee continues the chain; a bare group starts it.
                let continues = o
                    .checked_sub(1)
                    .and_then(|p| self.tok(p))
                    .is_some_and(|t| match t.kind {
                        super::Kind::Ident => !super::EXPR_KEYWORDS.contains(&&*t.text),
                        super::Kind::Punct => matches!(&*t.text, ")" | "]"),
                        _ => false,
                    });
                if !continues {
                    return o;
                }
                k = o - 1;
                continue;
            }
            if k >= 2 && self.prev_punct(k, ".") {
                k -= 2;
                continue;
            }
            return k;
        }
        k
    }
}
