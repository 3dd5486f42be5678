//! Byte-class scans eight bytes at a time ("SIMD within a register"): where the first byte of
//! a class is. The gate's output texts (previews, the host view) are scanned byte by byte for
//! escapes and controls several times per decision; a `u64` word test skips eight ordinary
//! bytes in a few instructions, natively and in WebAssembly alike. Each test is exact about
//! whether a word holds such a byte (no false negatives, no false positives), and the byte
//! itself is then found by the plain per-byte test, so the answers are those of that test.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of some byte is set where a byte of `v` is below `n` (1 ≤ n ≤ 128), provided
/// no byte of `v` has its high bit set; exact about whether any is.
fn below(v: u64, n: u8) -> u64 {
    v.wrapping_sub(ONES * u64::from(n)) & !v
}

/// As [`below`] for bytes equal to `b`.
fn equal(v: u64, b: u8) -> u64 {
    below(v ^ (ONES * u64::from(b)), 1)
}

/// Whether the word holds a byte that is not printable ASCII or DEL, or is `"` or `\\`.
fn word_has_json_special(v: u64) -> bool {
    // A byte ≥ 0x80 is caught by `v` itself; when there is none, the other tests are exact.
    (v | below(v, 0x20) | equal(v, b'"') | equal(v, b'\\')) & HIGHS != 0
}

/// Whether the word holds a byte outside printable ASCII (`' '..='~'`), newline and tab
/// counted as outside (the caller's per-byte test decides about them).
fn word_has_non_printable(v: u64) -> bool {
    (v | below(v, 0x20) | equal(v, 0x7f)) & HIGHS != 0
}

/// Index of the first byte for which `is` holds, skipping words `word_may` says hold none.
#[inline(always)]
fn first(bytes: &[u8], word_may: impl Fn(u64) -> bool, is: impl Fn(u8) -> bool) -> Option<usize> {
    let mut chunks = bytes.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        if word_may(u64::from_le_bytes(word)) {
            if let Some(i) = chunk.iter().position(|&b| is(b)) {
                return Some(base + i);
            }
        }
        base += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| is(b))
        .map(|i| base + i)
}

/// Index of the first byte JSON text cannot hold as it is in an ASCII string literal: a
/// control, a non-ASCII byte, `"` or `\\` (`crate::json::push_ascii_str`).
pub fn first_json_special(bytes: &[u8]) -> Option<usize> {
    first(bytes, word_has_json_special, |b| {
        !(0x20..0x80).contains(&b) || b == b'"' || b == b'\\'
    })
}

/// The bytes of the little-endian word `v` that JSON text cannot hold as they are in an
/// ASCII string literal (a control, a non-ASCII byte, `"` or `\\`), as a mask of high bits:
/// zero exactly when there is none, and its lowest set bit is the high bit of the first
/// such byte (later bits may be false: a borrow only runs upwards from a true one). A
/// non-ASCII byte is flagged by its own high bit; an ASCII byte without a borrow from below
/// gets a high bit from `- 0x20` only when it is a control, and from `^ c - 1` only when it
/// is `c`.
pub fn json_special_mask(v: u64) -> u64 {
    let controls = v.wrapping_sub(ONES * 0x20);
    let quotes = (v ^ (ONES * u64::from(b'"'))).wrapping_sub(ONES);
    let backslashes = (v ^ (ONES * u64::from(b'\\'))).wrapping_sub(ONES);
    (v | controls | quotes | backslashes) & HIGHS
}

/// Whether every byte is printable ASCII (`' '..='~'`) other than `"` and `\\`: text a JSON
/// string holds as it is (`crate::audit`'s record fields). A word passes when it has no
/// JSON-special byte ([`json_special_mask`]) and no DEL (its `^ 0x7f - 1` test is exact for
/// ASCII words, and any other word already fails).
pub fn all_plain_ascii(bytes: &[u8]) -> bool {
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let v = u64::from_le_bytes(word);
        let del = (v ^ (ONES * 0x7f)).wrapping_sub(ONES) & HIGHS;
        if json_special_mask(v) | del != 0 {
            return false;
        }
    }
    chunks
        .remainder()
        .iter()
        .all(|&b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
}

