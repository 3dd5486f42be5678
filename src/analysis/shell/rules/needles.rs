//! Fixed sets of ASCII needles searched for together.
//!
//! Rules ask "does this text contain any of these words?" for lists of a dozen or more literal
//! needles (credential markers, metadata hosts, network library names), on every argument of
//! every command. One `contains` per needle scans the text once per needle and, for a `&str`
//! pattern, sets up a substring searcher each time (costly for short texts, and not vectorized
//! in WebAssembly). A [`Needles`] set is built at compile time: the needles ordered by first
//! byte and a table from each byte to the needles that can start with it, so a search is one
//! pass over the text that compares whole needles only where one can begin.
//!
//! Two matching modes, each defined as the plain `str` operation it replaces (tests prove
//! them equal over the corpora and random texts):
//! - [`Needles::exact`]: `any_in(t)` is `list.iter().any(|n| t.contains(n))` and `prefix_of(t)`
//!   is `list.iter().any(|n| t.starts_with(n))`.
//! - [`Needles::lowered`]: `any_in(t)` is `list.iter().any(|n| t.to_ascii_lowercase().contains(n))`
//!   (a needle with an ASCII uppercase letter can never match), and `prefix_of(t)` is
//!   `list.iter().any(|n| t.to_ascii_lowercase().starts_with(n))`; no lowercase copy is made.

/// Texts at least this long are searched by jumping between first bytes with `memchr`.
const MEMCHR_FROM: usize = 32;

