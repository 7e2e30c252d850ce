//! Unicode simple case mappings (one character to one character), as a table of ranges: what `(?i)` folding in
//! [`crate::regex`] needs of Go's `unicode.ToLower` / `unicode.ToUpper`.
//!
//! Why not `char::to_lowercase` / `to_uppercase`: the standard library's tables hold full mappings, one pair per
//! character (25 KB of wasm data and the code that reads them); the same mappings as ranges are a tenth of that. The
//! table is generated from the standard library's own mappings (a character whose full mapping is more than one
//! character has no simple mapping here, as before) by the test `tests::the_table_is_generated_from_the_standard_library`,
//! which fails when they differ and rewrites the table with
//! `PALISADE_REGENERATE=1 cargo test -p palisade-cel-kubernetes simple_case`. Another test checks every code point.

/// A range whose characters alternate upper case, lower case (`Ā ā Ă ă`), starting with upper case at its first.
const ALTERNATE: i32 = i32::MIN;

/// `(first, last, to lower, to upper)`: every character of `first..=last` maps to itself plus the deltas, or, with
/// [`ALTERNATE`], pairs with its neighbour.
#[rustfmt::skip]
const RANGES: &[(u32, u32, i32, i32)] = &[
    (0x41, 0x5A, 32, 0),
    (0x61, 0x7A, 0, -32),
    (0xB5, 0xB5, 0, 743),
    (0xC0, 0xD6, 32, 0),
    (0xD8, 0xDE, 32, 0),
    (0xE0, 0xF6, 0, -32),
    (0xF8, 0xFE, 0, -32),
    (0xFF, 0xFF, 0, 121),
    (0x100, 0x12F, ALTERNATE, ALTERNATE),
    (0x131, 0x131, 0, -232),
    (0x132, 0x137, ALTERNATE, ALTERNATE),
    (0x139, 0x148, ALTERNATE, ALTERNATE),
    (0x14A, 0x177, ALTERNATE, ALTERNATE),
    (0x178, 0x178, -121, 0),
    (0x179, 0x17E, ALTERNATE, ALTERNATE),
    (0x17F, 0x17F, 0, -300),
    (0x180, 0x180, 0, 195),
    (0x181, 0x181, 210, 0),
    (0x182, 0x185, ALTERNATE, ALTERNATE),
    (0x186, 0x186, 206, 0),
    (0x187, 0x188, ALTERNATE, ALTERNATE),
    (0x189, 0x18A, 205, 0),
    (0x18B, 0x18C, ALTERNATE, ALTERNATE),
    (0x18E, 0x18E, 79, 0),
    (0x18F, 0x18F, 202, 0),
    (0x190, 0x190, 203, 0),
    (0x191, 0x192, ALTERNATE, ALTERNATE),
    (0x193, 0x193, 205, 0),
    (0x194, 0x194, 207, 0),
    (0x195, 0x195, 0, 97),
    (0x196, 0x196, 211, 0),
    (0x197, 0x197, 209, 0),
    (0x198, 0x199, ALTERNATE, ALTERNATE),
    (0x19A, 0x19A, 0, 163),
    (0x19B, 0x19B, 0, 42561),
    (0x19C, 0x19C, 211, 0),
    (0x19D, 0x19D, 213, 0),
    (0x19E, 0x19E, 0, 130),
    (0x19F, 0x19F, 214, 0),
    (0x1A0, 0x1A5, ALTERNATE, ALTERNATE),
    (0x1A6, 0x1A6, 218, 0),
    (0x1A7, 0x1A8, ALTERNATE, ALTERNATE),
    (0x1A9, 0x1A9, 218, 0),
    (0x1AC, 0x1AD, ALTERNATE, ALTERNATE),
    (0x1AE, 0x1AE, 218, 0),
    (0x1AF, 0x1B0, ALTERNATE, ALTERNATE),
    (0x1B1, 0x1B2, 217, 0),
    (0x1B3, 0x1B6, ALTERNATE, ALTERNATE),
    (0x1B7, 0x1B7, 219, 0),
    (0x1B8, 0x1B9, ALTERNATE, ALTERNATE),
    (0x1BC, 0x1BD, ALTERNATE, ALTERNATE),
    (0x1BF, 0x1BF, 0, 56),
    (0x1C4, 0x1C4, 2, 0),
    (0x1C5, 0x1C5, 1, -1),
    (0x1C6, 0x1C6, 0, -2),
    (0x1C7, 0x1C7, 2, 0),
    (0x1C8, 0x1C8, 1, -1),
    (0x1C9, 0x1C9, 0, -2),
    (0x1CA, 0x1CA, 2, 0),
    (0x1CB, 0x1CB, 1, -1),
    (0x1CC, 0x1CC, 0, -2),
    (0x1CD, 0x1DC, ALTERNATE, ALTERNATE),
    (0x1DD, 0x1DD, 0, -79),
    (0x1DE, 0x1EF, ALTERNATE, ALTERNATE),
    (0x1F1, 0x1F1, 2, 0),
    (0x1F2, 0x1F2, 1, -1),
    (0x1F3, 0x1F3, 0, -2),
    (0x1F4, 0x1F5, ALTERNATE, ALTERNATE),
    (0x1F6, 0x1F6, -97, 0),
    (0x1F7, 0x1F7, -56, 0),
    (0x1F8, 0x21F, ALTERNATE, ALTERNATE),
    (0x220, 0x220, -130, 0),
    (0x222, 0x233, ALTERNATE, ALTERNATE),
    (0x23A, 0x23A, 10795, 0),
    (0x23B, 0x23C, ALTERNATE, ALTERNATE),
    (0x23D, 0x23D, -163, 0),
    (0x23E, 0x23E, 10792, 0),
    (0x23F, 0x240, 0, 10815),
    (0x241, 0x242, ALTERNATE, ALTERNATE),
    (0x243, 0x243, -195, 0),
    (0x244, 0x244, 69, 0),
    (0x245, 0x245, 71, 0),
    (0x246, 0x24F, ALTERNATE, ALTERNATE),
    (0x250, 0x250, 0, 10783),
    (0x251, 0x251, 0, 10780),
    (0x252, 0x252, 0, 10782),
    (0x253, 0x253, 0, -210),
    (0x254, 0x254, 0, -206),
    (0x256, 0x257, 0, -205),
    (0x259, 0x259, 0, -202),
    (0x25B, 0x25B, 0, -203),
    (0x25C, 0x25C, 0, 42319),
    (0x260, 0x260, 0, -205),
    (0x261, 0x261, 0, 42315),
    (0x263, 0x263, 0, -207),
    (0x264, 0x264, 0, 42343),
    (0x265, 0x265, 0, 42280),
    (0x266, 0x266, 0, 42308),
    (0x268, 0x268, 0, -209),
    (0x269, 0x269, 0, -211),
    (0x26A, 0x26A, 0, 42308),
    (0x26B, 0x26B, 0, 10743),
    (0x26C, 0x26C, 0, 42305),
    (0x26F, 0x26F, 0, -211),
    (0x271, 0x271, 0, 10749),
    (0x272, 0x272, 0, -213),
    (0x275, 0x275, 0, -214),
    (0x27D, 0x27D, 0, 10727),
    (0x280, 0x280, 0, -218),
    (0x282, 0x282, 0, 42307),
    (0x283, 0x283, 0, -218),
    (0x287, 0x287, 0, 42282),
    (0x288, 0x288, 0, -218),
    (0x289, 0x289, 0, -69),
    (0x28A, 0x28B, 0, -217),
    (0x28C, 0x28C, 0, -71),
    (0x292, 0x292, 0, -219),
    (0x29D, 0x29D, 0, 42261),
    (0x29E, 0x29E, 0, 42258),
    (0x345, 0x345, 0, 84),
    (0x370, 0x373, ALTERNATE, ALTERNATE),
    (0x376, 0x377, ALTERNATE, ALTERNATE),
    (0x37B, 0x37D, 0, 130),
    (0x37F, 0x37F, 116, 0),
    (0x386, 0x386, 38, 0),
    (0x388, 0x38A, 37, 0),
    (0x38C, 0x38C, 64, 0),
    (0x38E, 0x38F, 63, 0),
    (0x391, 0x3A1, 32, 0),
    (0x3A3, 0x3AB, 32, 0),
    (0x3AC, 0x3AC, 0, -38),
    (0x3AD, 0x3AF, 0, -37),
    (0x3B1, 0x3C1, 0, -32),
    (0x3C2, 0x3C2, 0, -31),
    (0x3C3, 0x3CB, 0, -32),
    (0x3CC, 0x3CC, 0, -64),
    (0x3CD, 0x3CE, 0, -63),
    (0x3CF, 0x3CF, 8, 0),
    (0x3D0, 0x3D0, 0, -62),
    (0x3D1, 0x3D1, 0, -57),
    (0x3D5, 0x3D5, 0, -47),
    (0x3D6, 0x3D6, 0, -54),
    (0x3D7, 0x3D7, 0, -8),
    (0x3D8, 0x3EF, ALTERNATE, ALTERNATE),
    (0x3F0, 0x3F0, 0, -86),
    (0x3F1, 0x3F1, 0, -80),
    (0x3F2, 0x3F2, 0, 7),
    (0x3F3, 0x3F3, 0, -116),
    (0x3F4, 0x3F4, -60, 0),
    (0x3F5, 0x3F5, 0, -96),
    (0x3F7, 0x3F8, ALTERNATE, ALTERNATE),
    (0x3F9, 0x3F9, -7, 0),
    (0x3FA, 0x3FB, ALTERNATE, ALTERNATE),
    (0x3FD, 0x3FF, -130, 0),
    (0x400, 0x40F, 80, 0),
    (0x410, 0x42F, 32, 0),
    (0x430, 0x44F, 0, -32),
    (0x450, 0x45F, 0, -80),
    (0x460, 0x481, ALTERNATE, ALTERNATE),
    (0x48A, 0x4BF, ALTERNATE, ALTERNATE),
    (0x4C0, 0x4C0, 15, 0),
    (0x4C1, 0x4CE, ALTERNATE, ALTERNATE),
    (0x4CF, 0x4CF, 0, -15),
    (0x4D0, 0x52F, ALTERNATE, ALTERNATE),
    (0x531, 0x556, 48, 0),
    (0x561, 0x586, 0, -48),
    (0x10A0, 0x10C5, 7264, 0),
    (0x10C7, 0x10C7, 7264, 0),
    (0x10CD, 0x10CD, 7264, 0),
    (0x10D0, 0x10FA, 0, 3008),
    (0x10FD, 0x10FF, 0, 3008),
    (0x13A0, 0x13EF, 38864, 0),
    (0x13F0, 0x13F5, 8, 0),
    (0x13F8, 0x13FD, 0, -8),
    (0x1C80, 0x1C80, 0, -6254),
    (0x1C81, 0x1C81, 0, -6253),
    (0x1C82, 0x1C82, 0, -6244),
    (0x1C83, 0x1C84, 0, -6242),
    (0x1C85, 0x1C85, 0, -6243),
    (0x1C86, 0x1C86, 0, -6236),
    (0x1C87, 0x1C87, 0, -6181),
    (0x1C88, 0x1C88, 0, 35266),
    (0x1C89, 0x1C8A, ALTERNATE, ALTERNATE),
    (0x1C90, 0x1CBA, -3008, 0),
    (0x1CBD, 0x1CBF, -3008, 0),
    (0x1D79, 0x1D79, 0, 35332),
    (0x1D7D, 0x1D7D, 0, 3814),
    (0x1D8E, 0x1D8E, 0, 35384),
    (0x1E00, 0x1E95, ALTERNATE, ALTERNATE),
    (0x1E9B, 0x1E9B, 0, -59),
    (0x1E9E, 0x1E9E, -7615, 0),
    (0x1EA0, 0x1EFF, ALTERNATE, ALTERNATE),
    (0x1F00, 0x1F07, 0, 8),
    (0x1F08, 0x1F0F, -8, 0),
    (0x1F10, 0x1F15, 0, 8),
    (0x1F18, 0x1F1D, -8, 0),
    (0x1F20, 0x1F27, 0, 8),
    (0x1F28, 0x1F2F, -8, 0),
    (0x1F30, 0x1F37, 0, 8),
    (0x1F38, 0x1F3F, -8, 0),
    (0x1F40, 0x1F45, 0, 8),
    (0x1F48, 0x1F4D, -8, 0),
    (0x1F51, 0x1F51, 0, 8),
    (0x1F53, 0x1F53, 0, 8),
    (0x1F55, 0x1F55, 0, 8),
    (0x1F57, 0x1F57, 0, 8),
    (0x1F59, 0x1F59, -8, 0),
    (0x1F5B, 0x1F5B, -8, 0),
    (0x1F5D, 0x1F5D, -8, 0),
    (0x1F5F, 0x1F5F, -8, 0),
    (0x1F60, 0x1F67, 0, 8),
    (0x1F68, 0x1F6F, -8, 0),
    (0x1F70, 0x1F71, 0, 74),
    (0x1F72, 0x1F75, 0, 86),
    (0x1F76, 0x1F77, 0, 100),
    (0x1F78, 0x1F79, 0, 128),
    (0x1F7A, 0x1F7B, 0, 112),
    (0x1F7C, 0x1F7D, 0, 126),
    (0x1F88, 0x1F8F, -8, 0),
    (0x1F98, 0x1F9F, -8, 0),
    (0x1FA8, 0x1FAF, -8, 0),
    (0x1FB0, 0x1FB1, 0, 8),
    (0x1FB8, 0x1FB9, -8, 0),
    (0x1FBA, 0x1FBB, -74, 0),
    (0x1FBC, 0x1FBC, -9, 0),
    (0x1FBE, 0x1FBE, 0, -7205),
    (0x1FC8, 0x1FCB, -86, 0),
    (0x1FCC, 0x1FCC, -9, 0),
    (0x1FD0, 0x1FD1, 0, 8),
    (0x1FD8, 0x1FD9, -8, 0),
    (0x1FDA, 0x1FDB, -100, 0),
    (0x1FE0, 0x1FE1, 0, 8),
    (0x1FE5, 0x1FE5, 0, 7),
    (0x1FE8, 0x1FE9, -8, 0),
    (0x1FEA, 0x1FEB, -112, 0),
    (0x1FEC, 0x1FEC, -7, 0),
    (0x1FF8, 0x1FF9, -128, 0),
    (0x1FFA, 0x1FFB, -126, 0),
    (0x1FFC, 0x1FFC, -9, 0),
    (0x2126, 0x2126, -7517, 0),
    (0x212A, 0x212A, -8383, 0),
    (0x212B, 0x212B, -8262, 0),
    (0x2132, 0x2132, 28, 0),
    (0x214E, 0x214E, 0, -28),
    (0x2160, 0x216F, 16, 0),
    (0x2170, 0x217F, 0, -16),
    (0x2183, 0x2184, ALTERNATE, ALTERNATE),
    (0x24B6, 0x24CF, 26, 0),
    (0x24D0, 0x24E9, 0, -26),
    (0x2C00, 0x2C2F, 48, 0),
    (0x2C30, 0x2C5F, 0, -48),
    (0x2C60, 0x2C61, ALTERNATE, ALTERNATE),
    (0x2C62, 0x2C62, -10743, 0),
    (0x2C63, 0x2C63, -3814, 0),
    (0x2C64, 0x2C64, -10727, 0),
    (0x2C65, 0x2C65, 0, -10795),
    (0x2C66, 0x2C66, 0, -10792),
    (0x2C67, 0x2C6C, ALTERNATE, ALTERNATE),
    (0x2C6D, 0x2C6D, -10780, 0),
    (0x2C6E, 0x2C6E, -10749, 0),
    (0x2C6F, 0x2C6F, -10783, 0),
    (0x2C70, 0x2C70, -10782, 0),
    (0x2C72, 0x2C73, ALTERNATE, ALTERNATE),
    (0x2C75, 0x2C76, ALTERNATE, ALTERNATE),
    (0x2C7E, 0x2C7F, -10815, 0),
    (0x2C80, 0x2CE3, ALTERNATE, ALTERNATE),
    (0x2CEB, 0x2CEE, ALTERNATE, ALTERNATE),
    (0x2CF2, 0x2CF3, ALTERNATE, ALTERNATE),
    (0x2D00, 0x2D25, 0, -7264),
    (0x2D27, 0x2D27, 0, -7264),
    (0x2D2D, 0x2D2D, 0, -7264),
    (0xA640, 0xA66D, ALTERNATE, ALTERNATE),
    (0xA680, 0xA69B, ALTERNATE, ALTERNATE),
    (0xA722, 0xA72F, ALTERNATE, ALTERNATE),
    (0xA732, 0xA76F, ALTERNATE, ALTERNATE),
    (0xA779, 0xA77C, ALTERNATE, ALTERNATE),
    (0xA77D, 0xA77D, -35332, 0),
    (0xA77E, 0xA787, ALTERNATE, ALTERNATE),
    (0xA78B, 0xA78C, ALTERNATE, ALTERNATE),
    (0xA78D, 0xA78D, -42280, 0),
    (0xA790, 0xA793, ALTERNATE, ALTERNATE),
    (0xA794, 0xA794, 0, 48),
    (0xA796, 0xA7A9, ALTERNATE, ALTERNATE),
    (0xA7AA, 0xA7AA, -42308, 0),
    (0xA7AB, 0xA7AB, -42319, 0),
    (0xA7AC, 0xA7AC, -42315, 0),
    (0xA7AD, 0xA7AD, -42305, 0),
    (0xA7AE, 0xA7AE, -42308, 0),
    (0xA7B0, 0xA7B0, -42258, 0),
    (0xA7B1, 0xA7B1, -42282, 0),
    (0xA7B2, 0xA7B2, -42261, 0),
    (0xA7B3, 0xA7B3, 928, 0),
    (0xA7B4, 0xA7C3, ALTERNATE, ALTERNATE),
    (0xA7C4, 0xA7C4, -48, 0),
    (0xA7C5, 0xA7C5, -42307, 0),
    (0xA7C6, 0xA7C6, -35384, 0),
    (0xA7C7, 0xA7CA, ALTERNATE, ALTERNATE),
    (0xA7CB, 0xA7CB, -42343, 0),
    (0xA7CC, 0xA7DB, ALTERNATE, ALTERNATE),
    (0xA7DC, 0xA7DC, -42561, 0),
    (0xA7F5, 0xA7F6, ALTERNATE, ALTERNATE),
    (0xAB53, 0xAB53, 0, -928),
    (0xAB70, 0xABBF, 0, -38864),
    (0xFF21, 0xFF3A, 32, 0),
    (0xFF41, 0xFF5A, 0, -32),
    (0x10400, 0x10427, 40, 0),
    (0x10428, 0x1044F, 0, -40),
    (0x104B0, 0x104D3, 40, 0),
    (0x104D8, 0x104FB, 0, -40),
    (0x10570, 0x1057A, 39, 0),
    (0x1057C, 0x1058A, 39, 0),
    (0x1058C, 0x10592, 39, 0),
    (0x10594, 0x10595, 39, 0),
    (0x10597, 0x105A1, 0, -39),
    (0x105A3, 0x105B1, 0, -39),
    (0x105B3, 0x105B9, 0, -39),
    (0x105BB, 0x105BC, 0, -39),
    (0x10C80, 0x10CB2, 64, 0),
    (0x10CC0, 0x10CF2, 0, -64),
    (0x10D50, 0x10D65, 32, 0),
    (0x10D70, 0x10D85, 0, -32),
    (0x118A0, 0x118BF, 32, 0),
    (0x118C0, 0x118DF, 0, -32),
    (0x16E40, 0x16E5F, 32, 0),
    (0x16E60, 0x16E7F, 0, -32),
    (0x16EA0, 0x16EB8, 27, 0),
    (0x16EBB, 0x16ED3, 0, -27),
    (0x1E900, 0x1E921, 34, 0),
    (0x1E922, 0x1E943, 0, -34),
];
// end of the generated table

