//! A cursor over JSON text: the one place that skips whitespace and takes punctuation, for the readers that walk the
//! text themselves instead of through serde ([`super::identity`], [`super::deep`]).

/// A position in JSON text.
pub(super) struct Cursor<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) at: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    /// The next byte that is not JSON whitespace, without taking it.
    pub(super) fn peek(&mut self) -> Option<u8> {
        while let Some(b) = self.bytes.get(self.at) {
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                self.at += 1;
            } else {
                return Some(*b);
            }
        }
        None
    }

    /// Take `byte` if it is next (after whitespace).
    pub(super) fn eat(&mut self, byte: u8) -> bool {
        if self.peek() == Some(byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }
}
