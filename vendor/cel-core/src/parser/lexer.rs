//! CEL lexer using logos.

use crate::types::Span;
use logos::Logos;

/// A token with its source span.
pub type SpannedToken = (Token, Span);

/// Lexer error with span information.
#[derive(Debug, Clone, PartialEq)]
pub struct LexError {
    pub message: String,
    pub span: Span,
    /// cel-go reports this error as it is, not as a syntax error (`invalid unicode code point`).
    pub plain: bool,
}

/// Why a token could not be read. cel-go's lexer refuses text no token matches (a token recognition error); a literal
/// its lexer reads but whose value does not fit, or whose escape names no character, its parser refuses with a message
/// of its own.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum LexFault {
    /// No token starts here (cel-go shows the first character, or two for `|`, `&`, `=`)
    #[default]
    Unrecognized,
    /// A literal that breaks off: cel-go shows its text up to this offset (the first character that does not fit
    /// included; in [`escaped`], counted from the literal's opening quote's end)
    UnrecognizedThrough(usize),
    InvalidInt,
    InvalidUint,
    InvalidDouble,
    /// `\uD800` in a string, or `\u`/`\U` in bytes: the words are cel-go's
    Unescape(&'static str),
}

/// A number the lexer reads but whose value does not fit: cel-go's message for it, and its text as written.
#[derive(Debug, Clone, PartialEq)]
pub struct BadNumber {
    pub message: &'static str,
    pub text: String,
}

/// CEL tokens.
#[derive(Logos, Debug, Clone, PartialEq)]
#[logos(error = LexFault)]
#[logos(skip r"[ \t\n\r\f]+")]
#[logos(skip r"//[^\n]*")]
pub enum Token {
    // === Numeric Literals ===
    // Order matters: more specific patterns first

    // Hex unsigned: 0x1Fu, 0x1FU (cel-go's prefix is `0x` only)
    #[regex(r"0x[0-9a-fA-F]+[uU]", lex_hex_uint)]
    // Decimal unsigned: 123u, 123U
    #[regex(r"[0-9]+[uU]", lex_decimal_uint, priority = 4)]
    UInt(u64),

    // Hex int: 0x1F
    #[regex(r"0x[0-9a-fA-F]+", lex_hex_int, priority = 3)]
    // Decimal int: 123 (lowest priority for numbers)
    #[regex(r"[0-9]+", lex_decimal_int, priority = 1)]
    Int(i64),

    // Integer overflow - specifically handle the i64::MIN absolute value case
    // 9223372036854775808 = |i64::MIN| = i64::MAX + 1
    // This allows "-9223372036854775808" to parse correctly
    #[token("9223372036854775808", |_| "9223372036854775808".to_string(), priority = 2)]
    IntOverflow(String),

    /// A number the lexer reads but whose value does not fit (cel-go's parser refuses it with this message, at the
    /// literal, its sign included); never matched by the lexer itself, made by [`lex`] from a [`LexFault`].
    InvalidNumber(BadNumber),

    // Float with decimal point and optional exponent: 1.5, 1.5e10
    #[regex(r"[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?", lex_float, priority = 5)]
    // Float with exponent only: 1e10, 1E-5
    #[regex(r"[0-9]+[eE][+-]?[0-9]+", lex_float, priority = 2)]
    // Float starting with decimal point: .5, .99, .5e3
    #[regex(r"\.[0-9]+([eE][+-]?[0-9]+)?", lex_float, priority = 6)]
    Float(f64),

    // === String Literals ===
    // Triple-quoted strings (must come before single/double to match first)
    #[regex(r#"""""#, lex_triple_double_string)]
    #[regex(r"'''", lex_triple_single_string)]
    // Raw triple-quoted strings (must come before raw single/double to match first)
    #[regex(r#"[rR]""""#, lex_raw_triple_double_string)]
    #[regex(r"[rR]'''", lex_raw_triple_single_string)]
    // Raw strings
    #[regex(r#"[rR]""#, lex_raw_double_string)]
    #[regex(r"[rR]'", lex_raw_single_string)]
    // Regular strings
    #[regex(r#"""#, lex_double_string)]
    #[regex(r"'", lex_single_string)]
    String(String),

    // === Bytes Literals ===
    // Raw bytes triple-quoted (must come first)
    #[regex(r#"[bB][rR]""""#, lex_raw_bytes_triple_double)]
    #[regex(r"[bB][rR]'''", lex_raw_bytes_triple_single)]
    #[regex(r#"[rR][bB]""""#, lex_raw_bytes_triple_double)]
    #[regex(r"[rR][bB]'''", lex_raw_bytes_triple_single)]
    // Triple-quoted bytes (must come before single/double)
    #[regex(r#"[bB]""""#, lex_bytes_triple_double)]
    #[regex(r"[bB]'''", lex_bytes_triple_single)]
    // Raw bytes single/double-quoted
    #[regex(r#"[bB][rR]""#, lex_raw_bytes_double)]
    #[regex(r"[bB][rR]'", lex_raw_bytes_single)]
    #[regex(r#"[rR][bB]""#, lex_raw_bytes_double)]
    #[regex(r"[rR][bB]'", lex_raw_bytes_single)]
    // Regular bytes
    #[regex(r#"[bB]""#, lex_bytes_double)]
    #[regex(r"[bB]'", lex_bytes_single)]
    Bytes(Vec<u8>),

