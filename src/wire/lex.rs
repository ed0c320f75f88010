//! Lexing JSON text: where a number, a string literal or an escape ends,
//! and lone surrogate escapes, on bytes known or assumed to be JSON. Shared
//! by the skim parser, its short-line reader and the exact-number rewrite;
//! it builds on nothing else in the crate. The SIMD scanners are here, each
//! `unsafe` block with its SAFETY comment (their figures are in
//! docs/performance.md).

/// Where the number token starting at `start` ends: past its sign, digits,
/// point and exponent (shared with [`crate::wire::exact`]'s rewrite).
pub(crate) fn number_end(b: &[u8], start: usize) -> usize {
    let mut i = start;
    while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
        i += 1;
    }
    i
}

/// The index of the quote that ends the string literal whose body starts at
/// `start`; `None` when an escape is not JSON, a raw control character is
/// inside (not allowed in JSON) or the literal is unterminated. Works on 64
/// bytes at a time with bit masks (quotes, backslashes, control characters,
/// escape letters), so a text dense with escapes costs no more than a plain
/// one.
pub(crate) fn literal_end(b: &[u8], start: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { literal_end_avx2(b, start) };
    }
    literal_end_sse2(b, start)
}

/// [`literal_end`] with the masks of [`masks`] (SSE2 on x86-64, else a
/// byte at a time).
pub(crate) fn literal_end_sse2(b: &[u8], start: usize) -> Option<usize> {
    scan_blocks!(b, start, masks)
}

/// [`literal_end`] with 32-byte AVX2 masks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) fn literal_end_avx2(b: &[u8], start: usize) -> Option<usize> {
    scan_blocks!(b, start, masks_avx2)
}

/// The body of [`literal_end`], written once for each way of building the
/// masks (so that each is inlined where its CPU features are enabled).
macro_rules! scan_blocks {
    ($b:expr, $start:expr, $masks:ident) => {{
        let b: &[u8] = $b;
        let mut pos: usize = $start;
        // Whether the previous block ended in an odd run of backslashes (so
        // the first byte of this one is escaped).
        let mut odd_run = 0u64;
        while let Some(block) = b.get(pos..pos + 64) {
            let block: &[u8; 64] = block.try_into().ok()?;
            let m = $masks(block);
            let escaped = escaped_bytes(m.backslashes, &mut odd_run);
            let ends = m.quotes & !escaped;
            let before = if ends == 0 {
                u64::MAX
            } else {
                (ends & ends.wrapping_neg()) - 1
            };
            if (m.controls | (escaped & !m.escape_letters)) & before != 0 {
                return None;
            }
            // `\u` takes four hex digits.
            let mut unicode = escaped & m.u & before;
            while unicode != 0 {
                escape_end(b, pos + unicode.trailing_zeros() as usize - 1)?;
                unicode &= unicode - 1;
            }
            if ends != 0 {
                return Some(pos + ends.trailing_zeros() as usize);
            }
            pos += 64;
        }
        // The last bytes, one at a time.
        if odd_run != 0 {
            pos = escape_end(b, pos - 1)?;
        }
        plain_end(b, pos)
    }};
}
use scan_blocks;

/// [`literal_end`] read one byte at a time (for a literal's last bytes, and
/// as the reference its block scanning is tested against).
pub(crate) fn plain_end(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => return Some(i),
            b'\\' => i = escape_end(b, i)?,
            0..0x20 => return None,
            _ => i += 1,
        }
    }
    None
}

/// Where the JSON escape whose backslash is at `i` ends; `None` if it is
/// not one.
pub(crate) fn escape_end(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(i + 2),
        b'u' if b.get(i + 2..i + 6)?.iter().all(u8::is_ascii_hexdigit) => Some(i + 6),
        _ => None,
    }
}