/// The bytes of `v` that end a run of JSON string content (`"`, `\\`, a control below
/// U+0020), as a mask of high bits: zero exactly when there is none, its lowest set bit the
/// first such byte's (as in [`json_special_mask`]; non-ASCII bytes are masked out by `!v`,
/// and never borrow).
fn string_end_mask(v: u64) -> u64 {
    let controls = v.wrapping_sub(ONES * 0x20);
    let quotes = (v ^ (ONES * u64::from(b'"'))).wrapping_sub(ONES);
    let backslashes = (v ^ (ONES * u64::from(b'\\'))).wrapping_sub(ONES);
    (controls | quotes | backslashes) & !v & HIGHS
}

/// Index of the first byte that ends a run of JSON string content: `"`, `\\` or a control
/// character below U+0020 (`crate::json`'s request reader, which passes the rest of the
/// text: a short string ends inside the first word).
pub fn first_string_end(bytes: &[u8]) -> Option<usize> {
    let mut chunks = bytes.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let mask = string_end_mask(u64::from_le_bytes(word));
        if mask != 0 {
            return Some(base + (mask.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
        .map(|i| base + i)
}

/// Whether every byte is printable ASCII, newline or tab (`preview::sanitize`).
pub fn all_printable_or_line(bytes: &[u8]) -> bool {
    first(bytes, word_has_non_printable, |b| {
        !((b' '..=b'~').contains(&b) || b == b'\n' || b == b'\t')
    })
    .is_none()
}

/// Whether every byte is printable ASCII (`' '..='~'`): finding details and the values they
/// show (`crate::finding`, the shell rules' `shown`).
pub fn all_printable(bytes: &[u8]) -> bool {
    first(bytes, word_has_non_printable, |b| {
        !(b' '..=b'~').contains(&b)
    })
    .is_none()
}

/// The high bit of exactly each zero byte of `v` (no borrow between bytes).
fn zero_bytes(v: u64) -> u64 {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    !(((v & LOW7).wrapping_add(LOW7)) | v | LOW7)
}

/// Whether every byte is printable ASCII (`' '..='~'`) and no two spaces are adjacent
/// (`preview::push_one_line`'s test for text that is already on one line).
pub fn printable_without_double_space(bytes: &[u8]) -> bool {
    let mut chunks = bytes.chunks_exact(8);
    // Whether the byte before the current word is a space.
    let mut space_before = false;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let v = u64::from_le_bytes(word);
        if word_has_non_printable(v) {
            return false;
        }
        let spaces = zero_bytes(v ^ (ONES * u64::from(b' ')));
        // A space right after a space: within the word (the next byte is 8 bits higher), or
        // at its first byte after the last byte of the word before.
        if spaces & (spaces << 8) != 0 || space_before && spaces & 0x80 != 0 {
            return false;
        }
        space_before = spaces >> 63 != 0;
    }
    for &b in chunks.remainder() {
        if !(b' '..=b'~').contains(&b) || b == b' ' && space_before {
            return false;
        }
        space_before = b == b' ';
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json_special_reference(bytes: &[u8]) -> Option<usize> {
        bytes
            .iter()
            .position(|&b| !((0x20..0x80).contains(&b) && b != b'"' && b != b'\\'))
    }

    /// The first special byte of the first eight as [`json_special_mask`] finds it.
    fn mask_first(bytes: &[u8]) -> Option<usize> {
        let word = u64::from_le_bytes(bytes[..8].try_into().unwrap());
        let m = json_special_mask(word);
        (m != 0).then(|| m.trailing_zeros() as usize / 8)
    }

    fn plain_reference(bytes: &[u8]) -> bool {
        bytes
            .iter()
            .all(|&b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
    }

    fn string_end_reference(bytes: &[u8]) -> Option<usize> {
        bytes
            .iter()
            .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
    }

    fn printable_reference(bytes: &[u8]) -> bool {
        bytes
            .iter()
            .all(|&b| (b' '..=b'~').contains(&b) || b == b'\n' || b == b'\t')
    }

    #[test]
    fn every_byte_at_every_offset_is_classed_as_byte_by_byte() {
        for b in 0..=255u8 {
            for len in 1..20 {
                for at in 0..len {
                    let mut v = vec![b'a'; len];
                    v[at] = b;
                    assert_eq!(
                        first_json_special(&v),
                        json_special_reference(&v),
                        "{b} {at}"
                    );
                    assert_eq!(
                        all_printable_or_line(&v),
                        printable_reference(&v),
                        "{b} {at}"
                    );
                    assert_eq!(first_string_end(&v), string_end_reference(&v), "{b} {at}");

                    // Among non-ASCII bytes (no high byte may hide a special one).
                    let mut h = vec![0xe2u8; len];
                    h[at] = b;
                    assert_eq!(first_string_end(&h), string_end_reference(&h), "{b} {at}");
                    // After an earlier special byte (a borrow across bytes must not hide it).
                    let mut w = v.clone();
                    w[0] = 0;
                    assert_eq!(first_json_special(&w), json_special_reference(&w));
                    assert_eq!(all_printable_or_line(&w), printable_reference(&w));
                    for word in [&v, &w, &h] {
                        assert_eq!(
                            all_printable(word),
                            all_printable_reference(word),
                            "{b} {at}"
                        );
                    }
                    for word in [&v, &w, &h] {
                        assert_eq!(all_plain_ascii(word), plain_reference(word), "{b} {at}");
                    }
                    if len >= 8 {
                        for word in [&v, &w, &h] {
                            assert_eq!(
                                mask_first(word),
                                json_special_reference(&word[..8]),
                                "{b} {at}"
                            );
                        }
                    }
                }
            }
        }
    }

    fn all_printable_reference(bytes: &[u8]) -> bool {
        bytes.iter().all(|b| (b' '..=b'~').contains(b))
    }

    fn double_space_reference(bytes: &[u8]) -> bool {
        bytes.iter().all(|b| (b' '..=b'~').contains(b)) && !bytes.windows(2).any(|w| w == b"  ")
    }

    #[test]
    fn double_spaces_are_found_at_every_offset() {
        for len in 0..26 {
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut v = vec![b'a'; len];
                    v[at] = b;
                    assert_eq!(
                        printable_without_double_space(&v),
                        double_space_reference(&v)
                    );
                    if at + 1 < len {
                        v[at + 1] = b' ';
                        assert_eq!(
                            printable_without_double_space(&v),
                            double_space_reference(&v),
                            "{v:?}"
                        );
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn double_space_scan_agrees(s in "[ a!\x1f\x7f~]{0,40}|[ -~]{0,40}|\\PC{0,20}") {
            proptest::prop_assert_eq!(printable_without_double_space(s.as_bytes()), double_space_reference(s.as_bytes()));
        }

        #[test]
        fn scans_agree_with_the_byte_tests(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
                                           ascii in "[ -~\n\t\"\\\\]{0,40}") {
            proptest::prop_assert_eq!(first_json_special(&bytes), json_special_reference(&bytes));
            proptest::prop_assert_eq!(all_printable_or_line(&bytes), printable_reference(&bytes));
            proptest::prop_assert_eq!(first_string_end(&bytes), string_end_reference(&bytes));
            if bytes.len() >= 8 {
                proptest::prop_assert_eq!(mask_first(&bytes), json_special_reference(&bytes[..8]));
            }
            proptest::prop_assert_eq!(all_plain_ascii(&bytes), plain_reference(&bytes));
            proptest::prop_assert_eq!(all_printable(&bytes), all_printable_reference(&bytes));
            let a = ascii.as_bytes();
            proptest::prop_assert_eq!(all_plain_ascii(a), plain_reference(a));
            proptest::prop_assert_eq!(first_json_special(a), json_special_reference(a));
            proptest::prop_assert_eq!(all_printable_or_line(a), printable_reference(a));
        }
    }
}