    // === Keywords ===
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("null")]
    Null,
    #[token("in")]
    In,

    // === Reserved Words ===
    #[token("as", |_| "as".to_string())]
    #[token("break", |_| "break".to_string())]
    #[token("const", |_| "const".to_string())]
    #[token("continue", |_| "continue".to_string())]
    #[token("else", |_| "else".to_string())]
    #[token("for", |_| "for".to_string())]
    #[token("function", |_| "function".to_string())]
    #[token("if", |_| "if".to_string())]
    #[token("import", |_| "import".to_string())]
    #[token("let", |_| "let".to_string())]
    #[token("loop", |_| "loop".to_string())]
    #[token("package", |_| "package".to_string())]
    #[token("namespace", |_| "namespace".to_string())]
    #[token("return", |_| "return".to_string())]
    #[token("var", |_| "var".to_string())]
    #[token("void", |_| "void".to_string())]
    #[token("while", |_| "while".to_string())]
    Reserved(String),

    // === Identifier ===
    #[regex(r"[a-zA-Z_][a-zA-Z0-9_]*", |lex| lex.slice().to_string(), priority = 0)]
    Ident(String),
    /// An identifier written in backticks (`` `b-c` ``: cel-go's `ESC_IDENTIFIER`, letters, digits and `_./- `),
    /// without them. The grammar allows it only as a selected field or a message field's name.
    #[regex(r"`[a-zA-Z0-9_./ \-]+`", lex_backtick_ident)]
    EscapedIdent(String),

    // === Operators (multi-char first) ===
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[token("<=")]
    Le,
    #[token(">=")]
    Ge,
    #[token("&&")]
    And,
    #[token("||")]
    Or,

    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("!")]
    Not,
    #[token("?")]
    Question,
    #[token(":")]
    Colon,

    // === Delimiters ===
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(".")]
    Dot,
    #[token(",")]
    Comma,
}

impl std::fmt::Display for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Token::Int(n) => write!(f, "{}", n),
            Token::IntOverflow(s) => write!(f, "{}", s),
            // as written, as cel-go names the token in a syntax error
            Token::InvalidNumber(bad) => write!(f, "{}", bad.text),
            Token::UInt(n) => write!(f, "{}u", n),
            Token::Float(n) => write!(f, "{}", n),
            Token::String(s) => write!(f, "\"{}\"", s),
            Token::Bytes(b) => write!(f, "b\"{}\"", String::from_utf8_lossy(b)),
            Token::True => write!(f, "true"),
            Token::False => write!(f, "false"),
            Token::Null => write!(f, "null"),
            Token::In => write!(f, "in"),
            Token::Reserved(s) => write!(f, "{}", s),
            Token::Ident(s) => write!(f, "{}", s),
            Token::EscapedIdent(s) => write!(f, "`{}`", s),
            Token::Plus => write!(f, "+"),
            Token::Minus => write!(f, "-"),
            Token::Star => write!(f, "*"),
            Token::Slash => write!(f, "/"),
            Token::Percent => write!(f, "%"),
            Token::EqEq => write!(f, "=="),
            Token::Ne => write!(f, "!="),
            Token::Lt => write!(f, "<"),
            Token::Le => write!(f, "<="),
            Token::Gt => write!(f, ">"),
            Token::Ge => write!(f, ">="),
            Token::And => write!(f, "&&"),
            Token::Or => write!(f, "||"),
            Token::Not => write!(f, "!"),
            Token::Question => write!(f, "?"),
            Token::Colon => write!(f, ":"),
            Token::LParen => write!(f, "("),
            Token::RParen => write!(f, ")"),
            Token::LBracket => write!(f, "["),
            Token::RBracket => write!(f, "]"),
            Token::LBrace => write!(f, "{{"),
            Token::RBrace => write!(f, "}}"),
            Token::Dot => write!(f, "."),
            Token::Comma => write!(f, ","),
        }
    }
}

// === Lexer Callbacks for Numbers ===

fn lex_decimal_int(lex: &mut logos::Lexer<Token>) -> Result<i64, LexFault> {
    lex.slice().parse().map_err(|_| LexFault::InvalidInt)
}

fn lex_decimal_uint(lex: &mut logos::Lexer<Token>) -> Result<u64, LexFault> {
    let s = lex.slice();
    s[..s.len() - 1].parse().map_err(|_| LexFault::InvalidUint) // Remove trailing u/U
}

fn lex_hex_int(lex: &mut logos::Lexer<Token>) -> Result<i64, LexFault> {
    let s = lex.slice();
    i64::from_str_radix(&s[2..], 16).map_err(|_| LexFault::InvalidInt) // Skip 0x
}

fn lex_hex_uint(lex: &mut logos::Lexer<Token>) -> Result<u64, LexFault> {
    let s = lex.slice();
    u64::from_str_radix(&s[2..s.len() - 1], 16).map_err(|_| LexFault::InvalidUint)
    // Skip 0x, remove u
}

/// A double that overflows to infinity is refused, as Go's `strconv.ParseFloat` refuses it (one that underflows is 0).
fn lex_float(lex: &mut logos::Lexer<Token>) -> Result<f64, LexFault> {
    crate::parse_f64(lex.slice())
        .filter(|f| f.is_finite())
        .ok_or(LexFault::InvalidDouble)
}

fn lex_backtick_ident(lex: &mut logos::Lexer<Token>) -> String {
    let s = lex.slice();
    s[1..s.len() - 1].to_string() // Strip backticks
}