/// A compile-time set of at most 255 needles (see the module documentation).
pub(super) struct Needles<const N: usize> {
    /// The needles, ordered by first byte.
    list: [&'static str; N],
    /// `range[b]` = `[start, end)`: the needles in `list` that can begin at a text byte `b`.
    range: [[u8; 2]; 256],
    /// A 512-bit filter over the first two bytes of the indexed needles ([`pair_slot`]): a
    /// position whose two bytes are not in it starts no needle of two bytes or more.
    pairs: [u64; 8],
    /// Bit `b` (of word `b / 64`): a one-byte needle `b` is indexed.
    singles: [u64; 4],
    /// The first `nfirst` of these are all the text bytes a needle can begin at, when
    /// `nfirst <= 3`.
    firsts: [u8; 3],
    /// How many text bytes a needle can begin at.
    nfirst: u8,
    /// The shortest indexed needle's length: a shorter text holds none.
    min_len: usize,
    /// Compare the text ASCII-lowercased.
    lowered: bool,
    /// An empty needle is in the list (every text contains it).
    empty: bool,
}

impl<const N: usize> Needles<N> {
    /// Needles matched byte for byte.
    pub(super) const fn exact(list: [&'static str; N]) -> Self {
        Self::build(list, false)
    }

    /// Needles matched against the ASCII-lowercased text.
    pub(super) const fn lowered(list: [&'static str; N]) -> Self {
        Self::build(list, true)
    }

    #[expect(
        clippy::indexing_slicing,
        reason = "evaluated for constants only: an index out of range fails the build"
    )]
    const fn build(mut list: [&'static str; N], lowered: bool) -> Self {
        // More than 255 needles do not fit the `u8` ranges: fail the build.
        const { assert!(N < 256, "at most 255 needles") };
        // Insertion sort by key: the first byte, and last the needles that can never match
        // (lowered mode, an ASCII capital in the needle), which are left out of the table.
        let mut i = 1;
        while i < N {
            let mut j = i;
            while j > 0 && sort_key(list[j - 1], lowered) > sort_key(list[j], lowered) {
                let t = list[j - 1];
                list[j - 1] = list[j];
                list[j] = t;
                j -= 1;
            }
            i += 1;
        }
        let mut range = [[0u8; 2]; 256];
        let mut pairs = [0u64; 8];
        let mut singles = [0u64; 4];
        let mut empty = false;
        let mut i = 0;
        while i < N {
            match list[i].as_bytes() {
                [] => empty = true,
                _ if sort_key(list[i], lowered) > 255 => {}
                [b, rest @ ..] => {
                    let at = *b as usize;
                    match rest {
                        [c, ..] => {
                            let slot = pair_slot(*b, *c);
                            pairs[slot / 64] |= 1 << (slot % 64);
                        }
                        [] => singles[at / 64] |= 1 << (at % 64),
                    }
                    if range[at][0] == range[at][1] {
                        range[at] = [i as u8, i as u8 + 1];
                    } else {
                        range[at][1] = i as u8 + 1;
                    }
                }
            }
            i += 1;
        }
        if lowered {
            // A lowered text byte is never uppercase: an uppercase text byte is looked up as
            // its lowercase (ranges and one-byte needles alike), and a needle starting with an
            // uppercase letter can never match (the indexed needles have no capitals).
            let mut b = b'A';
            while b <= b'Z' {
                let (at, low) = (b as usize, b.to_ascii_lowercase() as usize);
                range[at] = range[low];
                if singles[low / 64] & (1 << (low % 64)) != 0 {
                    singles[at / 64] |= 1 << (at % 64);
                }
                b += 1;
            }
        }
        // The text bytes a needle can begin at: when there are at most three, a search jumps
        // between them with `memchr` instead of looking every byte up.
        let mut firsts = [0u8; 3];
        let mut nfirst = 0u8;
        let mut b = 0usize;
        while b < 256 {
            if range[b][0] != range[b][1] {
                if (nfirst as usize) < firsts.len() {
                    firsts[nfirst as usize] = b as u8;
                }
                nfirst = nfirst.saturating_add(1);
            }
            b += 1;
        }
        let mut min_len = usize::MAX;
        let mut i = 0;
        while i < N {
            if sort_key(list[i], lowered) <= 255 && list[i].len() < min_len {
                min_len = list[i].len();
            }
            i += 1;
        }
        Needles {
            list,
            range,
            firsts,
            nfirst,
            min_len,
            pairs,
            singles,
            lowered,
            empty,
        }
    }

    /// Some needle in `list[start..end]` begins `rest`. In lowered mode every indexed needle
    /// has no ASCII capital, so comparing ignoring ASCII case is comparing the lowercased text.
    #[inline(never)]
    fn begins(&self, rest: &[u8], start: u8, end: u8) -> bool {
        let needles = self
            .list
            .get(usize::from(start)..usize::from(end))
            .unwrap_or(&[]);
        needles.iter().any(|n| {
            let n = n.as_bytes();
            rest.get(..n.len()).is_some_and(|w| {
                if self.lowered {
                    w.eq_ignore_ascii_case(n)
                } else {
                    w == n
                }
            })
        })
    }

    /// A needle can begin at text byte `b` followed by `next`: the first-byte table, then
    /// the one-byte needles or the two-byte filter (a necessary condition only).
    #[inline]
    fn may_begin(&self, b: u8, next: Option<u8>) -> Option<[u8; 2]> {
        let [start, end] = self.range.get(usize::from(b)).copied().unwrap_or([0, 0]);
        if start == end {
            return None;
        }
        let single = |b: u8| {
            self.singles
                .get(usize::from(b / 64))
                .is_some_and(|w| w & (1 << (b % 64)) != 0)
        };
        let pair = next.is_some_and(|c| {
            let (b, c) = if self.lowered {
                (b.to_ascii_lowercase(), c.to_ascii_lowercase())
            } else {
                (b, c)
            };
            let slot = pair_slot(b, c);
            self.pairs
                .get(slot / 64)
                .is_some_and(|w| w & (1 << (slot % 64)) != 0)
        });
        (pair || single(b)).then_some([start, end])
    }

    /// Some needle occurs in `text`.
    pub(super) fn any_in(&self, text: &str) -> bool {
        if self.empty {
            return true;
        }
        let t = text.as_bytes();
        if t.len() < self.min_len {
            return false;
        }
        let at = |i: usize| {
            let rest = t.get(i..).unwrap_or(&[]);
            rest.first().is_some_and(|&b| {
                self.may_begin(b, rest.get(1).copied())
                    .is_some_and(|[start, end]| self.begins(rest, start, end))
            })
        };
        // `memchr` pays its call only over longer texts; short ones are looked up byte by byte.
        let jump = if t.len() >= MEMCHR_FROM {
            self.nfirst
        } else {
            u8::MAX
        };
        match (jump, self.firsts) {
            (0, _) => false,
            (1, [a, ..]) => memchr::memchr_iter(a, t).any(at),
            (2, [a, b, _]) => memchr::memchr2_iter(a, b, t).any(at),
            (3, [a, b, c]) => memchr::memchr3_iter(a, b, c, t).any(at),
            _ => {
                let mut rest = t;
                while let Some((&b, tail)) = rest.split_first() {
                    if let Some([start, end]) = self.may_begin(b, tail.first().copied()) {
                        if self.begins(rest, start, end) {
                            return true;
                        }
                    }
                    rest = tail;
                }
                false
            }
        }
    }

    /// Some needle is a prefix of `text`.
    pub(super) fn prefix_of(&self, text: &str) -> bool {
        if self.empty {
            return true;
        }
        let t = text.as_bytes();
        let Some(&b) = t.first() else {
            return false;
        };
        self.may_begin(b, t.get(1).copied())
            .is_some_and(|[start, end]| self.begins(t, start, end))
    }
}

/// `hay.contains(needle)` for a short literal needle: each place of its first byte
/// (`memchr`) is compared with the rest, with no substring searcher set up per call (the
/// set-up dominates for the short texts rules search, most of all in WebAssembly); texts over
/// 512 bytes take `memmem` (linear whatever the text).
pub(super) fn contains_literal(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    // A long text may hold the first byte very often: there one searcher set up pays off.
    if h.len() > 512 {
        return memchr::memmem::find(h, n).is_some();
    }
    let Some((&first, rest)) = n.split_first() else {
        return true;
    };
    memchr::memchr_iter(first, h)
        .any(|i| h.get(i + 1..).is_some_and(|after| after.starts_with(rest)))
}

/// The [`Needles::pairs`] filter slot of a needle's (lowercased) first two bytes.
const fn pair_slot(b: u8, c: u8) -> usize {
    let h = (b as usize).wrapping_mul(0x9e5) ^ (c as usize).wrapping_mul(0x3b1);
    (h ^ (h >> 9)) & 511
}

#[cfg(test)]
impl<const N: usize> Needles<N> {
    /// The needles (tests build inputs from them).
    pub(super) fn list_for_tests(&self) -> &[&'static str] {
        &self.list
    }
}

/// The sort key: a needle's first byte (0 for the empty needle), or 256 for a needle that
/// can never match (lowered mode, an ASCII capital in it).
const fn sort_key(s: &str, lowered: bool) -> u16 {
    let b = s.as_bytes();
    if lowered {
        let mut rest = b;
        while let [c, tail @ ..] = rest {
            if c.is_ascii_uppercase() {
                return 256;
            }
            rest = tail;
        }
    }
    match b {
        [c, ..] => *c as u16,
        [] => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const WORDS: [&str; 11] = [
        "id_", ".pem", "LWP", "Net::", "a", "ab", "", "é", "%userpr", "nEt", "ne",
    ];

    fn oracle_any(list: &[&str], t: &str, lowered: bool) -> bool {
        let l = t.to_ascii_lowercase();
        list.iter().any(|n| {
            if lowered {
                l.contains(n)
            } else {
                t.contains(n)
            }
        })
    }

    fn oracle_prefix(list: &[&str], t: &str) -> bool {
        let l = t.to_ascii_lowercase();
        list.iter().any(|n| l.starts_with(n))
    }

    #[test]
    fn empty_needle_matches_everything_and_a_set_without_it_does_not() {
        let with = Needles::exact(WORDS);
        assert!(with.any_in("") && with.prefix_of("zzz"));
        let without = Needles::exact(["x", "yz"]);
        assert!(!without.any_in("") && !without.any_in("y z") && without.any_in("ayzb"));
        assert!(!without.prefix_of("") && without.prefix_of("yzz") && !without.prefix_of("ay"));
    }

    #[test]
    fn lowered_needles_with_capitals_never_match() {
        let n = Needles::lowered(["LWP", "net::"]);
        assert!(!n.any_in("LWP::Simple") && !n.any_in("lwp"));
        assert!(n.any_in("use NET::HTTP") && n.prefix_of("Net::x") && !n.prefix_of(" net::"));
        let exact = Needles::exact(["LWP", "net::"]);
        assert!(exact.any_in("LWP::Simple") && !exact.any_in("Net::HTTP"));
    }

    #[test]
    fn contains_literal_is_contains_over_the_corpora() {
        let needles = [
            "subprocess",
            "pty",
            "from os",
            "recursive",
            "dup2(",
            "<&3",
            "|&",
            "fork while fork",
            "fork until 0",
            "fork while 1",
            "while",
            "os.fork()",
            "fork;",
            "é",
            "",
        ];
        for t in &super::super::testing::corpus_texts() {
            for n in needles {
                assert_eq!(contains_literal(t, n), t.contains(n), "{t:?} {n:?}");
            }
        }
    }

    proptest! {
        #[test]
        fn contains_literal_is_contains(t in "[ab(é)]{0,12}", n in "[ab(é)]{0,3}") {
            prop_assert_eq!(contains_literal(&t, &n), t.contains(n.as_str()));
        }
    }

    proptest! {
        #[test]
        fn equals_the_per_needle_scan(
            t in "[aAbBdi_.%:NnEeTtLlWwPpéU ]{0,48}",
            pick in proptest::collection::vec(0usize..WORDS.len(), 0..6),
        ) {
            // Sets of every size the picks give, with and without the empty needle.
            let list: Vec<&str> = pick.iter().filter_map(|&i| WORDS.get(i).copied()).collect();
            let mut arr = [""; 6];
            for (slot, n) in arr.iter_mut().zip(list.iter()) {
                *slot = n;
            }
            // Pad with a needle no text here can hold, so the array is a set of `list`.
            for slot in arr.iter_mut().skip(list.len()) {
                *slot = "\u{1}";
            }
            for lowered in [false, true] {
                let n = if lowered { Needles::lowered(arr) } else { Needles::exact(arr) };
                prop_assert_eq!(n.any_in(&t), oracle_any(&list, &t, lowered));
                if lowered {
                    prop_assert_eq!(n.prefix_of(&t), oracle_prefix(&list, &t));
                }
            }
        }
    }
}
