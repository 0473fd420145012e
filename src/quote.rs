//! User input quoted in messages: at most [`MAX_CHARS`] characters of it, so that an error stays
//! one readable line whatever was typed or read from a file.

use std::fmt;

/// The most characters of user input a message quotes.
pub const MAX_CHARS: usize = 80;

/// `'text'` in a message; text longer than [`MAX_CHARS`] characters shows its beginning and how
/// many characters were left out.
pub struct Quoted<'a>(pub &'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match cut(self.0) {
            (all, 0) => write!(f, "'{all}'"),
            (start, more) => write!(f, "'{start}…' ({more} more characters)"),
        }
    }
}

/// The first [`MAX_CHARS`] characters of `text`, and how many characters follow them.
pub fn cut(text: &str) -> (&str, usize) {
    match text.char_indices().nth(MAX_CHARS) {
        None => (text, 0),
        Some((end, _)) => (&text[..end], text[end..].chars().count()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_input_is_cut_after_max_chars() {
        assert_eq!(Quoted("fma.rn.f32").to_string(), "'fma.rn.f32'");
        let exact = "é".repeat(MAX_CHARS);
        assert_eq!(Quoted(&exact).to_string(), format!("'{exact}'"));
        let long = format!("{exact}xyz");
        assert_eq!(Quoted(&long).to_string(), format!("'{exact}…' (3 more characters)"));
    }
}