/// Where cel-go's token recognition error for an escaped identifier that breaks off at `start` ends: after the
/// backtick, the characters an escaped identifier may hold, and the first one it may not (a second backtick right
/// after the first included), or the end of the input.
fn escaped_ident_fault_end(input: &str, start: usize) -> usize {
    let held = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | ' ' | '-');
    let rest = &input[start + 1..];
    let run = rest.find(|c: char| !held(c)).unwrap_or(rest.len());
    let after = rest[run..].chars().next().map_or(0, char::len_utf8);
    start + 1 + run + after
}

// === Lexer Callbacks for Strings ===

fn lex_double_string(lex: &mut logos::Lexer<Token>) -> Result<String, LexFault> {
    lex_quoted_string(lex, "\"")
}

fn lex_single_string(lex: &mut logos::Lexer<Token>) -> Result<String, LexFault> {
    lex_quoted_string(lex, "'")
}

fn lex_quoted_string(lex: &mut logos::Lexer<Token>, quote: &str) -> Result<String, LexFault> {
    String::from_utf8(lex_escaped(lex, quote, false)?).map_err(|_| LexFault::Unrecognized)
}

/// One escape sequence, after its backslash: a byte (`\xHH`, `\DDD`) or a character.
enum Unescaped {
    Byte(u8),
    Char(char),
}

/// The next `n` characters of `chars` as a number in `radix`, when they are all its digits (`consumed` counts what
/// was read, the first character that is not a digit included).
fn digits(
    chars: &mut std::str::Chars<'_>,
    consumed: &mut usize,
    n: usize,
    radix: u32,
) -> Option<u32> {
    let mut value = 0u32;
    for _ in 0..n {
        let c = chars.next()?;
        *consumed += c.len_utf8();
        value = value * radix + c.to_digit(radix)?;
    }
    Some(value)
}

/// The escape sequence `chars` starts with (after a backslash), `consumed` counting its bytes (on an error, through
/// the character that does not fit). The sequences are cel-go's (`ESC_SEQ` of its grammar: no `\/`, exactly two,
/// four or eight hex digits, three octal ones); any other is [`LexFault::Unrecognized`]. A `\u`/`\U` that names no
/// character (a surrogate, past U+10FFFF) and any `\u`/`\U` in bytes are refused with cel-go's words.
fn unescape(
    chars: &mut std::str::Chars<'_>,
    consumed: &mut usize,
    bytes: bool,
) -> Result<Unescaped, LexFault> {
    let escape_char = chars.next().ok_or(LexFault::Unrecognized)?;
    *consumed += escape_char.len_utf8();
    let byte = |value: u32| u8::try_from(value).map_err(|_| LexFault::Unrecognized);
    Ok(match escape_char {
        '\\' => Unescaped::Char('\\'),
        '"' => Unescaped::Char('"'),
        '\'' => Unescaped::Char('\''),
        '`' => Unescaped::Char('`'),
        'a' => Unescaped::Char('\x07'),
        'b' => Unescaped::Char('\x08'),
        'f' => Unescaped::Char('\x0C'),
        'n' => Unescaped::Char('\n'),
        'r' => Unescaped::Char('\r'),
        't' => Unescaped::Char('\t'),
        'v' => Unescaped::Char('\x0B'),
        '?' => Unescaped::Char('?'),
        'x' | 'X' => Unescaped::Byte(byte(
            digits(chars, consumed, 2, 16).ok_or(LexFault::Unrecognized)?,
        )?),
        'u' | 'U' => {
            let n = if escape_char == 'u' { 4 } else { 8 };
            let value = digits(chars, consumed, n, 16).ok_or(LexFault::Unrecognized)?;
            if bytes {
                return Err(LexFault::Unescape("unable to unescape string"));
            }
            Unescaped::Char(
                char::from_u32(value).ok_or(LexFault::Unescape("invalid unicode code point"))?,
            )
        }
        c @ '0'..='3' => {
            let rest = digits(chars, consumed, 2, 8).ok_or(LexFault::Unrecognized)?;
            Unescaped::Byte(byte((u32::from(c) - u32::from('0')) * 64 + rest)?)
        }
        _ => return Err(LexFault::Unrecognized),
    })
}

/// A quoted string or bytes literal with escapes, up to `end_quote` (one quote: no line break allowed; three: any), as
/// UTF-8 bytes; an escaped byte (`\xHH`, `\DDD`) is that byte in `bytes`, that code point in a string.
fn lex_escaped(
    lex: &mut logos::Lexer<Token>,
    end_quote: &str,
    bytes: bool,
) -> Result<Vec<u8>, LexFault> {
    match escaped(lex.remainder(), end_quote, bytes) {
        Ok((result, consumed)) => {
            lex.bump(consumed);
            Ok(result)
        }
        Err(LexFault::UnrecognizedThrough(n)) => {
            Err(LexFault::UnrecognizedThrough(lex.span().end + n))
        }
        Err(LexFault::Unescape(message)) => {
            // the token is the whole literal, as cel-go's lexer reads it; its parser refuses the escape
            let closed = escaped_len(lex.remainder(), end_quote, bytes);
            lex.bump(closed);
            Err(LexFault::Unescape(message))
        }
        Err(other) => Err(other),
    }
}