/// The bytes of a block that follow an odd run of backslashes (escaped
/// bytes), carrying a run across blocks in `odd_run`: the run-length parity
/// trick of simdjson's first stage, with additions instead of a loop.
pub(crate) fn escaped_bytes(backslashes: u64, odd_run: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    const ODD: u64 = !EVEN;
    let starts = backslashes & !(backslashes << 1);
    let even_start_mask = EVEN ^ *odd_run;
    let even_starts = starts & even_start_mask;
    let odd_starts = starts & !even_start_mask;
    let even_carries = backslashes.wrapping_add(even_starts);
    let (odd_carries, overflow) = backslashes.overflowing_add(odd_starts);
    let odd_carries = odd_carries | *odd_run;
    *odd_run = u64::from(overflow);
    let even_carry_ends = even_carries & !backslashes;
    let odd_carry_ends = odd_carries & !backslashes;
    (even_carry_ends & ODD) | (odd_carry_ends & EVEN)
}

/// The bit masks of one 64-byte block.
#[derive(Default)]
pub(crate) struct Masks {
    quotes: u64,
    backslashes: u64,
    controls: u64,
    /// Bytes that may follow a backslash: `"\/bfnrtu`.
    escape_letters: u64,
    u: u64,
}

/// The masks of a block, 16 bytes at a time with SSE2.
#[cfg(target_arch = "x86_64")]
pub(crate) fn masks(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    let mut m = Masks::default();
    for (k, chunk) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of every x86_64 CPU, and the unaligned load
        // reads the 16 bytes of `chunk`, which `chunks_exact` guarantees.
        let (q, bs, c, e, u) = unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast());
            let eq = |c: u8| -> __m128i { _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8)) };
            let low = _mm_set1_epi8(0x1f);
            let mut letters = eq(b'"');
            for c in *b"\\/bfnrt" {
                letters = _mm_or_si128(letters, eq(c));
            }
            let u = eq(b'u');
            (
                _mm_movemask_epi8(eq(b'"')),
                _mm_movemask_epi8(eq(b'\\')),
                // c <= 0x1f exactly when max(c, 0x1f) == 0x1f (unsigned)
                _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, low), low)),
                _mm_movemask_epi8(_mm_or_si128(letters, u)),
                _mm_movemask_epi8(u),
            )
        };
        let at = 16 * k;
        m.quotes |= u64::from(q as u16) << at;
        m.backslashes |= u64::from(bs as u16) << at;
        m.controls |= u64::from(c as u16) << at;
        m.escape_letters |= u64::from(e as u16) << at;
        m.u |= u64::from(u as u16) << at;
    }
    m
}

/// The masks of a block, 32 bytes at a time with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) fn masks_avx2(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::{
        _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_max_epu8,
        _mm256_movemask_epi8, _mm256_set1_epi8, _mm256_setr_epi8, _mm256_setzero_si256,
        _mm256_shuffle_epi8, _mm256_srli_epi16,
    };
    // The escape letters `"\/bfnrtu` by nibbles: LOW[n] has bit h set when
    // the byte 0xhn is one of them; HIGH[h] is bit h (0 for h >= 8).
    const fn low_table() -> [i8; 16] {
        let mut t = [0u8; 16];
        let letters = *b"\"\\/bfnrtu";
        let mut i = 0;
        while i < letters.len() {
            t[(letters[i] & 0xf) as usize] |= 1 << (letters[i] >> 4);
            i += 1;
        }
        let mut out = [0i8; 16];
        let mut j = 0;
        while j < 16 {
            out[j] = t[j] as i8;
            j += 1;
        }
        out
    }
    const LOW: [i8; 16] = low_table();
    let l = LOW;
    let low_table = _mm256_setr_epi8(
        l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7], l[8], l[9], l[10], l[11], l[12], l[13],
        l[14], l[15], l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7], l[8], l[9], l[10], l[11],
        l[12], l[13], l[14], l[15],
    );
    let high_table = _mm256_setr_epi8(
        1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128, 0, 0,
        0, 0, 0, 0, 0, 0,
    );
    let nibble = _mm256_set1_epi8(0x0f);
    let mut m = Masks::default();
    for (k, chunk) in block.chunks_exact(32).enumerate() {
        // SAFETY: the unaligned load reads the 32 bytes of `chunk`, which
        // `chunks_exact` guarantees; AVX2 is enabled for this function.
        let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
        let lo = _mm256_shuffle_epi8(low_table, _mm256_and_si256(v, nibble));
        let hi = _mm256_shuffle_epi8(
            high_table,
            _mm256_and_si256(_mm256_srli_epi16::<4>(v), nibble),
        );
        let letters = _mm256_cmpeq_epi8(
            _mm256_cmpeq_epi8(_mm256_and_si256(lo, hi), _mm256_setzero_si256()),
            _mm256_setzero_si256(),
        );
        let low = _mm256_set1_epi8(0x1f);
        let at = 32 * k;
        let bits = |mask| u64::from(_mm256_movemask_epi8(mask) as u32) << at;
        m.quotes |= bits(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8)));
        m.backslashes |= bits(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8)));
        // c <= 0x1f exactly when max(c, 0x1f) == 0x1f (unsigned)
        m.controls |= bits(_mm256_cmpeq_epi8(_mm256_max_epu8(v, low), low));
        m.escape_letters |= bits(letters);
        m.u |= bits(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'u' as i8)));
    }
    m
}

