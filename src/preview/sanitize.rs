//! Treats every string from a call as untrusted display text: strips ANSI escape sequences and
//! control characters (keeping newline and tab), and marks bidirectional and zero-width controls
//! visibly so a prompt cannot be made to read differently from what runs.

/// Sanitizes `s` for display.
pub fn sanitize(s: &str) -> String {
    sanitize_cow(s).into_owned()
}

/// [`sanitize`], borrowing `s` when nothing changes (most text is printable ASCII with
/// newlines and tabs).
pub fn sanitize_cow(s: &str) -> std::borrow::Cow<'_, str> {
    if crate::swar::all_printable_or_line(s.as_bytes()) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            '\n' | '\t' => out.push(c),
            c if is_invisible_control(c) => out.push_str(&format!("⟨U+{:04X}⟩", c as u32)),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Bidirectional overrides/isolates/marks and zero-width characters.
pub fn is_invisible_control(c: char) -> bool {
    matches!(c,
        '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}' | '\u{061C}' | '\u{FEFF}' | '\u{180E}')
}

fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.peek() {
        Some('[') => {
            chars.next();
            // CSI: parameters and intermediates, then one final byte in @..~.
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
        Some(']') => {
            chars.next();
            // OSC: until BEL or ESC \.
            while let Some(c) = chars.next() {
                if c == '\u{7}' {
                    break;
                }
                if c == '\u{1b}' {
                    if chars.peek() == Some(&'\\') {
                        chars.next();
                    }
                    break;
                }
            }
        }
        Some(_) => {
            chars.next();
        }
        None => {}
    }
}

/// [`truncate_chars`] for text the caller owns or borrows: kept as it is when it fits.
pub fn truncate_cow(s: std::borrow::Cow<'_, str>, max: usize) -> std::borrow::Cow<'_, str> {
    if s.len() <= max || s.chars().count() <= max {
        return s;
    }
    std::borrow::Cow::Owned(truncate_chars(&s, max))
}

/// [`truncate_chars`] of `text`, cutting `text` itself (no second text): the first `max - 1`
/// characters and `…` when more than `max` characters follow, else `text` as it is.
pub fn truncate_in_place(text: &mut String, max: usize) {
    if text.len() <= max {
        return;
    }
    let cut = if text.as_bytes().get(..max).is_some_and(<[u8]>::is_ascii) {
        // An ASCII head: its `max` bytes are the first `max` characters, and more bytes are
        // more characters.
        max.saturating_sub(1)
    } else {
        // Counting is quicker than walking to the cut, and most texts fit.
        if text.chars().count() <= max {
            return;
        }
        // More than `max` characters: the `max`-th exists (and one after it).
        match max.checked_sub(1) {
            None => 0,
            Some(last) => match text.char_indices().nth(last) {
                Some((at, _)) => at,
                None => return,
            },
        }
    };
    text.truncate(cut);
    text.push('…');
}

/// Cuts `s` to at most `max` characters (code points), ending with `…` when cut.
pub fn truncate_chars(s: &str, max: usize) -> String {
    // A string of at most `max` bytes has at most `max` characters.
    if s.len() <= max {
        return s.to_owned();
    }
    // An ASCII head: the first `max` bytes are the first `max` characters, and more bytes
    // are more characters.
    if let Some(head) = s.as_bytes().get(..max) {
        if head.is_ascii() {
            let cut = max.saturating_sub(1);
            let mut out = String::with_capacity(cut + '…'.len_utf8());
            out.push_str(s.get(..cut).unwrap_or(""));
            out.push('…');
            return out;
        }
    }
    // The first `max - 1` characters are copied as one slice (not pushed one by one): `cut` is
    // where the `max`-th starts, and the text is cut only when a character follows that one.
    let mut chars = s.char_indices();
    let cut = match max.checked_sub(1) {
        None => 0,
        Some(last) => match chars.nth(last) {
            Some((at, _)) if chars.next().is_some() => at,
            _ => return s.to_owned(),
        },
    };
    let mut out = String::with_capacity(cut + '…'.len_utf8());
    out.push_str(s.get(..cut).unwrap_or(""));
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Cutting in place is [`truncate_chars`], for any text and bound.
        #[test]
        fn truncating_in_place_is_truncate_chars(
            d in "\\PC{0,80}|[a-z]{0,80}|[é•😀a]{0,60}",
            max in 0usize..90,
        ) {
            let mut out = d.clone();
            truncate_in_place(&mut out, max);
            proptest::prop_assert_eq!(out, truncate_chars(&d, max));
        }
    }

    #[test]
    fn truncating_in_place_is_truncate_chars_over_every_corpus_text() {
        let mut texts = crate::testing::corpus_request_strings();
        texts.extend(crate::testing::secret_texts());
        texts.extend(crate::testing::fuzz_regression_texts());
        for t in &texts {
            for max in [
                0,
                1,
                2,
                40,
                79,
                80,
                81,
                200,
                511,
                512,
                513,
                t.chars().count(),
            ] {
                let mut out = t.clone();
                truncate_in_place(&mut out, max);
                assert_eq!(out, truncate_chars(t, max), "{max} {t:?}");
            }
        }
    }

    #[test]
    fn strips_ansi_and_controls() {
        assert_eq!(sanitize("\u{1b}[31mred\u{1b}[0m"), "red");
        assert_eq!(sanitize("a\u{1b}]0;title\u{7}b"), "ab");
        assert_eq!(sanitize("a\u{0}b\rc\n\td"), "a\u{FFFD}b\u{FFFD}c\n\td");
    }

    #[test]
    fn marks_bidi_and_zero_width() {
        assert_eq!(sanitize("rm\u{202E}txt.exe"), "rm⟨U+202E⟩txt.exe");
        assert_eq!(sanitize("a\u{200B}b"), "a⟨U+200B⟩b");
    }

    /// `truncate_chars` as it was first written: the reference for its slicing.
    fn truncate_reference(s: &str, max: usize) -> String {
        if s.len() <= max || s.chars().count() <= max {
            return s.to_owned();
        }
        let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
        out.push('…');
        out
    }

    #[test]
    fn truncation_slices_what_collecting_characters_gave() {
        for s in [
            "",
            "a",
            "ab",
            "héllo",
            "héllo!",
            "😀😀😀",
            "a…b",
            "\u{0}x\u{10ffff}y",
            "abcdé",
            "abcdefgh",
            "abcdefghé",
        ] {
            for max in 0..8 {
                assert_eq!(
                    truncate_chars(s, max),
                    truncate_reference(s, max),
                    "{s:?} {max}"
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn truncation_agrees_with_the_reference(s in "\\PC*|.*|[a-zé😀]{0,20}", max in 0usize..24) {
            proptest::prop_assert_eq!(truncate_chars(&s, max), truncate_reference(&s, max));
        }
    }

    #[test]
    fn truncation_counts_code_points() {
        assert_eq!(truncate_chars("héllo", 5), "héllo");
        assert_eq!(truncate_chars("héllo!", 5), "héll…");
        assert_eq!(truncate_chars("😀😀😀", 2).chars().count(), 2);
    }
}