/// The length of a quoted literal's rest whose escape names no character, end quote included: where it would end
/// were every escape well formed.
fn escaped_len(remainder: &str, end_quote: &str, bytes: bool) -> usize {
    let end_bytes = end_quote.as_bytes();
    let mut chars = remainder.chars();
    let mut consumed = 0;
    while let Some(c) = chars.next() {
        if remainder
            .as_bytes()
            .get(consumed..consumed + end_bytes.len())
            == Some(end_bytes)
        {
            return consumed + end_bytes.len();
        }
        consumed += c.len_utf8();
        if c == '\\' {
            // an escape, well formed or not, ends nothing: go on after what it read
            let _ = unescape(&mut chars, &mut consumed, bytes);
        }
    }
    consumed
}

/// [`lex_escaped`] of `remainder`: the value and the length of the literal's rest, end quote included. A line break
/// written in a triple-quoted literal (`\r\n`, `\r`) is read as `\n`, as cel-go reads it.
fn escaped(remainder: &str, end_quote: &str, bytes: bool) -> Result<(Vec<u8>, usize), LexFault> {
    let end_bytes = end_quote.as_bytes();
    let end_len = end_bytes.len();
    let mut chars = remainder.chars();
    let mut result = Vec::new();
    let mut consumed = 0;
    let mut buf = [0u8; 4];

    while let Some(c) = chars.next() {
        // Check if we've reached the end quote
        if remainder.as_bytes().get(consumed..consumed + end_len) == Some(end_bytes) {
            return Ok((result, consumed + end_len));
        }
        consumed += c.len_utf8();

        let c = match c {
            '\\' => match unescape(&mut chars, &mut consumed, bytes) {
                Ok(Unescaped::Byte(b)) if bytes => {
                    result.push(b);
                    continue;
                }
                Ok(Unescaped::Byte(b)) => char::from(b),
                Ok(Unescaped::Char(c)) => c,
                Err(LexFault::Unrecognized) => return Err(LexFault::UnrecognizedThrough(consumed)),
                Err(other) => return Err(other),
            },
            // no line break in a single-quoted literal
            '\n' | '\r' if end_len == 1 => return Err(LexFault::UnrecognizedThrough(consumed)),
            '\r' if remainder.as_bytes().get(consumed) == Some(&b'\n') => continue,
            '\r' => '\n',
            c => c,
        };
        result.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }

    Err(LexFault::UnrecognizedThrough(consumed)) // Unclosed string
}

fn lex_raw_double_string(lex: &mut logos::Lexer<Token>) -> Result<String, LexFault> {
    lex_raw_string(lex, '"')
}

fn lex_raw_single_string(lex: &mut logos::Lexer<Token>) -> Result<String, LexFault> {
    lex_raw_string(lex, '\'')
}

/// A raw single-quoted string: no escapes, and no line break.
fn lex_raw_string(lex: &mut logos::Lexer<Token>, quote: char) -> Result<String, LexFault> {
    let remainder = lex.remainder();
    let mut result = std::string::String::new();
    let mut consumed = 0;

    for c in remainder.chars() {
        consumed += c.len_utf8();
        if c == quote {
            lex.bump(consumed);
            return Ok(result);
        }
        if c == '\n' || c == '\r' {
            break;
        }
        result.push(c);
    }

    // a line break, or unclosed
    Err(LexFault::UnrecognizedThrough(lex.span().end + consumed))
}

fn lex_triple_double_string(lex: &mut logos::Lexer<Token>) -> Result<String, LexFault> {
    lex_triple_string(lex, "\"\"\"")
}

fn lex_triple_single_string(lex: &mut logos::Lexer<Token>) -> Result<String, LexFault> {
    lex_triple_string(lex, "'''")
}

fn lex_triple_string(lex: &mut logos::Lexer<Token>, end_quote: &str) -> Result<String, LexFault> {
    String::from_utf8(lex_escaped(lex, end_quote, false)?).map_err(|_| LexFault::Unrecognized)
}

fn lex_raw_triple_double_string(lex: &mut logos::Lexer<Token>) -> Result<String, LexFault> {
    lex_raw_triple_string(lex, "\"\"\"")
}

fn lex_raw_triple_single_string(lex: &mut logos::Lexer<Token>) -> Result<String, LexFault> {
    lex_raw_triple_string(lex, "'''")
}