/// The masks of a block, one byte at a time.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn masks(block: &[u8; 64]) -> Masks {
    portable_masks(block)
}

#[cfg_attr(
    target_arch = "x86_64",
    allow(dead_code, reason = "tests compare it with SSE2 and AVX2")
)]
pub(crate) fn portable_masks(block: &[u8; 64]) -> Masks {
    let mut m = Masks::default();
    for (i, &c) in block.iter().enumerate() {
        m.quotes |= u64::from(c == b'"') << i;
        m.backslashes |= u64::from(c == b'\\') << i;
        m.controls |= u64::from(c < 0x20) << i;
        m.escape_letters |= u64::from(b"\"\\/bfnrtu".contains(&c)) << i;
        m.u |= u64::from(c == b'u') << i;
    }
    m
}

/// Whether JSON text has a `\\u` escape of a surrogate that is not one of a
/// high-low pair (`\\ud83d\\ude00` is a pair; `\\ud83d` alone is not).
/// Escapes are walked in order from each backslash (memchr), so an escaped
/// backslash before `u` (`\\\\ud83d`, a backslash and the letters) is not an
/// escape. Outside strings valid JSON has no backslash; on invalid JSON the
/// answer only decides whether a subtree is read whole.
pub(crate) fn has_lone_surrogate(b: &[u8]) -> bool {
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'\\', &b[i..]) {
        let at = i + off;
        match surrogate(b, at) {
            Some(true) => return true,
            Some(false) => i = at + 12,
            // Another escape: its letter, or the hex digits that follow
            // (no backslash among them), are stepped over; a backslash that
            // ends the text has no letter.
            None => i = (at + 2).min(b.len()),
        }
    }
    false
}

/// For the escape whose backslash is at `at`: `Some(true)` for a `\u`
/// escape of a lone surrogate, `Some(false)` for a high surrogate followed
/// by its low one (the pair's 12 bytes), `None` for any other escape.
pub(crate) fn surrogate(b: &[u8], at: usize) -> Option<bool> {
    if b.get(at + 1) != Some(&b'u') {
        return None;
    }
    match hex4(b, at + 2)? {
        0xd800..=0xdbff => Some(
            b.get(at + 6..at + 8) != Some(&b"\\u"[..])
                || !matches!(hex4(b, at + 8), Some(0xdc00..=0xdfff)),
        ),
        0xdc00..=0xdfff => Some(true),
        _ => None,
    }
}

/// The four hex digits at `at` as a number; `None` when they are not.
pub(crate) fn hex4(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4)?.iter().try_fold(0, |n, &c| {
        let d = (c as char).to_digit(16)?;
        Some(n * 16 + d)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simd_and_portable_masks_agree() {
        let mut block = [0u8; 64];
        let bits = |m: Masks| (m.quotes, m.backslashes, m.controls, m.escape_letters, m.u);
        for seed in 0u8..=255 {
            for (i, b) in block.iter_mut().enumerate() {
                *b = (i as u8).wrapping_mul(37).wrapping_add(seed);
            }
            let portable = bits(portable_masks(&block));
            assert_eq!(bits(masks(&block)), portable);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2, checked just above.
                assert_eq!(bits(unsafe { masks_avx2(&block) }), portable);
            }
        }
    }
}
