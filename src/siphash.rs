//! SipHash-2-4 with a 128-bit output: the keyed pseudo-random function behind the exact-call
//! key (`src/scope.rs`).
//!
//! Why keyed: the exact key grants (an exact-repeat lease covers every call with the same
//! key), so whoever can compute it offline can search for a second call that shares it. An
//! unkeyed fast digest (the FNV-1a this replaced) is invertible byte by byte; SipHash under a
//! secret key is a PRF, so without the key no output can be predicted, and the core never
//! lets a key out (decisions, previews and audit records carry none).
//!
//! Owns only the function (Aumasson and Bernstein's reference algorithm, checked against the
//! published and `siphasher` vectors in the tests). Where the key comes from and what is
//! digested belongs to `src/scope.rs`. Non-goals: streaming input, the 64-bit variant.

/// A 128-bit SipHash key: the two little-endian words of its 16 bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Key {
    k0: u64,
    k1: u64,
}

impl std::fmt::Debug for Key {
    /// Never prints the key: it is a secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(..)")
    }
}

impl Key {
    pub fn from_bytes(bytes: [u8; 16]) -> Key {
        let words = u128::from_le_bytes(bytes);
        Key {
            k0: words as u64,
            k1: (words >> 64) as u64,
        }
    }
}

struct State {
    v0: u64,
    v1: u64,
    v2: u64,
    v3: u64,
}

impl State {
    #[inline(always)]
    fn round(&mut self) {
        self.v0 = self.v0.wrapping_add(self.v1);
        self.v1 = self.v1.rotate_left(13) ^ self.v0;
        self.v0 = self.v0.rotate_left(32);
        self.v2 = self.v2.wrapping_add(self.v3);
        self.v3 = self.v3.rotate_left(16) ^ self.v2;
        self.v0 = self.v0.wrapping_add(self.v3);
        self.v3 = self.v3.rotate_left(21) ^ self.v0;
        self.v2 = self.v2.wrapping_add(self.v1);
        self.v1 = self.v1.rotate_left(17) ^ self.v2;
        self.v2 = self.v2.rotate_left(32);
    }

    #[inline(always)]
    fn compress(&mut self, m: u64) {
        self.v3 ^= m;
        self.round();
        self.round();
        self.v0 ^= m;
    }

    fn xor(&self) -> u64 {
        self.v0 ^ self.v1 ^ self.v2 ^ self.v3
    }
}

/// SipHash-2-4-128 of `data` under `key`, as the reference implementation lays out its 16
/// output bytes (two little-endian words).
pub fn siphash128(key: Key, data: &[u8]) -> [u8; 16] {
    let mut s = State {
        v0: key.k0 ^ 0x736f_6d65_7073_6575,
        v1: key.k1 ^ 0x646f_7261_6e64_6f6d ^ 0xee,
        v2: key.k0 ^ 0x6c79_6765_6e65_7261,
        v3: key.k1 ^ 0x7465_6462_7974_6573,
    };
    let mut words = data.chunks_exact(8);
    for word in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(word);
        s.compress(u64::from_le_bytes(b));
    }
    // The last word: the remaining bytes, zero-padded, with the length's low byte on top.
    let mut last = [0u8; 8];
    let rest = words.remainder();
    if let Some(dst) = last.get_mut(..rest.len()) {
        dst.copy_from_slice(rest);
    }
    last[7] = data.len() as u8;
    s.compress(u64::from_le_bytes(last));
    s.v2 ^= 0xee;
    for _ in 0..4 {
        s.round();
    }
    let lo = s.xor();
    s.v1 ^= 0xdd;
    for _ in 0..4 {
        s.round();
    }
    let hi = s.xor();
    let mut out = [0u8; 16];
    for (chunk, word) in out.chunks_exact_mut(8).zip([lo, hi]) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    fn reference_key() -> Key {
        Key::from_bytes(std::array::from_fn(|i| i as u8))
    }

    /// The reference implementation's `vectors_sip128` (key 00..0f, message 00 01 02 ..) for
    /// these lengths; the first is the published vector, the others come from the
    /// `siphasher` crate (1.0.4), which passes the whole published table.
    #[test]
    fn matches_the_reference_vectors() {
        let msg: Vec<u8> = (0..64u8).collect();
        for (len, want) in [
            (0, "a3817f04ba25a8e66df67214c7550293"),
            (1, "da87c1d86b99af44347659119b22fc45"),
            (7, "a1f1ebbed8dbc153c0b84aa61ff08239"),
            (8, "3b62a9ba6258f5610f83e264f31497b4"),
            (9, "264499060ad9baabc47f8b02bb6d71ed"),
            (15, "5493e99933b0a8117e08ec0f97cfc3d9"),
            (16, "6ee2a4ca67b054bbfd3315bf85230577"),
            (63, "5150d1772f50834a503e069a973fbd7c"),
        ] {
            assert_eq!(
                hex(&siphash128(reference_key(), &msg[..len])),
                want,
                "{len}"
            );
        }
    }

    #[test]
    fn matches_siphasher_on_a_long_input_and_another_key() {
        let long: Vec<u8> = (0..30001u32).map(|i| (i * 31 % 251) as u8).collect();
        let key = Key::from_bytes(*b"0123456789abcdef");
        assert_eq!(
            hex(&siphash128(key, &long)),
            "e6fd957b1395fb9cbf277483f2fafe5e"
        );
    }

    #[test]
    fn the_key_never_prints() {
        assert_eq!(format!("{:?}", reference_key()), "Key(..)");
    }
}