/// [`RANGES`] packed one `u64` a range (the first character in 17 bits, the length less one in 8, each delta in 18,
/// [`ALTERNATE`] as the smallest): half the data of the tuples, and what the module keeps (`RANGES` is only read
/// here, when compiling).
const PACKED: [u64; RANGES.len()] = pack();

const fn pack() -> [u64; RANGES.len()] {
    let mut out = [0u64; RANGES.len()];
    let mut rows = RANGES;
    let mut slots = out.as_mut_slice();
    while let ([(first, last, lower, upper), rest @ ..], [slot, more @ ..]) = (rows, slots) {
        assert!(
            *first < 1 << 17 && *last >= *first && *last - *first < 1 << 8,
            "a range that does not pack"
        );
        *slot = *first as u64
            | ((*last - *first) as u64) << 17
            | pack_delta(*lower) << 25
            | pack_delta(*upper) << 43;
        (rows, slots) = (rest, more);
    }
    out
}

/// A delta in 18 bits, two's complement; [`ALTERNATE`] as the smallest.
const fn pack_delta(d: i32) -> u64 {
    assert!(
        d == ALTERNATE || (d > -(1 << 17) && d < 1 << 17),
        "a delta that does not pack"
    );
    let d = if d == ALTERNATE { -(1 << 17) } else { d };
    (d as u64) & 0x3FFFF
}

