//! The Python literals of an `.npy` header: a dict with string keys whose values are strings,
//! booleans, integers, `None`, tuples and lists (what NumPy's `repr` writes, nothing else).

use super::LiteralError;

/// A Python literal of an `.npy` header.
#[derive(Debug, PartialEq)]
pub(super) enum Lit {
    Str(String),
    Bool(bool),
    Int(u64),
    None,
    Tuple(Vec<Lit>),
    List(Vec<Lit>),
}

/// Parse the header: a Python dict literal with string keys.
pub(super) fn parse_header(text: &str) -> Result<Vec<(String, Lit)>, LiteralError> {
    let mut p = LitParser { s: text.as_bytes(), i: 0 };
    p.skip_ws();
    p.expect(b'{')?;
    let mut entries = Vec::new();
    loop {
        p.skip_ws();
        if p.eat(b'}') {
            break;
        }
        let key = match p.value(0)? {
            Lit::Str(s) => s,
            _ => return Err(LiteralError::KeyNotAString),
        };
        p.skip_ws();
        p.expect(b':')?;
        let value = p.value(0)?;
        entries.push((key, value));
        p.skip_ws();
        if !p.eat(b',') {
            p.skip_ws();
            p.expect(b'}')?;
            break;
        }
    }
    p.skip_ws();
    if p.i != p.s.len() {
        return Err(LiteralError::TrailingText { at: p.i });
    }
    Ok(entries)
}

struct LitParser<'a> {
    s: &'a [u8],
    i: usize,
}

impl LitParser<'_> {
    fn skip_ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), LiteralError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(LiteralError::Expected { expected: c, at: self.i })
        }
    }

    fn value(&mut self, depth: u32) -> Result<Lit, LiteralError> {
        if depth > 16 {
            return Err(LiteralError::TooDeep);
        }
        self.skip_ws();
        let Some(&c) = self.s.get(self.i) else {
            return Err(LiteralError::UnexpectedEnd);
        };
        match c {
            b'\'' | b'"' => self.string(c),
            b'(' | b'[' => {
                let close = if c == b'(' { b')' } else { b']' };
                self.i += 1;
                let mut items = Vec::new();
                let mut trailing_comma = false;
                loop {
                    self.skip_ws();
                    if self.eat(close) {
                        break;
                    }
                    items.push(self.value(depth + 1)?);
                    self.skip_ws();
                    trailing_comma = self.eat(b',');
                    if !trailing_comma {
                        self.skip_ws();
                        self.expect(close)?;
                        break;
                    }
                }
                // `(3)` is the integer 3 in Python, not a tuple.
                if c == b'(' && items.len() == 1 && !trailing_comma {
                    return Ok(items.pop().unwrap());
                }
                Ok(if c == b'(' { Lit::Tuple(items) } else { Lit::List(items) })
            }
            b'0'..=b'9' => {
                let start = self.i;
                while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
                    self.i += 1;
                }
                let digits = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                self.eat(b'L'); // Python 2 long
                digits.parse().map(Lit::Int).map_err(|_| LiteralError::IntegerOutOfRange { digits: digits.to_string() })
            }
            _ => {
                for (word, lit) in [("True", Lit::Bool(true)), ("False", Lit::Bool(false)), ("None", Lit::None)] {
                    if self.s[self.i..].starts_with(word.as_bytes()) {
                        self.i += word.len();
                        return Ok(lit);
                    }
                }
                Err(LiteralError::Unexpected { found: c, at: self.i })
            }
        }
    }

    fn string(&mut self, quote: u8) -> Result<Lit, LiteralError> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.s.get(self.i) {
                None => return Err(LiteralError::UnterminatedString),
                Some(&c) if c == quote => {
                    self.i += 1;
                    break;
                }
                Some(b'\\') => {
                    let &next = self.s.get(self.i + 1).ok_or(LiteralError::UnterminatedString)?;
                    out.push(next);
                    self.i += 2;
                }
                Some(&c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
        String::from_utf8(out).map(Lit::Str).map_err(|_| LiteralError::StringNotText)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_parser_reads_numpy_headers() {
        let h = parse_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }    \n").unwrap();
        assert_eq!(h[0], ("descr".into(), Lit::Str("<f4".into())));
        assert_eq!(h[1], ("fortran_order".into(), Lit::Bool(false)));
        assert_eq!(h[2], ("shape".into(), Lit::Tuple(vec![Lit::Int(3), Lit::Int(4)])));
        let h = parse_header("{\"descr\":\"<u2\",\"fortran_order\":True,\"shape\":(7L,)}").unwrap();
        assert_eq!(h[2].1, Lit::Tuple(vec![Lit::Int(7)]));
        assert_eq!(parse_header("{'shape': ()}").unwrap()[0].1, Lit::Tuple(vec![]));
        for (bad, why) in [
            ("", LiteralError::Expected { expected: b'{', at: 0 }),
            ("{", LiteralError::UnexpectedEnd),
            ("{'descr' '<f4'}", LiteralError::Expected { expected: b':', at: 9 }),
            ("{'shape': (3,}", LiteralError::Unexpected { found: b'}', at: 13 }),
            ("{'a': 1} x", LiteralError::TrailingText { at: 9 }),
            ("{1: 2}", LiteralError::KeyNotAString),
            ("{'a': 99999999999999999999}", LiteralError::IntegerOutOfRange { digits: "99999999999999999999".into() }),
            ("{'a': 'b}", LiteralError::UnterminatedString),
            ("{'a': ((((((((((((((((((1))))))))))))))))))}", LiteralError::TooDeep),
        ] {
            assert_eq!(parse_header(bad), Err(why), "{bad:?}");
        }
    }
}