/// Lex a raw triple-quoted string (no escape processing; a line break `\r\n` or `\r` is read as `\n`, as cel-go
/// reads it).
fn lex_raw_triple_string(
    lex: &mut logos::Lexer<Token>,
    end_quote: &str,
) -> Result<String, LexFault> {
    let remainder = lex.remainder();
    if let Some(end_pos) = remainder.find(end_quote) {
        let content = &remainder[..end_pos];
        lex.bump(end_pos + end_quote.len());
        Ok(content.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Err(LexFault::UnrecognizedThrough(
            lex.span().end + remainder.len(),
        ))
    }
}

// === Lexer Callbacks for Bytes ===

fn lex_bytes_double(lex: &mut logos::Lexer<Token>) -> Result<Vec<u8>, LexFault> {
    lex_quoted_bytes(lex, "\"")
}

fn lex_bytes_single(lex: &mut logos::Lexer<Token>) -> Result<Vec<u8>, LexFault> {
    lex_quoted_bytes(lex, "'")
}

/// Lex a quoted byte string, handling escapes to produce raw bytes.
/// Unlike `lex_quoted_string`, octal/hex escapes push raw byte values
/// rather than interpreting them as Unicode code points.
fn lex_quoted_bytes(lex: &mut logos::Lexer<Token>, quote: &str) -> Result<Vec<u8>, LexFault> {
    lex_escaped(lex, quote, true)
}

fn lex_bytes_triple_double(lex: &mut logos::Lexer<Token>) -> Result<Vec<u8>, LexFault> {
    lex_triple_bytes(lex, "\"\"\"")
}

fn lex_bytes_triple_single(lex: &mut logos::Lexer<Token>) -> Result<Vec<u8>, LexFault> {
    lex_triple_bytes(lex, "'''")
}

fn lex_triple_bytes(lex: &mut logos::Lexer<Token>, end_quote: &str) -> Result<Vec<u8>, LexFault> {
    lex_escaped(lex, end_quote, true)
}

fn lex_raw_bytes_double(lex: &mut logos::Lexer<Token>) -> Result<Vec<u8>, LexFault> {
    lex_raw_string(lex, '"').map(|s| s.into_bytes())
}

fn lex_raw_bytes_single(lex: &mut logos::Lexer<Token>) -> Result<Vec<u8>, LexFault> {
    lex_raw_string(lex, '\'').map(|s| s.into_bytes())
}

fn lex_raw_bytes_triple_double(lex: &mut logos::Lexer<Token>) -> Result<Vec<u8>, LexFault> {
    lex_raw_triple_string(lex, "\"\"\"").map(|s| s.into_bytes())
}

fn lex_raw_bytes_triple_single(lex: &mut logos::Lexer<Token>) -> Result<Vec<u8>, LexFault> {
    lex_raw_triple_string(lex, "'''").map(|s| s.into_bytes())
}

// === Public Lexer API ===

/// cel-go's (ANTLR's) token recognition error: the text from `start` through the character that does not fit, a line
/// break or a tab shown escaped.
fn unrecognized(input: &str, start: usize, end: usize) -> LexError {
    let text: String = input
        .get(start..end)
        .unwrap_or("")
        .chars()
        .map(|c| match c {
            '\n' => "\\n".to_string(),
            '\r' => "\\r".to_string(),
            '\t' => "\\t".to_string(),
            c => c.to_string(),
        })
        .collect();
    LexError {
        message: format!("token recognition error at: '{text}'"),
        span: start..end,
        plain: false,
    }
}

/// Where lexing goes on after a token recognition error from `start` through `end`: at `end` (ANTLR skips the
/// character that did not fit), and past at least the first character, on a character boundary.
fn resume_after(input: &str, start: usize, end: usize) -> usize {
    let first = input
        .get(start..)
        .and_then(|rest| rest.chars().next())
        .map_or(1, char::len_utf8);
    let mut at = end.max(start + first);
    while at < input.len() && !input.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// Tokenize the input string: the tokens, or the first error (the unit tests' reading).
#[cfg(test)]
pub fn lex(input: &str) -> Result<Vec<SpannedToken>, LexError> {
    let (tokens, mut errors) = lex_recovering(input);
    if errors.is_empty() {
        Ok(tokens)
    } else {
        Err(errors.swap_remove(0))
    }
}

/// Tokenize the input string as cel-go's (ANTLR's) lexer does: text no token matches is reported (a token recognition
/// error, from where the token started through the character that does not fit) and skipped, and lexing goes on
/// after it, so the parser still reads the tokens around it. A literal whose value does not fit, or whose escape names
/// no character, is a token all the same (cel-go's parser refuses it): the number as [`Token::InvalidNumber`], the
/// string or bytes as an empty one, with its error. Lexing stops after the error past cel-go's limit on syntax errors.
pub fn lex_recovering(input: &str) -> (Vec<SpannedToken>, Vec<LexError>) {
    let mut tokens = Vec::new();
    let mut errors = Vec::new();
    let mut base = 0;
    // past cel-go's limit on syntax errors nothing more is reported (`parse_tokens_with_macros`): stop there
    'restart: while let Some(rest) = input
        .get(base..)
        .filter(|rest| !rest.is_empty() && errors.len() <= super::parse::SYNTAX_ERROR_LIMIT)
    {
        let mut lexer = Token::lexer(rest);
        while let Some(result) = lexer.next() {
            let local = lexer.span();
            let span = local.start + base..local.end + base;
            let message = match result {
                Ok(token) => {
                    tokens.push((token, span));
                    continue;
                }
                Err(LexFault::Unrecognized) => {
                    // cel-go's lexer was reading `||`, `&&` or `==` when the second character did not come, or an
                    // escaped identifier when a character it cannot hold (or the end) came: it shows what it read,
                    // and that
                    let next = input.get(span.end..).and_then(|rest| rest.chars().next());
                    let end = match (input.get(span.clone()), next) {
                        (Some("|" | "&" | "="), Some(next)) => span.end + next.len_utf8(),
                        _ if input[span.start..].starts_with('`') => {
                            escaped_ident_fault_end(input, span.start)
                        }
                        _ => span.end,
                    };
                    errors.push(unrecognized(input, span.start, end));
                    base = resume_after(input, span.start, end);
                    continue 'restart;
                }
                Err(LexFault::UnrecognizedThrough(end)) => {
                    // counted, as the lexer counts, from the start of `rest`
                    let end = (end + base).min(input.len());
                    errors.push(unrecognized(input, span.start, end));
                    base = resume_after(input, span.start, end);
                    continue 'restart;
                }
                Err(LexFault::Unescape(message)) => {
                    errors.push(LexError {
                        message: message.to_string(),
                        span: span.clone(),
                        plain: true,
                    });
                    let text = &input[span.clone()];
                    let bytes = text.starts_with(['b', 'B'])
                        || text.get(1..).is_some_and(|t| t.starts_with(['b', 'B']));
                    tokens.push((
                        if bytes {
                            Token::Bytes(Vec::new())
                        } else {
                            Token::String(String::new())
                        },
                        span,
                    ));
                    continue;
                }
                Err(LexFault::InvalidInt) => "invalid int literal",
                Err(LexFault::InvalidUint) => "invalid uint literal",
                Err(LexFault::InvalidDouble) => "invalid double literal",
            };
            // the parser reports it, at the sign when the literal has one
            tokens.push((
                Token::InvalidNumber(BadNumber {
                    message,
                    text: input[span.clone()].to_string(),
                }),
                span,
            ));
        }
        break;
    }
    (tokens, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_no_token_matches_is_reported_and_skipped() {
        let (tokens, errors) = lex_recovering("a @ b | c 😁 d '\\udead' \"x");
        let tokens: Vec<Token> = tokens.into_iter().map(|(t, _)| t).collect();
        assert_eq!(
            tokens,
            vec![
                Token::Ident("a".into()),
                Token::Ident("b".into()),
                Token::Ident("c".into()),
                Token::Ident("d".into()),
                Token::String(String::new()),
            ]
        );
        let errors: Vec<(String, Span)> = errors.into_iter().map(|e| (e.message, e.span)).collect();
        assert_eq!(
            errors,
            vec![
                ("token recognition error at: '@'".to_string(), 2..3),
                ("token recognition error at: '| '".to_string(), 6..8),
                ("token recognition error at: '😁'".to_string(), 10..14),
                ("invalid unicode code point".to_string(), 17..25),
                ("token recognition error at: '\"x'".to_string(), 26..28),
            ]
        );
    }

    fn lex_tokens(input: &str) -> Vec<Token> {
        lex(input)
            .unwrap()
            .into_iter()
            .map(|(tok, _)| tok)
            .collect()
    }

    #[test]
    fn lex_integers() {
        assert_eq!(lex_tokens("123"), vec![Token::Int(123)]);
        assert_eq!(lex_tokens("0"), vec![Token::Int(0)]);
        assert_eq!(lex_tokens("0x1F"), vec![Token::Int(31)]);
        // cel-go's prefix is `0x` only: `0XAB` is `0` and the identifier `XAB`
        assert_eq!(
            lex_tokens("0XAB"),
            vec![Token::Int(0), Token::Ident("XAB".to_string())]
        );
    }

    #[test]
    fn lex_unsigned_integers() {
        assert_eq!(lex_tokens("123u"), vec![Token::UInt(123)]);
        assert_eq!(lex_tokens("123U"), vec![Token::UInt(123)]);
        assert_eq!(lex_tokens("0x1Fu"), vec![Token::UInt(31)]);
    }

    #[test]
    fn lex_floats() {
        assert_eq!(lex_tokens("1.5"), vec![Token::Float(1.5)]);
        assert_eq!(lex_tokens("1e10"), vec![Token::Float(1e10)]);
        assert_eq!(lex_tokens("1.5e-3"), vec![Token::Float(1.5e-3)]);
    }

    #[test]
    fn lex_strings() {
        assert_eq!(
            lex_tokens(r#""hello""#),
            vec![Token::String("hello".to_string())]
        );
        assert_eq!(
            lex_tokens("'world'"),
            vec![Token::String("world".to_string())]
        );
        assert_eq!(
            lex_tokens(r#""hello\nworld""#),
            vec![Token::String("hello\nworld".to_string())]
        );
    }

    #[test]
    fn lex_raw_strings() {
        assert_eq!(
            lex_tokens(r#"r"hello\n""#),
            vec![Token::String(r"hello\n".to_string())]
        );
        assert_eq!(
            lex_tokens(r"r'hello\n'"),
            vec![Token::String(r"hello\n".to_string())]
        );
    }

    #[test]
    fn lex_triple_strings() {
        assert_eq!(
            lex_tokens(
                r#""""multi
line""""#
            ),
            vec![Token::String("multi\nline".to_string())]
        );
    }

    #[test]
    fn lex_bytes() {
        assert_eq!(
            lex_tokens(r#"b"hello""#),
            vec![Token::Bytes(b"hello".to_vec())]
        );
        assert_eq!(
            lex_tokens("b'world'"),
            vec![Token::Bytes(b"world".to_vec())]
        );
    }

    #[test]
    fn lex_keywords() {
        assert_eq!(lex_tokens("true"), vec![Token::True]);
        assert_eq!(lex_tokens("false"), vec![Token::False]);
        assert_eq!(lex_tokens("null"), vec![Token::Null]);
        assert_eq!(lex_tokens("in"), vec![Token::In]);
    }

    #[test]
    fn lex_identifiers() {
        assert_eq!(lex_tokens("foo"), vec![Token::Ident("foo".to_string())]);
        assert_eq!(lex_tokens("_bar"), vec![Token::Ident("_bar".to_string())]);
        assert_eq!(
            lex_tokens("baz123"),
            vec![Token::Ident("baz123".to_string())]
        );
    }

    #[test]
    fn lex_operators() {
        assert_eq!(
            lex_tokens("+ - * / %"),
            vec![
                Token::Plus,
                Token::Minus,
                Token::Star,
                Token::Slash,
                Token::Percent
            ]
        );
        assert_eq!(
            lex_tokens("== != < <= > >="),
            vec![
                Token::EqEq,
                Token::Ne,
                Token::Lt,
                Token::Le,
                Token::Gt,
                Token::Ge
            ]
        );
        assert_eq!(
            lex_tokens("&& || !"),
            vec![Token::And, Token::Or, Token::Not]
        );
        assert_eq!(lex_tokens("? :"), vec![Token::Question, Token::Colon]);
    }

    #[test]
    fn lex_delimiters() {
        assert_eq!(
            lex_tokens("( ) [ ] { } . ,"),
            vec![
                Token::LParen,
                Token::RParen,
                Token::LBracket,
                Token::RBracket,
                Token::LBrace,
                Token::RBrace,
                Token::Dot,
                Token::Comma
            ]
        );
    }

    #[test]
    fn lex_expression() {
        assert_eq!(
            lex_tokens("a + b * 2"),
            vec![
                Token::Ident("a".to_string()),
                Token::Plus,
                Token::Ident("b".to_string()),
                Token::Star,
                Token::Int(2)
            ]
        );
    }

    #[test]
    fn lex_with_comments() {
        assert_eq!(
            lex_tokens("a // comment\n+ b"),
            vec![
                Token::Ident("a".to_string()),
                Token::Plus,
                Token::Ident("b".to_string())
            ]
        );
    }

    #[test]
    fn lex_unicode_escapes() {
        // \uXXXX - 4 hex digits
        assert_eq!(
            lex_tokens(r#""\u0041""#),
            vec![Token::String("A".to_string())]
        );
        assert_eq!(
            lex_tokens(r#""\u03B1""#), // Greek alpha
            vec![Token::String("α".to_string())]
        );
        // \UXXXXXXXX - 8 hex digits
        assert_eq!(
            lex_tokens(r#""\U00000041""#),
            vec![Token::String("A".to_string())]
        );
        assert_eq!(
            lex_tokens(r#""\U0001F600""#), // Emoji
            vec![Token::String("😀".to_string())]
        );
    }

    #[test]
    fn lex_octal_escapes() {
        // \DDD - 3 octal digits (000-377)
        assert_eq!(
            lex_tokens(r#""\101""#), // 'A' = 65 = 0o101
            vec![Token::String("A".to_string())]
        );
        assert_eq!(
            lex_tokens(r#""\000""#), // NUL
            vec![Token::String("\0".to_string())]
        );
        assert_eq!(
            lex_tokens(r#""\377""#), // 255 = 0o377
            vec![Token::String("\u{FF}".to_string())]
        );
    }

    #[test]
    fn lex_reserved_words() {
        // Reserved words should produce Token::Reserved, not Token::Ident
        assert_eq!(lex_tokens("if"), vec![Token::Reserved("if".to_string())]);
        assert_eq!(
            lex_tokens("else"),
            vec![Token::Reserved("else".to_string())]
        );
        assert_eq!(lex_tokens("for"), vec![Token::Reserved("for".to_string())]);
        assert_eq!(
            lex_tokens("while"),
            vec![Token::Reserved("while".to_string())]
        );
        assert_eq!(
            lex_tokens("return"),
            vec![Token::Reserved("return".to_string())]
        );
        assert_eq!(lex_tokens("let"), vec![Token::Reserved("let".to_string())]);
        assert_eq!(
            lex_tokens("const"),
            vec![Token::Reserved("const".to_string())]
        );
        assert_eq!(lex_tokens("var"), vec![Token::Reserved("var".to_string())]);
        assert_eq!(
            lex_tokens("function"),
            vec![Token::Reserved("function".to_string())]
        );
        assert_eq!(
            lex_tokens("namespace"),
            vec![Token::Reserved("namespace".to_string())]
        );
    }

    #[test]
    fn lex_integer_overflow() {
        // i64::MAX = 9223372036854775807 (fits)
        assert_eq!(
            lex_tokens("9223372036854775807"),
            vec![Token::Int(9223372036854775807)]
        );

        // i64::MAX + 1 = 9223372036854775808 (overflow - this is |i64::MIN|)
        // This specific value is needed for "-9223372036854775808" to work
        assert_eq!(
            lex_tokens("9223372036854775808"),
            vec![Token::IntOverflow("9223372036854775808".to_string())]
        );

        // Normal 19-digit number that fits
        assert_eq!(
            lex_tokens("1000000000000000000"),
            vec![Token::Int(1000000000000000000)]
        );
    }
}

#[cfg(test)]
mod cel_go_literal_tests {
    //! Literals as cel-go's lexer (`CEL.g4`: `ESC_SEQ`, `NUM_INT`, `NUM_UINT`, `NUM_FLOAT`, `STRING`) and parser
    //! (`VisitInt`, `VisitUint`, `VisitDouble`, `unescape.go`) read them.
    use super::*;

    fn one(input: &str) -> Result<Token, (String, bool)> {
        match lex(input) {
            Ok(tokens) if tokens.len() == 1 => Ok(tokens[0].0.clone()),
            Ok(tokens) => panic!("{input:?}: {} tokens", tokens.len()),
            Err(e) => Err((e.message, e.plain)),
        }
    }

    fn string(input: &str, want: &str) {
        assert_eq!(one(input), Ok(Token::String(want.to_string())), "{input:?}");
    }

    fn unrecognized(input: &str) {
        assert!(
            matches!(one(input), Err((m, false)) if m.starts_with("token recognition error")),
            "{input:?}: {:?}",
            one(input)
        );
    }

    #[test]
    fn escapes_are_cel_go_s() {
        string(r"'\u00e9'", "é");
        string(r"'\U0001F600'", "\u{1F600}");
        string(r"'\x41\X42'", "AB");
        string(r"'\xff'", "\u{ff}");
        string(r"'\377'", "\u{ff}");
        string(
            r#"'\a\b\f\n\r\t\v\\\'\"\`\?'"#,
            "\x07\x08\x0C\n\r\t\x0B\\'\"`?",
        );
        string("'é'", "é");
        assert_eq!(one(r"b'\xff\377'"), Ok(Token::Bytes(vec![0xff, 0xff])));
        // not an escape of cel-go's grammar
        for input in [
            r"'\/'",
            r"'\q'",
            r"'\x+f'",
            r"'\xg0'",
            r"'\x4'",
            r"'\u+0e9'",
            r"'\u00é'",
            r"'\400'",
            r"'\18'",
            r"'\1'",
            r"'\é'",
            "'\\",
            r"'\U+001F600'",
        ] {
            unrecognized(input);
        }
        // escapes the lexer reads and the parser refuses, at the literal, without `Syntax error:`
        let refused = |input: &str, message: &str| {
            assert_eq!(one(input), Err((message.to_string(), true)), "{input:?}");
        };
        refused(r"'\uD800'", "invalid unicode code point");
        refused(r"'\U00110000'", "invalid unicode code point");
        refused(r"b'\u00e9'", "unable to unescape string");
        refused(r"b'\U0001F600'", "unable to unescape string");
    }

    /// ANTLR's text for a token it cannot read: through the first character that does not fit (cel-go's
    /// `parser_test.go` cases `"\xFh"`, `a | b` and `'3# < 10" '& tru ^^`).
    #[test]
    fn token_recognition_error_text() {
        let message = |input: &str| lex(input).map(|_| ()).unwrap_err().message;
        let at = |text: &str| format!("token recognition error at: '{text}'");
        assert_eq!(message(r#""\xFh""#), at(r#""\xFh"#));
        assert_eq!(
            message(r#""\a\b\f\n\r\t\v\'\"\\\? Illegal escape \>""#),
            at(r#""\a\b\f\n\r\t\v\'\"\\\? Illegal escape \>"#)
        );
        assert_eq!(message("a | b"), at("| "));
        assert_eq!(message("'3# < 10\" '& tru ^^"), at("& "));
        assert_eq!(message("a |"), at("|"));
        assert_eq!(message("x $"), at("$"));
        assert_eq!(message("'ab\ncd'"), at("'ab\\n"));
        assert_eq!(message("r'ab"), at("r'ab"));
        assert_eq!(message("'''ab"), at("'''ab"));
    }

    #[test]
    fn line_breaks() {
        unrecognized("'a\nb'");
        unrecognized("'a\rb'");
        unrecognized("r'a\nb'");
        unrecognized("r\"a\rb\"");
        string("'''a\r\nb'''", "a\nb");
        string("'''a\rb'''", "a\nb");
        string("r'''a\r\nb\rc'''", "a\nb\nc");
        string("\"\"\"a\nb\"\"\"", "a\nb");
    }

    #[test]
    fn numbers_that_do_not_fit() {
        assert_eq!(one("9223372036854775807"), Ok(Token::Int(i64::MAX)));
        assert_eq!(
            one("9223372036854775809"),
            Ok(Token::InvalidNumber(BadNumber {
                message: "invalid int literal",
                text: "9223372036854775809".to_string()
            }))
        );
        assert_eq!(
            one("0xFFFFFFFFFFFFFFFFF"),
            Ok(Token::InvalidNumber(BadNumber {
                message: "invalid int literal",
                text: "0xFFFFFFFFFFFFFFFFF".to_string()
            }))
        );
        assert_eq!(one("18446744073709551615u"), Ok(Token::UInt(u64::MAX)));
        assert_eq!(
            one("18446744073709551616u"),
            Ok(Token::InvalidNumber(BadNumber {
                message: "invalid uint literal",
                text: "18446744073709551616u".to_string()
            }))
        );
        assert_eq!(
            one("0xFFFFFFFFFFFFFFFFFu"),
            Ok(Token::InvalidNumber(BadNumber {
                message: "invalid uint literal",
                text: "0xFFFFFFFFFFFFFFFFFu".to_string()
            }))
        );
        assert_eq!(
            one("1.99e90000009"),
            Ok(Token::InvalidNumber(BadNumber {
                message: "invalid double literal",
                text: "1.99e90000009".to_string()
            }))
        );
        // Go's strconv.ParseFloat reads an underflow as 0
        assert_eq!(one("1e-400"), Ok(Token::Float(0.0)));
        // cel-go's hexadecimal prefix is `0x` only
        assert_eq!(
            lex("0X1F").map(|t| t.into_iter().map(|(t, _)| t).collect::<Vec<_>>()),
            Ok(vec![Token::Int(0), Token::Ident("X1F".to_string())])
        );
    }
}