/// The delta packed at `shift` (see [`pack_delta`]).
fn delta(p: u64, shift: u32) -> i32 {
    let d = (((p >> shift) & 0x3FFFF) as i32) << 14 >> 14;
    if d == -(1 << 17) { ALTERNATE } else { d }
}

/// The (lower, upper) simple mappings of `c`, `c` itself where it has none.
pub(crate) fn mappings(c: u32) -> (u32, u32) {
    let first = |p: u64| (p & 0x1FFFF) as u32;
    let last = |p: u64| first(p) + ((p >> 17) & 0xFF) as u32;
    let at = PACKED.partition_point(|&p| last(p) < c);
    match PACKED.get(at) {
        Some(&p) if first(p) <= c => {
            let (first, lower, upper) = (first(p), delta(p, 25), delta(p, 43));
            if lower == ALTERNATE {
                if (c - first).is_multiple_of(2) {
                    (c + 1, c)
                } else {
                    (c, c - 1)
                }
            } else {
                (c.wrapping_add_signed(lower), c.wrapping_add_signed(upper))
            }
        }
        _ => (c, c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The standard library's mapping of `c` when it is one character, `c` otherwise.
    fn single(c: char, mapped: impl Iterator<Item = char>) -> u32 {
        let all: Vec<char> = mapped.collect();
        match all.as_slice() {
            [one] => u32::from(*one),
            _ => u32::from(c),
        }
    }

    fn standard(c: char) -> (u32, u32) {
        (single(c, c.to_lowercase()), single(c, c.to_uppercase()))
    }

    fn generated() -> String {
        let mut ranges: Vec<(u32, u32, i32, i32)> = Vec::new();
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let n = u32::from(c);
            let (lower, upper) = standard(c);
            if (lower, upper) == (n, n) {
                continue;
            }
            let (dl, du) = (lower as i32 - n as i32, upper as i32 - n as i32);
            if let Some(last) = ranges.last_mut()
                && last.1 + 1 == n
            {
                if (last.2, last.3) == (dl, du) && last.2 != ALTERNATE {
                    last.1 = n;
                    continue;
                }
                // an upper-lower pair continuing, or starting from a one-character range `(1, 0)`
                let offset = n - last.0;
                let alternating =
                    last.2 == ALTERNATE || (last.0 == last.1 && (last.2, last.3) == (1, 0));
                let fits = if offset.is_multiple_of(2) {
                    (dl, du) == (1, 0)
                } else {
                    (dl, du) == (0, -1)
                };
                if alternating && fits {
                    *last = (last.0, n, ALTERNATE, ALTERNATE);
                    continue;
                }
            }
            ranges.push((n, n, dl, du));
        }
        let mut out = String::from(START);
        for (first, last, lower, upper) in ranges {
            let delta = |d: i32| {
                if d == ALTERNATE {
                    "ALTERNATE".to_string()
                } else {
                    d.to_string()
                }
            };
            out.push_str(&format!(
                "    (0x{first:X}, 0x{last:X}, {}, {}),\n",
                delta(lower),
                delta(upper)
            ));
        }
        out.push_str(END);
        out
    }

    const START: &str = "#[rustfmt::skip]\nconst RANGES: &[(u32, u32, i32, i32)] = &[\n";
    const END: &str = "];\n// end of the generated table\n";

    #[test]
    fn the_table_is_generated_from_the_standard_library() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/simple_case.rs");
        let file = std::fs::read_to_string(path).unwrap();
        let start = file.find(START).expect("the generated table starts");
        let end = file.find(END).expect("the generated table ends") + END.len();
        let want = generated();
        if std::env::var_os("PALISADE_REGENERATE").is_some() {
            std::fs::write(path, format!("{}{want}{}", &file[..start], &file[end..])).unwrap();
            return;
        }
        assert!(
            file[start..end] == want,
            "src/simple_case.rs differs from the standard library's case mappings: regenerate with \
             `PALISADE_REGENERATE=1 cargo test -p palisade-cel-kubernetes simple_case`"
        );
    }

    #[test]
    fn every_code_point_maps_as_the_standard_library_maps_it() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            assert_eq!(
                mappings(u32::from(c)),
                standard(c),
                "U+{:04X}",
                u32::from(c)
            );
        }
        assert_eq!(mappings(u32::from('a')), (0x61, 0x41));
        assert_eq!(mappings(0x100), (0x101, 0x100)); // Ā
        assert_eq!(mappings(0x101), (0x101, 0x100)); // ā
    }
}
